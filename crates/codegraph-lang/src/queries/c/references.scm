; C references beyond those it shares with C++ (`c_common/references.scm`, loaded first): calls
; through function-pointer fields (`s.f()`, `p->f()`), and bindings of typed declarations,
; parameters and fields.

(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: (field_identifier) @name)) @reference.call

; Bindings: typed declarations and parameters, `T x`, `T *x`, `T x = ...`, `struct s *x = ...`.
(declaration
  type: [
    (type_identifier) @binding.type
    (struct_specifier name: (type_identifier) @binding.type)
    (union_specifier name: (type_identifier) @binding.type)
  ]
  declarator: [
    (identifier) @binding.name
    (pointer_declarator declarator: (identifier) @binding.name)
    (init_declarator
      declarator: [
        (identifier) @binding.name
        (pointer_declarator declarator: (identifier) @binding.name)
      ])
  ]) @binding

; Parameters of definitions only: a prototype's parameters would bind at file level.
(function_definition
  declarator: [
    (function_declarator parameters: (parameter_list (parameter_declaration
      type: [
        (type_identifier) @binding.type
        (struct_specifier name: (type_identifier) @binding.type)
        (union_specifier name: (type_identifier) @binding.type)
      ]
      declarator: [
        (identifier) @binding.name
        (pointer_declarator declarator: (identifier) @binding.name)
      ]) @binding))
    (pointer_declarator declarator: (function_declarator parameters: (parameter_list (parameter_declaration
      type: [
        (type_identifier) @binding.type
        (struct_specifier name: (type_identifier) @binding.type)
        (union_specifier name: (type_identifier) @binding.type)
      ]
      declarator: [
        (identifier) @binding.name
        (pointer_declarator declarator: (identifier) @binding.name)
      ]) @binding)))
  ])

(field_declaration
  type: [
    (type_identifier) @binding.type
    (struct_specifier name: (type_identifier) @binding.type)
    (union_specifier name: (type_identifier) @binding.type)
  ]
  declarator: [
    (field_identifier) @binding.name
    (pointer_declarator declarator: (field_identifier) @binding.name)
  ]) @binding
