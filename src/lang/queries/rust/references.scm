; Rust references: calls (`f()`, `x.f()`, `Type::f()`, `module::f()`, with turbofish), calls
; written inside macro arguments (a heuristic: an identifier followed by a parenthesised token
; tree), and type uses.

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    value: (_) @receiver
    field: (field_identifier) @name)) @reference.call

(call_expression
  function: (scoped_identifier
    path: (_) @receiver
    name: (identifier) @name)) @reference.call

(call_expression
  function: (generic_function
    function: (identifier) @name)) @reference.call

(call_expression
  function: (generic_function
    function: (field_expression
      value: (_) @receiver
      field: (field_identifier) @name))) @reference.call

(call_expression
  function: (generic_function
    function: (scoped_identifier
      path: (_) @receiver
      name: (identifier) @name))) @reference.call

; `format!("{}", f(x))`, `assert!(self.check(x))`: macro arguments are unparsed token trees.
; (The `self.` pattern comes first: of two references at the same name the first match is kept.)
(token_tree
  (self) @receiver
  .
  (identifier) @name
  .
  (token_tree)) @reference.call

(token_tree
  (identifier) @name
  .
  (token_tree)) @reference.call

; Type uses: annotations, generic arguments, bounds, struct literals, `impl` headers.
(scoped_type_identifier
  path: (_) @receiver
  name: (type_identifier) @name) @reference.type

(type_identifier) @name @reference.type

; Bindings: typed parameters, fields and `let`s, `let x = Type::new()`, `let x = Type { .. }`.
(parameter
  pattern: (identifier) @binding.name
  type: [
    (type_identifier)
    (scoped_type_identifier)
    (generic_type)
    (reference_type type: [(type_identifier) (scoped_type_identifier) (generic_type)])
  ] @binding.type) @binding

(field_declaration
  name: (field_identifier) @binding.name
  type: [
    (type_identifier)
    (scoped_type_identifier)
    (generic_type)
    (reference_type type: [(type_identifier) (scoped_type_identifier) (generic_type)])
  ] @binding.type) @binding

(let_declaration
  pattern: (identifier) @binding.name
  type: [
    (type_identifier)
    (scoped_type_identifier)
    (generic_type)
    (reference_type type: [(type_identifier) (scoped_type_identifier) (generic_type)])
  ] @binding.type) @binding

(let_declaration
  pattern: (identifier) @binding.name
  value: (call_expression
    function: (scoped_identifier
      path: [
        (identifier) @binding.type
        (scoped_identifier name: (identifier) @binding.type)
        (generic_type type: (type_identifier) @binding.type)
      ]))
  (#match? @binding.type "^[A-Z]")) @binding

(let_declaration
  pattern: (identifier) @binding.name
  value: (struct_expression
    name: (_) @binding.type)) @binding
