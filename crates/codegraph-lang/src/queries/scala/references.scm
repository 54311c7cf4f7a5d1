; Scala references: calls `f(...)`, `a.f(...)` (receiver `a`), `f[T](...)`, constructor calls
; `new Foo(...)` (also `Foo(...)` of a case class, a plain call), and type names in annotations,
; parameters, return types, bases and type arguments. Parameterless calls (`a.size`) look like
; field accesses and are not calls.

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    value: (_) @receiver
    field: (identifier) @name)) @reference.call

(call_expression
  function: (generic_function
    function: (identifier) @name)) @reference.call

(call_expression
  function: (generic_function
    function: (field_expression
      value: (_) @receiver
      field: (identifier) @name))) @reference.call

(instance_expression
  [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (stable_type_identifier (type_identifier) @name .)
  ]) @reference.call

(type_identifier) @name @reference.type

; Bindings: `val x: Foo`, `val x = new Foo(...)`, `val x = Foo(...)`, typed parameters and class
; parameters (fields of the class).
(val_definition
  pattern: (identifier) @binding.name
  type: (_) @binding.type) @binding

(var_definition
  pattern: (identifier) @binding.name
  type: (_) @binding.type) @binding

(val_definition
  pattern: (identifier) @binding.name
  !type
  value: (instance_expression
    [(type_identifier) (generic_type) (stable_type_identifier)] @binding.type)) @binding

(var_definition
  pattern: (identifier) @binding.name
  !type
  value: (instance_expression
    [(type_identifier) (generic_type) (stable_type_identifier)] @binding.type)) @binding

(val_definition
  pattern: (identifier) @binding.name
  !type
  value: (call_expression
    function: (identifier) @binding.type)) @binding

(parameter
  name: (identifier) @binding.name
  type: (_) @binding.type) @binding

(class_parameter
  name: (identifier) @binding.name
  type: (_) @binding.type) @binding
