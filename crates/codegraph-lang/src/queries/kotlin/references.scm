; Kotlin references: calls (`f()`, `x.f()`, `x?.f()`, `Type()` constructor calls), callable
; references (`::f`), and type uses (the last segment of a user type).

(call_expression
  .
  (identifier) @name) @reference.call

(call_expression
  .
  (navigation_expression
    (_) @receiver
    .
    (identifier) @name
    .)) @reference.call

(callable_reference
  (identifier) @name
  .) @reference.call

(user_type
  (identifier) @name
  .) @reference.type

(user_type
  (identifier) @name
  .
  (type_arguments)
  .) @reference.type

; Bindings: typed parameters, constructor properties and locals; `val x = Foo()`.
(parameter
  (identifier) @binding.name
  .
  [(user_type) (nullable_type)] @binding.type) @binding

(class_parameter
  (identifier) @binding.name
  .
  [(user_type) (nullable_type)] @binding.type) @binding

(variable_declaration
  (identifier) @binding.name
  .
  [(user_type) (nullable_type)] @binding.type) @binding

((property_declaration
  (variable_declaration
    (identifier) @binding.name
    .)
  [
    (call_expression . (identifier) @binding.type)
    (call_expression . (navigation_expression (identifier) @binding.type .))
  ]) @binding
  (#match? @binding.type "^[A-Z]"))
