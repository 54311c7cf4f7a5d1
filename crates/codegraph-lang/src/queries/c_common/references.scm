; References C and C++ share, loaded before each language's own `references.scm`: a call of a
; plain name `f()`, and every type name (`type_identifier`: typedef names and
; `struct`/`union`/`enum` tags; a definition's own name is dropped by the extractor).

(call_expression
  function: (identifier) @name) @reference.call

(type_identifier) @name @reference.type
