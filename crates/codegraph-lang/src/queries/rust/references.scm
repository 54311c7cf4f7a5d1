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
; An identifier followed by a group is a candidate; the tokens before it (`a.b.`, `A::`, `fn`)
; say what it calls, or that it is no call (`index/rust.rs`).
(token_tree
  (identifier) @name
  .
  (token_tree)) @reference.call

; Type uses: annotations, generic arguments, bounds, struct literals, `impl` headers.
(scoped_type_identifier
  path: (_) @receiver
  name: (type_identifier) @name) @reference.type

(type_identifier) @name @reference.type

; Bindings: typed parameters, fields and `let`s, `let x = Type::new()`, `let x = Type { .. }`;
; slices, arrays, `impl Trait` and `dyn Trait` included (`&[Foo]`, `impl Iterator<Item = Foo>`).
(parameter
  pattern: (identifier) @binding.name
  type: [
    (type_identifier)
    (scoped_type_identifier)
    (generic_type)
    (array_type)
    (abstract_type)
    (dynamic_type)
    (primitive_type)
    (reference_type
      type: [
        (type_identifier)
        (scoped_type_identifier)
        (generic_type)
        (array_type)
        (dynamic_type)
        (abstract_type)
        (primitive_type)
      ])
  ] @binding.type) @binding

(field_declaration
  name: (field_identifier) @binding.name
  type: [
    (type_identifier)
    (scoped_type_identifier)
    (generic_type)
    (array_type)
    (abstract_type)
    (dynamic_type)
    (primitive_type)
    (reference_type
      type: [
        (type_identifier)
        (scoped_type_identifier)
        (generic_type)
        (array_type)
        (dynamic_type)
        (abstract_type)
        (primitive_type)
      ])
  ] @binding.type) @binding

(let_declaration
  pattern: (identifier) @binding.name
  ; The kinds of the parameters' and fields' types above, checked by the extraction
  ; (`index::rust::binding_type_kind`): an alternation here costs a sixth of the query's time.
  type: (_) @binding.declared) @binding

; `let x = <expression>` without a declared type: the expression, typed by resolution
; (`Type::new()`, `Type { .. }`, `self.make()?`, `f(x).unwrap()`).
(let_declaration
  pattern: (identifier) @binding.name
  !type
  value: (_) @binding.value) @binding

; `let (tx, rx) = oneshot::channel();`: each name is its element of the tuple the call returns
; (`graph::resolve::infer`: the function's declared return type, `(Sender<T>, Receiver<T>)`).
(let_declaration
  pattern: (tuple_pattern
    [
      (identifier) @binding.name
      (mut_pattern (identifier) @binding.name)
    ])
  !type
  value: (call_expression) @binding.value) @binding

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

; A trait's associated type and its bound: `type Bound: Bound;` makes `Self::Bound` (what
; `fn upper(&self) -> Self::Bound` returns) a `Bound`.
(associated_type
  name: (type_identifier) @binding.name
  bounds: (trait_bounds
    .
    [(type_identifier) (scoped_type_identifier) (generic_type)] @binding.bound)) @binding

(where_predicate
  left: (type_identifier) @binding.name
  bounds: (trait_bounds
    .
    [(type_identifier) (scoped_type_identifier) (generic_type)] @binding.bound)) @binding

; The same after `?Sized` or a lifetime: `R: ?Sized + Read<'de>`, `T: 'a + Trait`.
(type_parameter
  name: (type_identifier) @binding.name
  bounds: (trait_bounds
    .
    [(removed_trait_bound) (lifetime)]
    .
    [(type_identifier) (scoped_type_identifier) (generic_type)] @binding.bound)) @binding

(where_predicate
  left: (type_identifier) @binding.name
  bounds: (trait_bounds
    .
    [(removed_trait_bound) (lifetime)]
    .
    [(type_identifier) (scoped_type_identifier) (generic_type)] @binding.bound)) @binding

; Closure parameters and untyped `let` patterns: they shadow outer definitions of their name.
(closure_parameters (identifier) @binding.name @binding.local) @binding
(closure_parameters (parameter pattern: (identifier) @binding.name @binding.local)) @binding
(closure_parameters (reference_pattern (identifier) @binding.name @binding.local)) @binding

; A closure passed to a method (`items.iter().filter(|item| item.is_hidden())`,
; `found.map(|value| ...)`): an element of the iterator or collection, or what the `Option`
; holds, by the method's rules (`graph/resolve/rust.rs`).
(arguments
  (closure_expression
    parameters: (closure_parameters
      [
        (identifier) @binding.name
        (reference_pattern (identifier) @binding.name)
        (mut_pattern (identifier) @binding.name)
      ])) @binding.callback) @binding

(closure_parameters
  (parameter
    pattern: (identifier) @binding.name
    type: [
      (type_identifier)
      (scoped_type_identifier)
      (generic_type)
      (array_type)
      (reference_type type: [(type_identifier) (scoped_type_identifier) (generic_type) (array_type)])
    ] @binding.type)) @binding

; `for item in items`: an element of `items` (`items[..]`).
(for_expression
  pattern: [
    (identifier) @binding.name
    (reference_pattern (identifier) @binding.name)
    (mut_pattern (identifier) @binding.name)
  ]
  value: (_) @binding.value) @binding

; An enum variant's tuple fields: `Number(Number)` in `enum Value` declares field
; `Number(0)` of `Value` (the position is computed from `@binding.variant`).
(enum_variant
  name: (identifier) @binding.name
  body: (ordered_field_declaration_list
    type: [
      (type_identifier)
      (scoped_type_identifier)
      (generic_type)
      (primitive_type)
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

; A tuple struct's pattern: `let Wrapper(inner) = w`, `Self(x) =>`; `Some(x)`, `Ok(x)` and
; `Err(e)` are not structs of the workspace.
(tuple_struct_pattern
  type: (identifier) @binding.pattern
  [
    (identifier) @binding.name
    (ref_pattern (identifier) @binding.name)
    (mut_pattern (identifier) @binding.name)
  ]
  (#not-any-of? @binding.pattern "Some" "Ok" "Err" "None")) @binding

; A tuple struct's fields: `struct Wrapper(Inner)` declares `Wrapper(0)` (as a variant's), so
; `self.0` is an `Inner`.
(struct_item
  name: (type_identifier) @binding.name
  body: (ordered_field_declaration_list
    type: [
      (type_identifier)
      (scoped_type_identifier)
      (generic_type)
      (primitive_type)
      (reference_type type: [(type_identifier) (scoped_type_identifier) (generic_type)])
    ] @binding.type) @binding.variant) @binding

; A struct pattern's bindings, in `let`, `match` and parameters: `let Self { pool, .. } = self`,
; `Value::Object { map: m, .. } =>`: the field the struct (or the enum, for a variant) declares.
(struct_pattern
  type: (_) @binding.pattern
  (field_pattern
    name: (shorthand_field_identifier) @binding.name)) @binding

(struct_pattern
  type: (_) @binding.pattern
  (field_pattern
    pattern: [
      (identifier) @binding.name
      (ref_pattern (identifier) @binding.name)
      (mut_pattern (identifier) @binding.name)
    ])) @binding

; `match x { Some(v) => v.f(), .. }`: `v` is what `x` holds (`Option` and `Result` are seen
; through).
(match_expression
  value: (_) @binding.value
  body: (match_block
    (match_arm
      pattern: (match_pattern
        (tuple_struct_pattern
          type: (identifier) @_wrapper
          .
          [
            (identifier) @binding.name
            (ref_pattern (identifier) @binding.name)
            (mut_pattern (identifier) @binding.name)
          ]
          .))))
  (#any-of? @_wrapper "Some" "Ok")) @binding

; `if let Some(v) = x`, `while let Some(mut r) = stack.pop()`, `let Some(v) = x else { .. }`:
; the same.
(let_condition
  pattern: (tuple_struct_pattern
    type: (identifier) @_wrapper
    .
    [
      (identifier) @binding.name
      (ref_pattern (identifier) @binding.name)
      (mut_pattern (identifier) @binding.name)
    ]
    .)
  value: (_) @binding.value
  (#any-of? @_wrapper "Some" "Ok")) @binding

(let_declaration
  pattern: (tuple_struct_pattern
    type: (identifier) @_wrapper
    .
    [
      (identifier) @binding.name
      (ref_pattern (identifier) @binding.name)
      (mut_pattern (identifier) @binding.name)
    ]
    .)
  value: (_) @binding.value
  (#any-of? @_wrapper "Some" "Ok")) @binding
