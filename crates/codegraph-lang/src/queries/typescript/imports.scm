; TypeScript imports: the JavaScript patterns (`javascript/imports.scm`, loaded first for both
; TypeScript and TSX, see `lang.rs`), plus `import x = require('./x')`.

(import_statement
  (import_require_clause
    (identifier) @import.alias
    source: (string (string_fragment) @import.path))) @import

; `require('./polyfill');` for its side effects, and dynamic `import('./Page')` (lazy loading).
(expression_statement
  (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string (string_fragment) @import.path) .))
  (#eq? @_require "require")) @import

(call_expression
  function: (import)
  arguments: (arguments . (string (string_fragment) @import.path))) @import
