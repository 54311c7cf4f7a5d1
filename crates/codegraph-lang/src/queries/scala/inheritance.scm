; Scala bases: in `extends A(args) with B with C` (or Scala 3 `extends A, B`) the first type is
; `@extends`, the following ones (traits) are `@implements`.

(extends_clause
  .
  type: [(type_identifier) (generic_type) (stable_type_identifier)] @extends)

(extends_clause
  (_)
  [(type_identifier) (generic_type) (stable_type_identifier)] @implements)
