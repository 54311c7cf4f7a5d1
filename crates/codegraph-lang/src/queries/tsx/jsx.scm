; TSX is TypeScript plus JSX: the TypeScript queries apply as they are (see `lang.rs`), and these
; patterns add JSX elements of components as calls (`<Foo />` is a call of Foo; `<div>` is not).
; JSX: `<Foo />`, `<Foo>...</Foo>`, `<ui.Button />`; lowercase names are HTML elements.
(jsx_opening_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call

(jsx_self_closing_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call

(jsx_opening_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

(jsx_self_closing_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call
