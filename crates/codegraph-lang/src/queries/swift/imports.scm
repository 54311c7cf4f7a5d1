; Swift imports: `import Module` makes every public name of the module visible (a wildcard);
; `import struct Module.Name` (also class, enum, protocol, typealias, func, var, let) imports one
; declaration: path `Module`, name `Name`. The import kind is an anonymous token, so the plain
; form is told apart by a (cheap: imports are few) text predicate.

((import_declaration
  (identifier) @import.path @import.wildcard .) @import
  (#not-match? @import "import\\s+(struct|class|enum|protocol|typealias|func|var|let)\\s"))

(import_declaration
  ["struct" "class" "enum" "protocol" "typealias" "func" "var" "let"]
  .
  (identifier
    .
    (simple_identifier) @import.path
    (simple_identifier) @import.name .)) @import
