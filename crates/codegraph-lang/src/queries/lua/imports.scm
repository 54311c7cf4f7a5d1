; Lua imports: `local x = require("a.b")` / `x = require "a.b"` (path `a.b`, alias `x`), and
; `require("a.b")` as a statement.

(assignment_statement
  (variable_list
    .
    name: (identifier) @import.alias .)
  (expression_list
    .
    value: (function_call
      name: (identifier) @_require
      arguments: (arguments
        .
        (string
          content: (string_content) @import.path) .)) .)
  (#eq? @_require "require")) @import

(chunk
  (function_call
    name: (identifier) @_require
    arguments: (arguments
      .
      (string
        content: (string_content) @import.path) .)) @import
  (#eq? @_require "require"))

(block
  (function_call
    name: (identifier) @_require
    arguments: (arguments
      .
      (string
        content: (string_content) @import.path) .)) @import
  (#eq? @_require "require"))
