; C# references: calls `F()`, `F<T>()`, `x.F()`, `this.F()`, `base.F()`, `T.F()`, `x?.F()`,
; `new T()` (a call named `T`), and type names in type positions.

(invocation_expression
  function: [
    (identifier) @name
    (generic_name . (identifier) @name)
  ]) @reference.call

; `expression` may be the anonymous `this` or `base` token, hence `_`.
(invocation_expression
  function: (member_access_expression
    expression: _ @receiver
    name: [
      (identifier) @name
      (generic_name . (identifier) @name)
    ])) @reference.call

(invocation_expression
  function: (conditional_access_expression
    condition: (_) @receiver
    (member_binding_expression
      name: [
        (identifier) @name
        (generic_name . (identifier) @name)
      ]))) @reference.call

(object_creation_expression
  type: [
    (identifier) @name
    (generic_name . (identifier) @name)
    (qualified_name
      qualifier: (_) @receiver
      name: [
        (identifier) @name
        (generic_name . (identifier) @name)
      ])
  ]) @reference.call

; Type names: any `type:` field (parameters, variables, fields, properties, casts, `typeof`,
; patterns, arrays, nullables), return types, and generic arguments.
(_
  type: [
    (identifier) @name
    (generic_name . (identifier) @name)
    (qualified_name
      name: [
        (identifier) @name
        (generic_name . (identifier) @name)
      ])
  ]) @reference.type

(method_declaration
  returns: [
    (identifier) @name
    (generic_name . (identifier) @name)
    (qualified_name
      name: [
        (identifier) @name
        (generic_name . (identifier) @name)
      ])
  ]) @reference.type

(type_argument_list
  [
    (identifier) @name
    (generic_name . (identifier) @name)
    (qualified_name
      name: [
        (identifier) @name
        (generic_name . (identifier) @name)
      ])
  ]) @reference.type

; Bindings: `T x`, `T x = ...`, fields, parameters, properties, and `var x = new T(...)`.
(variable_declaration
  type: [(identifier) (generic_name) (qualified_name) (nullable_type)] @binding.type
  (variable_declarator
    name: (identifier) @binding.name)) @binding

(variable_declaration
  type: (implicit_type)
  (variable_declarator
    name: (identifier) @binding.name
    (object_creation_expression
      type: (_) @binding.type))) @binding

(parameter
  type: [(identifier) (generic_name) (qualified_name) (nullable_type)] @binding.type
  name: (identifier) @binding.name) @binding

(property_declaration
  type: [(identifier) (generic_name) (qualified_name) (nullable_type)] @binding.type
  name: (identifier) @binding.name) @binding
