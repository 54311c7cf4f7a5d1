; Swift imports: `import Module` makes every public name of the module visible (a wildcard);
; `import struct Module.Name` imports one declaration.

(import_declaration
  .
  (identifier) @import.path @import.wildcard .) @import
