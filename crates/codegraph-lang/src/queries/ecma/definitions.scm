; Definitions JavaScript and TypeScript (and TSX) share, loaded before each language's own
; `definitions.scm` (see `queries!` in `lib.rs`). Only patterns whose node types both grammars
; have: a class's name is an `identifier` in JavaScript and a `type_identifier` in TypeScript,
; and a class field is a `field_definition` in one and a `public_field_definition` in the other,
; so those stay in each language's file.
; Functions (declarations, generators, and arrow functions or function expressions bound to a
; const/let/var), anonymous classes bound to a variable, methods (a function directly inside a
; class is a method), object-literal functions `{ f: () => ... }`, CommonJS
; `exports.f = function` and prototype methods `Foo.prototype.m = function` (owner Foo).
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

; An anonymous class expression bound to a variable, by the variable's name.
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class !name))) @definition.class

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class !name))) @definition.class

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.function

; A method named by a computed key, `[Symbol.iterator]() {}`: named by the key as written, as
; tsserver names it.
(method_definition
  name: (computed_property_name) @name) @definition.function

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
