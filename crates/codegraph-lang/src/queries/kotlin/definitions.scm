; Kotlin definitions. `class`, `data class`, `object` and `enum class` declarations; interfaces;
; functions (methods inside a type; companion-object functions belong to the enclosing class).
; An extension function `fun Type.m()` names its type through `@owner`. Annotation classes are
; not entities.

; Extension functions first: of two definitions with the same span the first match is kept.
(function_declaration
  [(user_type) (nullable_type)] @owner
  .
  name: (identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.function

(class_declaration
  "interface"
  name: (identifier) @name) @definition.interface

(class_declaration
  (modifiers
    (class_modifier "enum"))
  "class"
  name: (identifier) @name) @definition.enum

((class_declaration
  "class"
  name: (identifier) @name) @definition.class
  (#not-match? @definition.class "^[^{]*\\b(enum|annotation)\\s+class\\b"))

(object_declaration
  name: (identifier) @name) @definition.class
