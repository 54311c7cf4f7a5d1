; PHP references: calls `f()`, `\ns\f()` (receiver: the namespace), `$x->m()`, `$x?->m()`,
; `Foo::m()`, `self::m()`, `parent::m()`, `static::m()`, `new Foo()` (a call named `Foo`), and
; type names in declarations. Dynamic names (`$f()`, `$x->$m()`) are not references.

(function_call_expression
  function: (name) @name) @reference.call

(function_call_expression
  function: (qualified_name
    prefix: (namespace_name) @receiver
    (name) @name)) @reference.call

(member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

(nullsafe_member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

(scoped_call_expression
  scope: (_) @receiver
  name: (name) @name) @reference.call

; `new static()`, `new self()` and a `static` return type name no class of that name.
((object_creation_expression
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.call
  (#not-any-of? @name "static" "self" "parent"))

; `named_type` covers parameter, return and property types, also inside `?T` and `A|B`.
((named_type
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.type
  (#not-any-of? @name "static" "self" "parent"))

; Bindings: typed parameters (also promoted constructor properties), typed properties, and
; `$x = new Foo()`. Names keep their `$`, as receivers do.
(simple_parameter
  type: [(named_type) (optional_type (named_type))] @binding.type
  name: (variable_name) @binding.name) @binding

(property_promotion_parameter
  type: [(named_type) (optional_type (named_type))] @binding.type
  name: (variable_name) @binding.name) @binding

(property_declaration
  type: [(named_type) (optional_type (named_type))] @binding.type
  (property_element
    name: (variable_name) @binding.name)) @binding

(assignment_expression
  left: [(variable_name) (member_access_expression)] @binding.name
  right: (object_creation_expression
    [(name) (qualified_name)] @binding.type)) @binding
