; JSX, shared by JavaScript and TSX (TypeScript's grammar has no JSX): elements whose name is
; capitalised are calls of components (`<Foo />`, `<Foo>...</Foo>`, `<ui.Button />` is a call of
; Foo or of `ui.Button`); lowercase names are HTML elements (`<div>` is no call).

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
