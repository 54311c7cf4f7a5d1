; Go has no inheritance; the nearest things are embedding and the compile-time assertion
; `var _ Iface = (*T)(nil)`. Embedded fields and embedded interfaces are `@extends` (their
; methods are promoted); the assertion names its child explicitly.

(field_declaration
  !name
  type: [(type_identifier) (qualified_type) (pointer_type) (generic_type)] @extends)

(interface_type
  (type_elem
    .
    [(type_identifier) (qualified_type) (generic_type)] @extends
    .))

; var _ Iface = (*T)(nil)   var _ Iface = &T{}   var _ Iface = T{}
((var_spec
  name: (identifier) @_blank
  type: (_) @implements
  value: (expression_list
    .
    [
      (call_expression
        function: (parenthesized_expression
          (unary_expression
            operand: [(identifier) (selector_expression)] @child)))
      (unary_expression
        operand: (composite_literal
          type: (_) @child))
      (composite_literal
        type: (_) @child)
    ]))
  (#eq? @_blank "_"))
