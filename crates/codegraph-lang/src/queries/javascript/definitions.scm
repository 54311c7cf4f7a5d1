; JavaScript definitions beyond those it shares with TypeScript (`ecma/definitions.scm`, loaded
; first): classes and class expressions (a named one by its own name), class fields holding a
; class or a function, and functions assigned to a property of an object (`app.render =
; function`, `this.render = function`), which TypeScript does not define.

(class_declaration
  name: (identifier) @name) @definition.class

(class
  name: (identifier) @name) @definition.class

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: (class !name)) @definition.class

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.function

; `app.render = function render() {}`: a function owned by the object `app` (id `app.render`),
; which `this.render()` inside another `app.f = function` and `app.render()` in the file reach.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @owner
      property: (property_identifier) @name)
    right: (function_expression))
  (#not-eq? @owner "exports")
  (#not-eq? @owner "module")) @definition.function

; `module.exports = function query() {}`: the module's function, by its own name.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module
      property: (property_identifier) @_exports)
    right: (function_expression name: (identifier) @name))
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @definition.function

; `this.render = function () {}` (in a constructor), `a.b.f = function`: a function
; assigned to a property of any other object is a function of that name (the patterns of
; `ecma/definitions.scm`, which match the same statement first, keep theirs).
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (_) @_object
      property: (property_identifier) @name)
    right: (function_expression))
  (#not-match? @_object "^[A-Za-z_$][A-Za-z0-9_$]*$")) @definition.function

; `this.skip = function asyncSkip() {}` in a constructor or method: `this` is no identifier, so
; the pattern above (whose predicate rejects the text `this`) needs its own.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (this)
      property: (property_identifier) @name)
    right: (function_expression))) @definition.function
