; Kotlin imports. The grammar's qualified name is a flat list of identifiers, so the path is the
; whole dotted name (`import a.b.C` gives path `a.b.C`, no separate name; resolution splits off
; the last segment); `import a.b.*` is a wildcard on `a.b`; `import a.b.C as D` has alias `D`.

(package_header
  (qualified_identifier) @package)

; The anchor keeps aliased imports out; the predicate keeps wildcards out.
((import
  (qualified_identifier) @import.path
  .) @import
  (#not-match? @import "[*]"))

(import
  (qualified_identifier) @import.path
  "*" @import.wildcard) @import

(import
  (qualified_identifier) @import.path
  (identifier) @import.alias) @import
