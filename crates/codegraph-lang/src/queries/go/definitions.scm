; Go definitions. Methods name their type through the receiver (`@owner`); interface method
; specs are methods of the interface. A type declared alone (`type X struct`) spans its whole
; declaration so that the comment above it is its doc; in a group (`type ( ... )`) each spec is
; its own definition (the predicate tells the two forms apart: node types cannot).

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: (_) @owner))
  name: (field_identifier) @name) @definition.method

(method_elem
  name: (field_identifier) @name) @definition.method

; type X struct { ... }
((type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (struct_type))) @definition.struct
  (#not-match? @definition.struct "^type\\s*[(]"))

((type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (interface_type))) @definition.interface
  (#not-match? @definition.interface "^type\\s*[(]"))

; Other named types (`type Celsius float64`, `type HandlerFunc func(...)`) can have methods.
((type_declaration
  (type_spec
    name: (type_identifier) @name
    type: [(type_identifier) (qualified_type) (generic_type) (pointer_type) (function_type)
           (map_type) (slice_type) (array_type) (channel_type)])) @definition.class
  (#not-match? @definition.class "^type\\s*[(]"))

; type ( A struct{...}; B interface{...} )
(type_declaration
  "("
  (type_spec
    name: (type_identifier) @name
    type: (struct_type)) @definition.struct)

(type_declaration
  "("
  (type_spec
    name: (type_identifier) @name
    type: (interface_type)) @definition.interface)

(type_declaration
  "("
  (type_spec
    name: (type_identifier) @name
    type: [(type_identifier) (qualified_type) (generic_type) (pointer_type) (function_type)
           (map_type) (slice_type) (array_type) (channel_type)]) @definition.class)
