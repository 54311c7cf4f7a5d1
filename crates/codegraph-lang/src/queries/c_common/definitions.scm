; Definitions C and C++ share, loaded before each language's own `definitions.scm` (see
; `queries!` in `lib.rs`): structs, unions and enums with bodies, and `typedef struct { ... }
; name;`, whose anonymous struct the typedef names. Forward declarations (`struct s;`) are not
; definitions. Functions stay in each language's file: C++ adds methods, qualified names and
; operators.

(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @definition.enum

(type_definition
  type: (struct_specifier
    !name
    body: (field_declaration_list))
  declarator: (type_identifier) @name) @definition.struct
