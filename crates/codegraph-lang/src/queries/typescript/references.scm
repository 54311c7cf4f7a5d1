; TypeScript references beyond the calls it shares with JavaScript (`ecma/references.scm`,
; loaded first): type uses in annotations, generic arguments, unions, casts, constraints (bases
; are in inheritance.scm, declared names are not uses), and bindings of typed parameters, typed
; variables, typed fields and `new` so that `x.method()` resolves through the type.

; Type uses. A name inside `ns.Foo` is a use with receiver `ns`.
(nested_type_identifier
  module: (_) @receiver
  name: (type_identifier) @name) @reference.type

(generic_type name: (type_identifier) @name) @reference.type
(type_annotation (type_identifier) @name) @reference.type
(opting_type_annotation (type_identifier) @name) @reference.type
(omitting_type_annotation (type_identifier) @name) @reference.type
(adding_type_annotation (type_identifier) @name) @reference.type
(type_arguments (type_identifier) @name) @reference.type
(array_type (type_identifier) @name) @reference.type
(union_type (type_identifier) @name) @reference.type
(intersection_type (type_identifier) @name) @reference.type
(parenthesized_type (type_identifier) @name) @reference.type
(tuple_type (type_identifier) @name) @reference.type
(optional_type (type_identifier) @name) @reference.type
(rest_type (type_identifier) @name) @reference.type
(readonly_type (type_identifier) @name) @reference.type
(lookup_type (type_identifier) @name) @reference.type
(index_type_query (type_identifier) @name) @reference.type
(conditional_type (type_identifier) @name) @reference.type
(constraint (type_identifier) @name) @reference.type
(default_type (type_identifier) @name) @reference.type
(as_expression (type_identifier) @name) @reference.type
(satisfies_expression (type_identifier) @name) @reference.type
(function_type return_type: (type_identifier) @name) @reference.type
(constructor_type type: (type_identifier) @name) @reference.type
(type_predicate type: (type_identifier) @name) @reference.type
(mapped_type_clause type: (type_identifier) @name) @reference.type
(type_alias_declaration value: (type_identifier) @name) @reference.type

; Type aliases of a named type: `type ZodTypeAny = ZodType<any, any, any>`, `type Id = ns.Key`.
; A receiver declared of the alias has the aliased type's members.
(type_alias_declaration
  name: (type_identifier) @binding.name @binding.alias
  value: [(type_identifier) (generic_type) (nested_type_identifier)] @binding.type) @binding

; Bindings: typed parameters (`u: User`, `u?: User`), typed variables and fields, `new`. A union
; (`Subject<T> | null`, `A | B`) is each of its alternatives.
(required_parameter
  pattern: (identifier) @binding.name
  type: (type_annotation
    [(type_identifier) (generic_type) (nested_type_identifier) (predefined_type) (union_type)] @binding.type)) @binding

(optional_parameter
  pattern: (identifier) @binding.name
  type: (type_annotation
    [(type_identifier) (generic_type) (nested_type_identifier) (predefined_type) (union_type)] @binding.type)) @binding

; Destructured parameters typed by an object type (React props):
; `function Card({ user }: { user: User })` binds user to User.
(required_parameter
  pattern: (object_pattern
    (shorthand_property_identifier_pattern) @binding.name)
  type: (type_annotation
    (object_type
      (property_signature
        name: (property_identifier) @_property
        type: (type_annotation
          [(type_identifier) (generic_type) (nested_type_identifier)] @binding.type))))
  (#eq? @binding.name @_property)) @binding

(variable_declarator
  name: (identifier) @binding.name
  type: (type_annotation
    [(type_identifier) (generic_type) (nested_type_identifier) (predefined_type) (union_type)] @binding.type)) @binding

(public_field_definition
  name: (property_identifier) @binding.name
  type: (type_annotation
    [(type_identifier) (generic_type) (nested_type_identifier) (predefined_type) (union_type)] @binding.type)) @binding

(variable_declarator
  name: (identifier) @binding.name
  value: (new_expression
    constructor: [(identifier) (member_expression)] @binding.type)) @binding

(variable_declarator
  name: (identifier) @binding.name
  value: (as_expression
    (_)
    [(type_identifier) (generic_type) (nested_type_identifier)] @binding.type)) @binding

(assignment_expression
  left: [(identifier) (member_expression object: (this))] @binding.name
  right: (new_expression
    constructor: [(identifier) (member_expression)] @binding.type)) @binding

(public_field_definition
  name: (property_identifier) @binding.name
  value: (new_expression
    constructor: [(identifier) (member_expression)] @binding.type)) @binding

; `const x = <expression>` without a declared type, `this.x = <expression>`, a field's
; initialiser: the expression, typed by resolution (`await load()`, `makeStore()`,
; `this.registry.get(id)`). The patterns above come first: of two bindings of one name in one
; scope, the first is kept.
(variable_declarator
  name: (identifier) @binding.name
  !type
  value: (_) @binding.value) @binding

(assignment_expression
  left: (member_expression
    object: (this)
    property: (property_identifier)) @binding.name
  right: (_) @binding.value) @binding

(public_field_definition
  name: (property_identifier) @binding.name
  !type
  value: (_) @binding.value) @binding

; Parameter properties (`constructor(private store: Store)`) are fields of the class: the
; `@binding.field` marker binds `this.store` for the whole class.
(required_parameter
  (accessibility_modifier) @binding.field
  pattern: (identifier) @binding.name
  type: (type_annotation
    [(type_identifier) (generic_type) (nested_type_identifier)] @binding.type)) @binding

(required_parameter
  "readonly" @binding.field
  pattern: (identifier) @binding.name
  type: (type_annotation
    [(type_identifier) (generic_type) (nested_type_identifier)] @binding.type)) @binding

; Type parameters and their constraints: `<T extends Base>`.
(type_parameter
  name: (type_identifier) @binding.name
  constraint: (constraint
    [(type_identifier) (generic_type) (nested_type_identifier)] @binding.bound)) @binding

; Parameters shadow outer definitions of their name (`@binding.local`), typed or not.
; (A parameter with a declared type has that binding too, which wins.)
(required_parameter pattern: (identifier) @binding.name @binding.local) @binding
(optional_parameter pattern: (identifier) @binding.name @binding.local) @binding
(arrow_function parameter: (identifier) @binding.name @binding.local) @binding

; A callback's untyped parameter (`operate((source, subscriber) => ...)`,
; `new Observable((subscriber) => ...)`): typed by the callee's declared parameter type.
(arguments
  (arrow_function
    parameters: (formal_parameters
      (required_parameter pattern: (identifier) @binding.name !type))) @binding.callback) @binding
(arguments
  (arrow_function parameter: (identifier) @binding.name) @binding.callback) @binding
(arguments
  (function_expression
    parameters: (formal_parameters
      (required_parameter pattern: (identifier) @binding.name !type))) @binding.callback) @binding
