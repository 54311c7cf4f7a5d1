; C++ definitions beyond those it shares with C (`c_common/definitions.scm`: structs, unions,
; enums, `typedef struct`; loaded first): namespaces (modules), classes, and functions with
; bodies (a function directly inside a class is a method). Declarations without bodies (`void
; f();`, pure virtual methods) are not definitions. An out-of-line member `R T::m() {}` names its
; type with `@owner` (the innermost qualifier: `a::T::m` → `T`).

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module

(class_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.class

; Functions and in-class methods: `f()`, `*f()`, `&f()`; constructors, destructors, operators.
(function_definition
  declarator: [
    (function_declarator
      declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator
      declarator: (function_declarator
        declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (reference_declarator
      (function_declarator
        declarator: [(identifier) (field_identifier) (operator_name)] @name))
  ]) @definition.function

; Out-of-line members: `T::m()`, `ns::T::m()`, `a::b::T::m()`, also returning `*` or `&`.
(function_definition
  declarator: [
    (function_declarator
      declarator: (qualified_identifier
        scope: (_) @owner
        name: [(identifier) (destructor_name) (operator_name)] @name))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (qualified_identifier
          scope: (_) @owner
          name: [(identifier) (operator_name)] @name)))
    (reference_declarator
      (function_declarator
        declarator: (qualified_identifier
          scope: (_) @owner
          name: [(identifier) (operator_name)] @name)))
  ]) @definition.function

(function_definition
  declarator: [
    (function_declarator
      declarator: (qualified_identifier
        name: (qualified_identifier
          scope: (_) @owner
          name: [(identifier) (destructor_name) (operator_name)] @name)))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (qualified_identifier
          name: (qualified_identifier
            scope: (_) @owner
            name: [(identifier) (operator_name)] @name))))
    (reference_declarator
      (function_declarator
        declarator: (qualified_identifier
          name: (qualified_identifier
            scope: (_) @owner
            name: [(identifier) (operator_name)] @name))))
  ]) @definition.function

(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      name: (qualified_identifier
        name: (qualified_identifier
          scope: (_) @owner
          name: [(identifier) (destructor_name) (operator_name)] @name))))) @definition.function
