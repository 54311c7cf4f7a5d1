; TypeScript imports beyond JavaScript's (`ecma/imports.scm`, loaded first for TypeScript and
; TSX): `import x = require('./x')`.

(import_statement
  (import_require_clause
    (identifier) @import.alias
    source: (string (string_fragment) @import.path))) @import
