; Swift bases: `class A: B, P` (superclass and protocols alike are `@extends`; resolution tells
; them apart by the target's kind), protocol refinement, and conformances added by
; `extension T: P` (child `T`).

(class_declaration
  declaration_kind: ["class" "actor" "struct" "enum"]
  (inheritance_specifier
    inherits_from: (user_type) @extends))

(protocol_declaration
  (inheritance_specifier
    inherits_from: (user_type) @extends))

(class_declaration
  declaration_kind: "extension"
  name: (_) @child
  (inheritance_specifier
    inherits_from: (user_type) @extends))
