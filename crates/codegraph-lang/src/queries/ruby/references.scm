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

; A bare identifier is a call on `self` unless it names a parameter or a local assigned in the
; method: the `@binding.local` captures below shadow it (Ruby's parser decides the same way).
(body_statement (identifier) @name @reference.call)
(block_body (identifier) @name @reference.call)
(then (identifier) @name @reference.call)
(else (identifier) @name @reference.call)
(parenthesized_statements (identifier) @name @reference.call)
(argument_list (identifier) @name @reference.call)
(binary [left: (identifier) right: (identifier)] @name @reference.call)
(unary operand: (identifier) @name @reference.call)
(assignment right: (identifier) @name @reference.call)
(operator_assignment right: (identifier) @name @reference.call)
(interpolation (identifier) @name @reference.call)
(if condition: (identifier) @name @reference.call)
(unless condition: (identifier) @name @reference.call)
(while condition: (identifier) @name @reference.call)
(until condition: (identifier) @name @reference.call)
(conditional [condition: (identifier) consequence: (identifier) alternative: (identifier)] @name @reference.call)
(array (identifier) @name @reference.call)
(pair value: (identifier) @name @reference.call)

(program
  (identifier) @name @reference.call)

(if_modifier
  body: (identifier) @name @reference.call)

(unless_modifier
  body: (identifier) @name @reference.call)

; Parameters and assigned locals (`@binding.local`): they shadow methods of their name.
(method_parameters (identifier) @binding.name @binding.local) @binding
(lambda_parameters (identifier) @binding.name @binding.local) @binding
(block_parameters (identifier) @binding.name @binding.local) @binding
(optional_parameter name: (identifier) @binding.name @binding.local) @binding
(keyword_parameter name: (identifier) @binding.name @binding.local) @binding
(splat_parameter name: (identifier) @binding.name @binding.local) @binding
(hash_splat_parameter name: (identifier) @binding.name @binding.local) @binding
(block_parameter name: (identifier) @binding.name @binding.local) @binding
(assignment left: (identifier) @binding.name @binding.local) @binding
(operator_assignment left: (identifier) @binding.name @binding.local) @binding
(left_assignment_list (identifier) @binding.name @binding.local) @binding
(for pattern: (identifier) @binding.name @binding.local) @binding
(exception_variable (identifier) @binding.name @binding.local) @binding

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
