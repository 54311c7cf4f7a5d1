; Java references: method calls (with the object as receiver), `new Foo()` as a call named `Foo`,
; method references (`Foo::bar`), and type uses in declarations, generics, casts and throws.

(method_invocation
  !object
  name: (identifier) @name) @reference.call

(method_invocation
  object: (_) @receiver
  name: (identifier) @name) @reference.call

(object_creation_expression
  type: [
    (type_identifier) @name
    (scoped_type_identifier (_) @receiver . (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (_) @receiver . (type_identifier) @name .)
    ])
  ]) @reference.call

; `Foo::bar`, `this::bar` (`Foo::new` has no named method and is left out).
(method_reference
  .
  (_) @receiver
  .
  (identifier) @name
  .) @reference.call

; Type uses. Only type positions are listed so that the parts of `java.util.List` and type
; parameter declarations are not references.
([
  (field_declaration type: (type_identifier) @name)
  (constant_declaration type: (type_identifier) @name)
  (local_variable_declaration type: (type_identifier) @name)
  (formal_parameter type: (type_identifier) @name)
  (spread_parameter (type_identifier) @name)
  (catch_type (type_identifier) @name)
  (method_declaration type: (type_identifier) @name)
  (enhanced_for_statement type: (type_identifier) @name)
  (cast_expression type: (type_identifier) @name)
  (instanceof_expression right: (type_identifier) @name)
  (array_type element: (type_identifier) @name)
  (generic_type (type_identifier) @name)
  (type_arguments (type_identifier) @name)
  (type_bound (type_identifier) @name)
  (wildcard (type_identifier) @name)
  (throws (type_identifier) @name)
  (superclass (type_identifier) @name)
  (type_list (type_identifier) @name)
] @reference.type
  (#not-eq? @name "var"))

[
  (field_declaration type: (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
  (constant_declaration type: (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
  (local_variable_declaration type: (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
  (formal_parameter type: (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
  (method_declaration type: (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
  (catch_type (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
  (cast_expression type: (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
  (generic_type (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
  (type_arguments (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
  (throws (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
  (superclass (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
  (type_list (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
] @reference.type

; Bindings: typed locals, fields, parameters (record components too) and for-each variables;
; `var x = new Foo()` takes the constructed type.
((local_variable_declaration
  type: [(type_identifier) (scoped_type_identifier) (generic_type)] @binding.type
  declarator: (variable_declarator
    name: (identifier) @binding.name)) @binding
  (#not-eq? @binding.type "var"))

((local_variable_declaration
  type: (type_identifier) @_var
  declarator: (variable_declarator
    name: (identifier) @binding.name
    value: (object_creation_expression
      type: (_) @binding.type))) @binding
  (#eq? @_var "var"))

(field_declaration
  type: [(type_identifier) (scoped_type_identifier) (generic_type)] @binding.type
  declarator: (variable_declarator
    name: (identifier) @binding.name)) @binding

(formal_parameter
  type: [(type_identifier) (scoped_type_identifier) (generic_type)] @binding.type
  name: (identifier) @binding.name) @binding

(enhanced_for_statement
  type: [(type_identifier) (scoped_type_identifier) (generic_type)] @binding.type
  name: (identifier) @binding.name) @binding
