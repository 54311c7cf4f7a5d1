; PHP bases: `extends` (classes, and interfaces extending interfaces), `implements`, and trait
; `use` inside a class body (methods are inherited, hence `@extends`).

(base_clause
  [(name) (qualified_name)] @extends)

(class_interface_clause
  [(name) (qualified_name)] @implements)

(use_declaration
  [(name) (qualified_name)] @extends)
