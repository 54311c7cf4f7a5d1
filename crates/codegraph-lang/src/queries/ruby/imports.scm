; Ruby imports: `require "a/b"`, `require_relative "../a/b"`, `load "x.rb"` (paths as written).

(call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list
    .
    (string
      .
      (string_content) @import.path .))
  (#any-of? @_require "require" "require_relative" "load")) @import
