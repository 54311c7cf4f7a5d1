; Lua definitions. `function f()` and `local function f()` are functions; `function M.f()` is `f`
; owned by `M` (id `M.f`); `function C:m()` is a method owned by `C`. `f = function() end`,
; `local f = function() end` and `M.f = function() end` define functions too. A table is a class
; when the next statement is `X.__index = X` (the usual metatable idiom).

(function_declaration
  name: (identifier) @name) @definition.function

(function_declaration
  name: (dot_index_expression
    table: (_) @owner
    field: (identifier) @name)) @definition.function

(function_declaration
  name: (method_index_expression
    table: (_) @owner
    method: (identifier) @name)) @definition.method

(variable_declaration
  (assignment_statement
    (variable_list
      .
      name: (identifier) @name .)
    (expression_list
      .
      value: (function_definition) .))) @definition.function

(chunk
  (assignment_statement
    (variable_list
      .
      name: (identifier) @name .)
    (expression_list
      .
      value: (function_definition) .)) @definition.function)

(block
  (assignment_statement
    (variable_list
      .
      name: (identifier) @name .)
    (expression_list
      .
      value: (function_definition) .)) @definition.function)

(assignment_statement
  (variable_list
    .
    name: (dot_index_expression
      table: (_) @owner
      field: (identifier) @name) .)
  (expression_list
    .
    value: (function_definition) .)) @definition.function

; `local X = {}` / `local X = setmetatable({}, {__index = Base})` followed by `X.__index = X`.
((variable_declaration
  (assignment_statement
    (variable_list
      .
      name: (identifier) @name .)
    (expression_list
      .
      value: [(table_constructor) (function_call)] .))) @definition.class
  .
  (assignment_statement
    (variable_list
      .
      name: (dot_index_expression
        table: (identifier) @_table
        field: (identifier) @_field) .)
    (expression_list
      .
      value: (identifier) @_value .))
  (#eq? @_field "__index")
  (#eq? @_table @name)
  (#eq? @_value @name))

((assignment_statement
  (variable_list
    .
    name: (identifier) @name .)
  (expression_list
    .
    value: [(table_constructor) (function_call)] .)) @definition.class
  .
  (assignment_statement
    (variable_list
      .
      name: (dot_index_expression
        table: (identifier) @_table
        field: (identifier) @_field) .)
    (expression_list
      .
      value: (identifier) @_value .))
  (#eq? @_field "__index")
  (#eq? @_table @name)
  (#eq? @_value @name))

; `local M = { run = function(self) end }`: `run` owned by `M`.
(assignment_statement
  (variable_list
    .
    name: (identifier) @owner .)
  (expression_list
    .
    value: (table_constructor
      (field
        name: (identifier) @name
        value: (function_definition)) @definition.function) .))
