; C definitions: functions with bodies, and structs, unions and enums with bodies.
; Prototypes (`int f(void);`) and forward declarations (`struct s;`) are not definitions.

(function_definition
  declarator: (function_declarator
    declarator: (identifier) @name)) @definition.function

; `char *f(void)`, `char **f(void)`
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (identifier) @name))) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator
        declarator: (identifier) @name)))) @definition.function

(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @definition.enum

; `typedef struct { ... } name;`: the anonymous type is named by the typedef.
(type_definition
  type: (struct_specifier
    !name
    body: (field_declaration_list))
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (union_specifier
    !name
    body: (field_declaration_list))
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (enum_specifier
    !name
    body: (enumerator_list))
  declarator: (type_identifier) @name) @definition.enum
