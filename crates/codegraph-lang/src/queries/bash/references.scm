; Bash references: every simple command is a call of its command name (functions, builtins and
; external programs alike); commands named by an expansion (`$cmd args`) are skipped.

(command
  name: (command_name
    (word) @name)) @reference.call
