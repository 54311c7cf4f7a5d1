; Lua references: calls `f()`, `m.f()` (receiver `m`), `obj:m()` (receiver `obj`), `a.b.c()`
; (receiver `a.b`).

(function_call
  name: (identifier) @name) @reference.call

(function_call
  name: (dot_index_expression
    table: (_) @receiver
    field: (identifier) @name)) @reference.call

(function_call
  name: (method_index_expression
    table: (_) @receiver
    method: (identifier) @name)) @reference.call

; Bindings: `local x = Foo.new(...)`, `local x = Foo:new(...)`, `local self = setmetatable({}, Foo)`.
(assignment_statement
  (variable_list
    .
    name: (identifier) @binding.name .)
  (expression_list
    .
    value: (function_call
      name: [
        (dot_index_expression table: (_) @binding.type field: (identifier) @_new)
        (method_index_expression table: (_) @binding.type method: (identifier) @_new)
      ]) .)
  (#eq? @_new "new")) @binding

(assignment_statement
  (variable_list
    .
    name: (identifier) @binding.name .)
  (expression_list
    .
    value: (function_call
      name: (identifier) @_setmetatable
      arguments: (arguments
        (_)
        .
        (identifier) @binding.type .)) .)
  (#eq? @_setmetatable "setmetatable")) @binding
