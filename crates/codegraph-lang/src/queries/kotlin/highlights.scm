; Kotlin highlights for tree-sitter-kotlin-ng, which ships no highlight queries.
; For one node, a later pattern wins over an earlier one (tree-sitter-highlight), so the general
; patterns come first.

(identifier) @variable

((identifier) @constant
  (#match? @constant "^[A-Z][A-Z0-9_]+$"))

; true, false, null, break and continue are identifiers in this grammar.
((identifier) @constant.builtin
  (#any-of? @constant.builtin "true" "false" "null"))

((identifier) @keyword
  (#any-of? @keyword "break" "continue"))

(this_expression) @variable.builtin

(super_expression) @variable.builtin

; Types

(user_type
  (identifier) @type)

(type_parameter
  (identifier) @type)

(class_declaration
  name: (identifier) @type.definition)

(object_declaration
  name: (identifier) @type.definition)

(type_alias
  type: (identifier) @type.definition)

(enum_entry
  (identifier) @constant)

; Functions and calls

(function_declaration
  name: (identifier) @function)

(call_expression
  (identifier) @function.call)

(call_expression
  (navigation_expression
    (identifier) @function.method .))

(constructor_invocation
  (user_type
    (identifier) @constructor))

(callable_reference
  (identifier) @function)

; Parameters and properties

(parameter
  (identifier) @variable.parameter)

(class_parameter
  (identifier) @variable.parameter)

(lambda_parameters
  (variable_declaration
    (identifier) @variable.parameter))

(navigation_expression
  (identifier) @property .)

(call_expression
  (navigation_expression
    (identifier) @function.method .))

; Annotations, packages and imports

(annotation
  (user_type
    (identifier) @attribute))

(annotation
  (constructor_invocation
    (user_type
      (identifier) @attribute)))

(package_header
  (qualified_identifier
    (identifier) @module))

(import
  (qualified_identifier
    (identifier) @module))

(label) @label

; Literals and comments

[
  (string_literal)
  (multiline_string_literal)
  (character_literal)
] @string

(escape_sequence) @string.escape

(interpolation
  (identifier) @variable)

[
  (number_literal)
  (float_literal)
] @number

[
  (line_comment)
  (block_comment)
  (shebang)
] @comment

; Keywords and modifiers

[
  "package" "import" "class" "interface" "object" "companion" "fun" "val" "var" "typealias"
  "constructor" "init" "by" "where" "get" "set" "field" "enum" "annotation" "value"
] @keyword

[
  "if" "else" "when" "for" "while" "do" "in" "!in" "is" "!is" "as" "as?"
  "try" "catch" "finally" "throw" "return" "return@"
] @keyword

[
  "this" "this@" "super" "super@"
] @variable.builtin

[
  (visibility_modifier)
  (inheritance_modifier)
  (member_modifier)
  (function_modifier)
  (property_modifier)
  (parameter_modifier)
  (platform_modifier)
  (variance_modifier)
  (reification_modifier)
  (class_modifier)
] @keyword.modifier

; Operators

[
  "=" "+=" "-=" "*=" "/=" "%=" "==" "!=" "===" "!==" "<" ">" "<=" ">=" "&&" "||" "!" "!!"
  "+" "-" "*" "/" "%" "++" "--" ".." "..<" "?:" "->" "?." "::"
] @operator
