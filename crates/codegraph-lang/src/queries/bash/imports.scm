; Bash imports: `source path` and `. path`; the path is the first argument as written (it often
; starts with `$DIR/` or `$(dirname "$0")/`).

(command
  name: (command_name
    (word) @_source)
  .
  argument: (_) @import.path
  (#any-of? @_source "source" ".")) @import
