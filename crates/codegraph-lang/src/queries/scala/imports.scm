; Scala imports. The grammar keeps an import path as flat sibling identifiers, so `@import.path`
; is captured once per segment before the imported name (the extractor extends the
; path back over preceding sibling identifiers); `import a.b.C` (name `C`), `import a.b._` / `a.b.*` (wildcard),
; `import a.b.{C, D => E}`, `import a.b.C as D`. `package a.b` is the package.

(package_clause
  name: (package_identifier) @package)

(import_declaration
  (identifier)+ @import.path
  .
  (identifier) @import.name .) @import

(import_declaration
  (identifier)+ @import.path
  .
  (namespace_wildcard) @import.wildcard .) @import

(import_declaration
  (identifier)+ @import.path
  .
  (namespace_selectors
    (identifier) @import.name)) @import

(import_declaration
  (identifier)+ @import.path
  .
  (namespace_selectors
    (arrow_renamed_identifier
      name: (_) @import.name
      alias: (identifier) @import.alias))) @import

(import_declaration
  (identifier)+ @import.path
  .
  (namespace_selectors
    (as_renamed_identifier
      name: (_) @import.name
      alias: (identifier) @import.alias))) @import

(import_declaration
  (identifier)+ @import.path
  .
  (namespace_selectors
    (namespace_wildcard) @import.wildcard)) @import

(import_declaration
  (identifier)+ @import.path
  .
  (as_renamed_identifier
    name: (_) @import.name
    alias: (identifier) @import.alias) .) @import
