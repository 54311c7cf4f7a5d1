; Ruby references: calls with and without receivers. `Foo.new` is also a call of `Foo` (the
; constructor). A bare identifier is a call only where it cannot be a local variable's value:
; followed by another statement, at the top of the file, or as a modifier's body (`main if ...`).

(call
  receiver: (_) @receiver
  method: [(identifier) (constant)] @name) @reference.call

(call
  !receiver
  method: [(identifier) (constant)] @name) @reference.call

(call
  receiver: [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ]
  method: (identifier) @_new
  (#eq? @_new "new")) @reference.call

(body_statement
  (identifier) @name @reference.call
  .
  (_))

(program
  (identifier) @name @reference.call)

(if_modifier
  body: (identifier) @name @reference.call)

(unless_modifier
  body: (identifier) @name @reference.call)

; `rescue Foo::Error => e` and `Foo::BAR` name types.
(exceptions
  [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ] @reference.type)

(scope_resolution
  scope: (constant) @name) @reference.type

; Bindings: `x = Foo.new`, `@x = Foo::Bar.new(...)`, `@x ||= Foo.new`.
(assignment
  left: [(identifier) (instance_variable) (class_variable) (global_variable)] @binding.name
  right: (call
    receiver: [(constant) (scope_resolution)] @binding.type
    method: (identifier) @_new)
  (#eq? @_new "new")) @binding

(operator_assignment
  left: [(identifier) (instance_variable) (class_variable) (global_variable)] @binding.name
  right: (call
    receiver: [(constant) (scope_resolution)] @binding.type
    method: (identifier) @_new)
  (#eq? @_new "new")) @binding
