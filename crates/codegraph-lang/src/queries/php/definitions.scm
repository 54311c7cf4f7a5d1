; PHP definitions: classes, interfaces, traits, enums, functions and methods (also abstract and
; interface methods). Docblocks sit above a definition and are found without a capture. A
; namespace is a package (see imports.scm), not a definition.

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.trait

(enum_declaration
  name: (name) @name) @definition.enum

(function_definition
  name: (name) @name) @definition.function

(method_declaration
  name: (name) @name) @definition.function
