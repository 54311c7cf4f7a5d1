; Go references: calls (`f()`, `x.f()`, `pkg.F()`), generic calls (`F[int, string](x)` parses
; as a conversion), and type uses; builtin types are left out.

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (selector_expression
    operand: (_) @receiver
    field: (field_identifier) @name)) @reference.call

(type_conversion_expression
  type: (generic_type
    type: [
      (type_identifier) @name
      (qualified_type
        package: (package_identifier) @receiver
        name: (type_identifier) @name)
    ])) @reference.call

; Type uses (the qualified pattern first: of two references at one name the first is kept).
(qualified_type
  package: (package_identifier) @receiver
  name: (type_identifier) @name) @reference.type

((type_identifier) @name @reference.type
  (#not-any-of? @name
    "bool" "byte" "complex64" "complex128" "error" "float32" "float64" "int" "int8" "int16"
    "int32" "int64" "rune" "string" "uint" "uint8" "uint16" "uint32" "uint64" "uintptr" "any"
    "comparable"))

; Bindings: typed parameters (the receiver too), fields and `var`s; `x := &T{}`, `x := T{}`,
; `x := new(T)`, `var x = T{}`.
(parameter_declaration
  name: (identifier) @binding.name
  type: [(type_identifier) (qualified_type) (pointer_type) (generic_type) (slice_type) (array_type) (map_type)] @binding.type) @binding

(field_declaration
  name: (field_identifier) @binding.name
  type: [(type_identifier) (qualified_type) (pointer_type) (generic_type) (slice_type) (array_type) (map_type)] @binding.type) @binding

; An embedded field is named after its type: `a.User.M()` goes through the field `User`.
(field_declaration
  !name
  type: [
    (type_identifier) @binding.name
    (qualified_type name: (type_identifier) @binding.name)
    (pointer_type [(type_identifier) @binding.name (qualified_type name: (type_identifier) @binding.name)])
  ] @binding.type) @binding

(var_spec
  name: (identifier) @binding.name
  type: [(type_identifier) (qualified_type) (pointer_type) (generic_type) (slice_type) (array_type) (map_type)] @binding.type) @binding

(var_spec
  .
  name: (identifier) @binding.name
  value: (expression_list
    .
    [
      (composite_literal type: (_) @binding.type)
      (unary_expression operand: (composite_literal type: (_) @binding.type))
    ])) @binding

(short_var_declaration
  left: (expression_list
    .
    (identifier) @binding.name)
  right: (expression_list
    .
    [
      (composite_literal type: (_) @binding.type)
      (unary_expression operand: (composite_literal type: (_) @binding.type))
    ])) @binding

((short_var_declaration
  left: (expression_list
    .
    (identifier) @binding.name)
  right: (expression_list
    .
    (call_expression
      function: (identifier) @_new
      arguments: (argument_list
        .
        [(type_identifier) (identifier) (qualified_type) (selector_expression)] @binding.type)))) @binding
  (#eq? @_new "new"))

; `x := <expression>`, `x, err := <expression>`, `var x = <expression>`: the expression, typed by
; resolution (`NewFoo()`, `pkg.Open()`, `y.(*T)`, `s.conn.Reader()`). The patterns above come
; first: of two bindings of one name in one scope, the first is kept.
(short_var_declaration
  left: (expression_list
    .
    (identifier) @binding.name)
  right: (expression_list
    .
    (_) @binding.value)) @binding

(var_spec
  .
  name: (identifier) @binding.name
  !type
  value: (expression_list
    .
    (_) @binding.value)) @binding

; `for _, item := range items`: `item` is an element of `items` (`items[..]`): a slice's or an
; array's element, a map's value.
(range_clause
  left: (expression_list
    (_)
    .
    (identifier) @binding.name .)
  right: (_) @binding.value) @binding

; Type parameters and their constraints: `[S Store]`.
(type_parameter_declaration
  name: (identifier) @binding.name
  type: (type_constraint
    [(type_identifier) (qualified_type) (generic_type)] @binding.bound)) @binding

; Parameters shadow outer definitions of their name (`visit func(int)`, then `visit(1)`); a
; parameter with a declared type has that binding too, which wins.
(parameter_declaration
  name: (identifier) @binding.name @binding.local) @binding

; `switch v := x.(type) { case *T: ... }`: in each case `v` has the case's type (one type), or
; the type of `x` (several types, `nil`, `default`); the extraction walks the cases.
(type_switch_statement
  alias: (expression_list . (identifier) @binding.name)
  value: (_) @binding.switch) @binding
