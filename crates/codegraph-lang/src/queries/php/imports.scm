; PHP imports: `use A\B\C;` → path `A\B`, name `C`; `use A\B\C as D;` adds the alias; `use
; function A\b;` and `use const A\B;` alike; group uses `use A\{B, C as D};` → path `A`.
; `namespace A\B;` is the file's package.

(namespace_use_clause
  (qualified_name
    prefix: (namespace_name) @import.path
    (name) @import.name)
  !alias) @import

(namespace_use_clause
  (qualified_name
    prefix: (namespace_name) @import.path
    (name) @import.name)
  alias: (name) @import.alias) @import

; `use Foo;` (a global name)
(namespace_use_declaration
  (namespace_use_clause
    (name) @import.name
    !alias) @import)

(namespace_use_declaration
  (namespace_use_clause
    (name) @import.name
    alias: (name) @import.alias) @import)

(namespace_use_declaration
  (namespace_name) @import.path
  body: (namespace_use_group
    (namespace_use_clause
      (name) @import.name
      !alias) @import))

(namespace_use_declaration
  (namespace_name) @import.path
  body: (namespace_use_group
    (namespace_use_clause
      (name) @import.name
      alias: (name) @import.alias) @import))

(namespace_definition
  name: (namespace_name) @package)
