; C# definitions: block namespaces (modules; a file-scoped `namespace X;` is only a package),
; classes, records, interfaces, structs, enums, methods (also abstract and interface methods),
; constructors and local functions. XML doc comments sit above a definition and are found
; without a capture.

(namespace_declaration
  name: (_) @name) @definition.module

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(struct_declaration
  name: (identifier) @name) @definition.struct

(enum_declaration
  name: (identifier) @name) @definition.enum

(method_declaration
  name: (identifier) @name) @definition.function

(constructor_declaration
  name: (identifier) @name) @definition.function

(local_function_statement
  name: (identifier) @name) @definition.function
