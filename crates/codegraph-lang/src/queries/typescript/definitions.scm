; TypeScript definitions: functions (declarations, generators, `declare function`, and arrow
; functions or function expressions bound to a const/let/var), classes (abstract ones too),
; interfaces, enums, namespaces and modules, methods (a function directly inside a class or
; interface is a method; abstract and interface method signatures included), class fields
; holding a function, CommonJS `exports.f = function`, prototype methods (owner Foo) and
; object-literal functions. Type aliases are not entities. Overload signatures are not
; definitions (the implementation is), so an overloaded function is defined once.
; A `const f = () => {}` definition spans the whole declaration so that the comment above it
; (or above its `export`) is found as its doc.

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(ambient_declaration
  (function_signature
    name: (identifier) @name) @definition.function)

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

; The same, cast: `export const computed: IComputedFactory = function computed() {} as any`,
; `const f = function f() {} satisfies Handler`, `const g = ((x) => x) as G`.
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(as_expression . [(arrow_function) (function_expression) (generator_function)
                            (parenthesized_expression [(arrow_function) (function_expression)])])
            (satisfies_expression . [(arrow_function) (function_expression) (generator_function)
                            (parenthesized_expression [(arrow_function) (function_expression)])])])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(as_expression . [(arrow_function) (function_expression) (generator_function)
                            (parenthesized_expression [(arrow_function) (function_expression)])])
            (satisfies_expression . [(arrow_function) (function_expression) (generator_function)
                            (parenthesized_expression [(arrow_function) (function_expression)])])])) @definition.function

(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

; Class expressions: a named one by its own name, an anonymous one bound to a variable by the
; variable's name.
(class
  name: (type_identifier) @name) @definition.class

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class !name))) @definition.class

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class !name))) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

; `namespace A.B {}`, `module M {}`; `declare module 'pkg' {}` augments a package and is no module
; of this file.
(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.module

(module
  name: [(identifier) (nested_identifier)] @name) @definition.module

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: (class !name)) @definition.class

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.function

; A method named by a computed key, `[Symbol.iterator]() {}`: named by the key as written, as
; tsserver names it.
(method_definition
  name: (computed_property_name) @name) @definition.function

(abstract_method_signature
  name: [(property_identifier) (private_property_identifier)] @name) @definition.function

(interface_body
  (method_signature
    name: (property_identifier) @name) @definition.function)

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.function

(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function

; The same, cast: zod's `coerce = { boolean: ((arg) => ZodBoolean.create(arg)) as Create }`.
(pair
  key: (property_identifier) @name
  value: [(as_expression . [(arrow_function) (function_expression) (generator_function)
                            (parenthesized_expression [(arrow_function) (function_expression)])])
          (satisfies_expression . [(arrow_function) (function_expression) (generator_function)
                            (parenthesized_expression [(arrow_function) (function_expression)])])]) @definition.function

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

