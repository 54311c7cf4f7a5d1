; JavaScript definitions. Functions (declarations, generators, and arrow functions or function
; expressions bound to a const/let/var), classes, methods (a function directly inside a class is
; a method), class fields holding a function, CommonJS `exports.f = function`, prototype methods
; `Foo.prototype.m = function` (owner Foo), and object-literal functions `{ f: () => ... }`.
; A `const f = () => {}` definition spans the whole declaration so that the comment above it
; (or above its `export`) is found as its doc.

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(class_declaration
  name: (identifier) @name) @definition.class

; Class expressions: a named one by its own name, an anonymous one bound to a variable by the
; variable's name.
(class
  name: (identifier) @name) @definition.class

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class !name))) @definition.class

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class !name))) @definition.class

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: (class !name)) @definition.class

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.function

; A method named by a computed key, `[Symbol.iterator]() {}`: named by the key as written, as
; tsserver names it.
(method_definition
  name: (computed_property_name) @name) @definition.function

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.function

(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function

; `exports.f = function () {}` and `module.exports.f = () => {}`.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_exports
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression)])
  (#eq? @_exports "exports")) @definition.function

(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @_module
        property: (property_identifier) @_exports)
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression)])
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @definition.function

; `Foo.prototype.bar = function () {}`: a method of Foo.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @owner
        property: (property_identifier) @_prototype)
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression)])
  (#eq? @_prototype "prototype")) @definition.function

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
; assigned to a property of any other object is a function of that name (the patterns above,
; which match the same statement first, keep theirs).
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
