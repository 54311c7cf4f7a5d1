; Python references: calls, with the receiver of attribute calls, and type annotations.

(call
  function: (identifier) @name) @reference.call

(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call

(type (identifier) @name) @reference.type

(type (subscript value: (identifier) @name)) @reference.type

; `return Session`: a function that hands out a class by name uses it (a factory such as
; Django's `get_model_class`, whose import is inside it). Capitalised names only: a class, by
; the language's convention, resolved as a type (a local of that name is not).
(return_statement
  (identifier) @name
  (#match? @name "^[A-Z]")) @reference.type

; `return models.User`: the same through a module (or a class) attribute.
(return_statement
  (attribute
    object: (identifier) @receiver
    attribute: (identifier) @name)
  (#match? @name "^[A-Z]")) @reference.type

; Bindings: `x: Foo`, typed parameters, and (below) `x = Foo(...)`, `self.x = make()`. Any
; annotation: `"Console"`, `Optional[Foo]`, `Foo | None`, `mod.Foo`, `Stack[T]` (resolution
; reads the type it is used as).
(assignment
  left: [(identifier) (attribute)] @binding.name
  type: (type) @binding.type) @binding

; `x = <expression>`, `self.x = <expression>` otherwise: the expression, typed by resolution
; (`self.factory.create()`, `make_session()`); the patterns above win where both match.
(assignment
  left: [(identifier) (attribute)] @binding.name
  !type
  right: (_) @binding.value) @binding

(typed_parameter
  (identifier) @binding.name
  type: (type) @binding.type) @binding

(typed_default_parameter
  name: (identifier) @binding.name
  type: (type) @binding.type) @binding

; Untyped parameters: they shadow outer definitions of their name (`@binding.local`).
(parameters (identifier) @binding.name @binding.local) @binding
(default_parameter name: (identifier) @binding.name @binding.local) @binding
(lambda_parameters (identifier) @binding.name @binding.local) @binding

; `with X as y`: `y` holds what `X.__enter__()` returns (`@binding.entered`).
(with_item
  value: (as_pattern
    .
    (_) @binding.value
    alias: (as_pattern_target
      (identifier) @binding.name))) @binding @binding.entered

; A decorated function at the top level or in a function holds what its outermost decorator
; returns (`@click.group()` above `def cli` makes `cli` a `Group`: `cli.command()`). In a class
; body it stays a method (`@property` above `def name`).
(module
  (decorated_definition
    .
    (decorator
      .
      (_) @binding.value)
    definition: (function_definition
      name: (identifier) @binding.name)) @binding @binding.decorated)

(function_definition
  body: (block
    (decorated_definition
      .
      (decorator
        .
        (_) @binding.value)
      definition: (function_definition
        name: (identifier) @binding.name)) @binding @binding.decorated))
