; TypeScript bases: `class A extends B<T> implements I, ns.J<T>`, `interface I extends K, L<M>`.
; Generic arguments are stripped by the extractor; qualified names are kept (`ns.J`).

(extends_clause
  value: [(identifier) (member_expression)] @extends)

(implements_clause
  [(type_identifier) (nested_type_identifier)] @implements)

(implements_clause
  (generic_type
    name: [(type_identifier) (nested_type_identifier)] @implements))

(extends_type_clause
  type: [(type_identifier) (nested_type_identifier)] @extends)

(extends_type_clause
  type: (generic_type
    name: [(type_identifier) (nested_type_identifier)] @extends))
