; Swift references: calls `f()` (also constructor calls `Foo()`), `a.b()` with receiver `a`,
; generic constructor calls `Foo<T>()`, and type names in annotations, parameters, return types,
; inheritance lists and generic arguments.

(call_expression
  (simple_identifier) @name) @reference.call

(call_expression
  (navigation_expression
    target: (_) @receiver
    suffix: (navigation_suffix
      suffix: (simple_identifier) @name))) @reference.call

(constructor_expression
  constructed_type: (user_type
    (type_identifier) @name)) @reference.call

(user_type
  (type_identifier) @name) @reference.type

; Bindings: `let x: Foo`, `var x = Foo(...)`, typed parameters `(x: Foo)`.
(property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @binding.name)
  (type_annotation
    [(user_type) (optional_type)] @binding.type)) @binding

(property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @binding.name)
  value: (call_expression
    (simple_identifier) @binding.type)) @binding

(property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @binding.name)
  value: (constructor_expression
    constructed_type: (user_type) @binding.type)) @binding

(parameter
  name: (simple_identifier) @binding.name
  [(user_type) (optional_type)] @binding.type) @binding

; The grammar parses `n * f(x)` as a call of `n * f`: the called name is the operand on the right.
(call_expression
  [(multiplicative_expression rhs: (simple_identifier) @name)
   (additive_expression rhs: (simple_identifier) @name)]) @reference.call
