; JavaScript bases: `class A extends B` and `class A extends ns.B`. Mixin calls
; (`extends mixin(B)`) are not bases we can name.

(class_heritage
  [(identifier) (member_expression)] @extends)
