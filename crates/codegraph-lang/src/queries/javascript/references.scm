; JavaScript references beyond the calls it shares with TypeScript (`ecma/references.scm`) and
; the JSX elements it shares with TSX (`_jsx/references.scm`), both loaded first: bindings from
; `new` and from assigned expressions, so that `x.method()` resolves through the class, and
; untyped parameters, which shadow outer definitions.

; Bindings: `const x = new Foo()`, `this.x = new Foo()`, `x = new ns.Foo()`, class fields
; `x = new Foo()`.
(variable_declarator
  name: (identifier) @binding.name
  value: (new_expression
    constructor: [(identifier) (member_expression)] @binding.type)) @binding

(assignment_expression
  left: [(identifier) (member_expression object: (this))] @binding.name
  right: (new_expression
    constructor: [(identifier) (member_expression)] @binding.type)) @binding

(field_definition
  property: (property_identifier) @binding.name
  value: (new_expression
    constructor: [(identifier) (member_expression)] @binding.type)) @binding

; `const x = <expression>`, `this.x = <expression>`, a field's initialiser: the expression,
; typed by resolution (`createStore()`, `await load()`). The patterns above come first: of two
; bindings of one name in one scope, the first is kept.
(variable_declarator
  name: (identifier) @binding.name
  value: (_) @binding.value) @binding

(assignment_expression
  left: (member_expression
    object: (this)
    property: (property_identifier)) @binding.name
  right: (_) @binding.value) @binding

(field_definition
  property: (property_identifier) @binding.name
  value: (_) @binding.value) @binding

; Untyped parameters: they shadow outer definitions of their name (`@binding.local`).
(formal_parameters (identifier) @binding.name @binding.local) @binding
(formal_parameters (assignment_pattern left: (identifier) @binding.name @binding.local)) @binding
(arrow_function parameter: (identifier) @binding.name @binding.local) @binding
