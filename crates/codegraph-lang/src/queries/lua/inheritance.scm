; Lua bases through metatables: `local Admin = setmetatable({}, { __index = User })` (the child is
; the class defined by that statement), and `setmetatable(Admin, { __index = User })` elsewhere.

(variable_declaration
  (assignment_statement
    (expression_list
      .
      value: (function_call
        name: (identifier) @_setmetatable
        arguments: (arguments
          (table_constructor)
          .
          (table_constructor
            (field
              name: (identifier) @_index
              value: [(identifier) (dot_index_expression)] @extends))))))
  (#eq? @_setmetatable "setmetatable")
  (#eq? @_index "__index"))

(function_call
  name: (identifier) @_setmetatable
  arguments: (arguments
    .
    (identifier) @child
    .
    (table_constructor
      (field
        name: (identifier) @_index
        value: [(identifier) (dot_index_expression)] @extends)))
  (#eq? @_setmetatable "setmetatable")
  (#eq? @_index "__index"))
