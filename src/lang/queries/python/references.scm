; Python references: calls, with the receiver of attribute calls, and type annotations.

(call
  function: (identifier) @name) @reference.call

(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call

(type (identifier) @name) @reference.type

(type (subscript value: (identifier) @name)) @reference.type

; Bindings: `x = Foo(...)`, `self.x = Foo(...)`, `x: Foo`, typed parameters.
(assignment
  left: [(identifier) (attribute)] @binding.name
  right: (call function: (identifier) @binding.type)) @binding

(assignment
  left: [(identifier) (attribute)] @binding.name
  type: (type (identifier) @binding.type)) @binding

(typed_parameter
  (identifier) @binding.name
  type: (type (identifier) @binding.type)) @binding

(typed_default_parameter
  name: (identifier) @binding.name
  type: (type (identifier) @binding.type)) @binding
