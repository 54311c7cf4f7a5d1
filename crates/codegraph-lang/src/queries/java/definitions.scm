; Java definitions. Records are classes; annotation types (`@interface`) are not entities.
; Methods and constructors are functions that become methods inside their type; methods of
; anonymous classes belong to the enclosing method.

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(method_declaration
  name: (identifier) @name) @definition.function

(constructor_declaration
  name: (identifier) @name) @definition.function

(compact_constructor_declaration
  name: (identifier) @name) @definition.function
