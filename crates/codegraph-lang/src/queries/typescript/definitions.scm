; TypeScript definitions beyond those it shares with JavaScript (`ecma/definitions.scm`, loaded
; first): `declare function`, functions bound to a variable through a cast, classes (abstract
; ones too) and class expressions, interfaces, enums, namespaces and modules, abstract and
; interface method signatures (methods: a function directly inside a class or interface is a
; method), class fields holding a class or a function, and cast object-literal functions.
; Type aliases are not entities. Overload signatures are not definitions (the implementation
; is), so an overloaded function is defined once.

(ambient_declaration
  (function_signature
    name: (identifier) @name) @definition.function)

; A function bound to a variable, cast: `export const computed: IComputedFactory = function
; computed() {} as any`, `const f = function f() {} satisfies Handler`, `const g = ((x) => x) as G`.
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

; A named class expression, by its own name.
(class
  name: (type_identifier) @name) @definition.class

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

(abstract_method_signature
  name: [(property_identifier) (private_property_identifier)] @name) @definition.function

(interface_body
  (method_signature
    name: (property_identifier) @name) @definition.function)

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.function

; An object-literal function, cast: zod's `coerce = { boolean: ((arg) => ZodBoolean.create(arg))
; as Create }`.
(pair
  key: (property_identifier) @name
  value: [(as_expression . [(arrow_function) (function_expression) (generator_function)
                            (parenthesized_expression [(arrow_function) (function_expression)])])
          (satisfies_expression . [(arrow_function) (function_expression) (generator_function)
                            (parenthesized_expression [(arrow_function) (function_expression)])])]) @definition.function
