; Scala definitions: classes and case classes, objects (classes), traits, enums, package objects
; (modules), functions and abstract function declarations (methods inside a type). A Scala 3
; `extension (x: T) def m` block is an impl scope of `T`.

(class_definition
  name: (identifier) @name) @definition.class

(object_definition
  name: (identifier) @name) @definition.class

(trait_definition
  name: (identifier) @name) @definition.trait

(enum_definition
  name: (identifier) @name) @definition.enum

(package_object
  name: (identifier) @name) @definition.module

(function_definition
  name: (identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.function

(extension_definition
  parameters: (parameters
    .
    (parameter
      type: (_) @name))) @scope.impl

; Scala 3 enum cases with parameters or their own bases (`case Red extends Color(0xff0000)`).
(full_enum_case
  name: (identifier) @name) @definition.class

(simple_enum_case
  name: (identifier) @name
  extend: (extends_clause)) @definition.class
