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

; `let x = <expression>` without a declared type: the expression, typed by resolution
; (`Type::new()`, `Type { .. }`, `self.make()?`, `f(x).unwrap()`).
(let_declaration
  pattern: (identifier) @binding.name
  !type
  value: (_) @binding.value) @binding

; `if let Some(x) = expression` / `Ok(x)`: the wrapper is unwrapped by resolution.
(let_condition
  pattern: (tuple_struct_pattern
    type: (identifier) @_wrapper
    .
    (identifier) @binding.name
    .)
  value: (_) @binding.value
  (#any-of? @_wrapper "Some" "Ok")) @binding

; Type parameters and their bounds: `<A: Automaton>`, `where A: Automaton`.
(type_parameter
  name: (type_identifier) @binding.name
  bounds: (trait_bounds
    .
    [(type_identifier) (scoped_type_identifier) (generic_type)] @binding.bound)) @binding

(where_predicate
  left: (type_identifier) @binding.name
  bounds: (trait_bounds
    .
    [(type_identifier) (scoped_type_identifier) (generic_type)] @binding.bound)) @binding

; Closure parameters and untyped `let` patterns: they shadow outer definitions of their name.
(closure_parameters (identifier) @binding.name @binding.local) @binding
(closure_parameters (parameter pattern: (identifier) @binding.name @binding.local)) @binding

; An enum variant's tuple fields: `Number(Number)` in `enum Value` declares field
; `Number(0)` of `Value` (the position is computed from `@binding.variant`).
(enum_variant
  name: (identifier) @binding.name
  body: (ordered_field_declaration_list
    type: [
      (type_identifier)
      (scoped_type_identifier)
      (generic_type)
      (reference_type type: [(type_identifier) (scoped_type_identifier) (generic_type)])
    ] @binding.type) @binding.variant) @binding

; A variant pattern's bindings: `Value::Number(n) => n.is_u64()`, `Self::Item(ref x)`: the
; variant's declared field type.
(tuple_struct_pattern
  type: (scoped_identifier) @binding.pattern
  [
    (identifier) @binding.name
    (ref_pattern (identifier) @binding.name)
    (mut_pattern (identifier) @binding.name)
  ]) @binding
