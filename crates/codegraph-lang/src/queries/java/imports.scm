; Java imports: `import a.b.C;` gives path `a.b` and name `C`; `import a.b.*;` is a wildcard on
; `a.b`; static imports the same (`import static a.b.C.m;` gives path `a.b.C`, name `m`).

(package_declaration
  [(scoped_identifier) (identifier)] @package)

; The anchor keeps `import a.b.*;` (whose last child is the asterisk) out.
(import_declaration
  (scoped_identifier
    scope: (_) @import.path
    name: (identifier) @import.name)
  .) @import

(import_declaration
  (identifier) @import.name
  .) @import

(import_declaration
  [(scoped_identifier) (identifier)] @import.path
  (asterisk) @import.wildcard) @import
