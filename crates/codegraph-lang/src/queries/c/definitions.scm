; C definitions beyond those it shares with C++ (`c_common/definitions.scm`, loaded first):
; functions with bodies (prototypes, `int f(void);`, are not definitions), and the anonymous
; unions and enums a typedef names.

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
