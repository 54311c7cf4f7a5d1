; Ruby bases: `class A < B` extends; `include M` / `prepend M` in a class body implements M.

(class
  superclass: (superclass
    [(constant) (scope_resolution)] @extends))

(class
  body: (body_statement
    (call
      !receiver
      method: (identifier) @_include
      arguments: (argument_list
        [(constant) (scope_resolution)] @implements))
    (#any-of? @_include "include" "prepend")))
