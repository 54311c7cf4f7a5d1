; C++ references beyond those it shares with C (`c_common/references.scm`: plain calls `f()` and
; every type name; loaded first): calls `obj.m()`, `ptr->m()`, `A::m()`, `ns::A::m()` (the
; receiver is the innermost qualifier), template calls `f<T>()`, `new T()` (a call named `T`),
; and bindings of declarations, parameters and fields.

(call_expression
  function: (template_function
    name: (identifier) @name)) @reference.call

(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: [
      (field_identifier) @name
      (template_method name: (field_identifier) @name)
      (dependent_name (template_method name: (field_identifier) @name))
    ])) @reference.call

(call_expression
  function: (qualified_identifier
    !scope
    name: [
      (identifier) @name
      (template_function name: (identifier) @name)
    ])) @reference.call

(call_expression
  function: (qualified_identifier
    scope: (_) @receiver
    name: [
      (identifier) @name
      (template_function name: (identifier) @name)
    ])) @reference.call

(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      scope: (_) @receiver
      name: [
        (identifier) @name
        (template_function name: (identifier) @name)
      ]))) @reference.call

(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      name: (qualified_identifier
        scope: (_) @receiver
        name: [
          (identifier) @name
          (template_function name: (identifier) @name)
        ])))) @reference.call

(new_expression
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier
      scope: (_) @receiver
      name: [
        (type_identifier) @name
        (template_type name: (type_identifier) @name)
      ])
  ]) @reference.call

; Bindings. Declarations: `T x;`, `T x(args);`, `T* x = ...;`, `T& x = ...;`, `ns::T x;`.
(declaration
  type: [(type_identifier) (qualified_identifier) (template_type)] @binding.type
  declarator: [
    (identifier) @binding.name
    (pointer_declarator declarator: (identifier) @binding.name)
    (reference_declarator (identifier) @binding.name)
    (init_declarator
      declarator: [
        (identifier) @binding.name
        (pointer_declarator declarator: (identifier) @binding.name)
        (reference_declarator (identifier) @binding.name)
      ])
  ]) @binding

; `auto x = new T(...)`, `auto x = T(...)`, `auto x = ns::T(...)`, and the first template
; argument of `auto x = std::make_unique<T>(...)` (also make_shared, static_cast, ...).
(declaration
  type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: [
      (identifier) @binding.name
      (pointer_declarator declarator: (identifier) @binding.name)
      (reference_declarator (identifier) @binding.name)
    ]
    value: [
      (new_expression
        type: [(type_identifier) (qualified_identifier) (template_type)] @binding.type)
      (call_expression
        function: [(identifier) (qualified_identifier name: (identifier))] @binding.type)
      (call_expression
        function: [
          (template_function
            arguments: (template_argument_list
              . (type_descriptor type: (_) @binding.type)))
          (qualified_identifier
            name: (template_function
              arguments: (template_argument_list
                . (type_descriptor type: (_) @binding.type))))
        ])
    ])) @binding

; Parameters of definitions and lambdas only: a declaration's parameters bind nothing.
(function_definition
  declarator: (function_declarator
    parameters: (parameter_list
      [
        (parameter_declaration
          type: [(type_identifier) (qualified_identifier) (template_type)] @binding.type
          declarator: [
            (identifier) @binding.name
            (pointer_declarator declarator: (identifier) @binding.name)
            (reference_declarator (identifier) @binding.name)
          ])
        (optional_parameter_declaration
          type: [(type_identifier) (qualified_identifier) (template_type)] @binding.type
          declarator: [
            (identifier) @binding.name
            (pointer_declarator declarator: (identifier) @binding.name)
            (reference_declarator (identifier) @binding.name)
          ])
      ] @binding)))

(function_definition
  declarator: (_
    (function_declarator
      parameters: (parameter_list
        [
          (parameter_declaration
            type: [(type_identifier) (qualified_identifier) (template_type)] @binding.type
            declarator: [
              (identifier) @binding.name
              (pointer_declarator declarator: (identifier) @binding.name)
              (reference_declarator (identifier) @binding.name)
            ])
          (optional_parameter_declaration
            type: [(type_identifier) (qualified_identifier) (template_type)] @binding.type
            declarator: [
              (identifier) @binding.name
              (pointer_declarator declarator: (identifier) @binding.name)
              (reference_declarator (identifier) @binding.name)
            ])
        ] @binding))))

(lambda_expression
  declarator: (abstract_function_declarator
    parameters: (parameter_list
      [
        (parameter_declaration
          type: [(type_identifier) (qualified_identifier) (template_type)] @binding.type
          declarator: [
            (identifier) @binding.name
            (pointer_declarator declarator: (identifier) @binding.name)
            (reference_declarator (identifier) @binding.name)
          ])
        (optional_parameter_declaration
          type: [(type_identifier) (qualified_identifier) (template_type)] @binding.type
          declarator: [
            (identifier) @binding.name
            (pointer_declarator declarator: (identifier) @binding.name)
            (reference_declarator (identifier) @binding.name)
          ])
      ] @binding)))

; Fields: `T name_;`, `T* name_;`.
(field_declaration
  type: [(type_identifier) (qualified_identifier) (template_type)] @binding.type
  declarator: [
    (field_identifier) @binding.name
    (pointer_declarator declarator: (field_identifier) @binding.name)
    (reference_declarator (field_identifier) @binding.name)
  ]) @binding
