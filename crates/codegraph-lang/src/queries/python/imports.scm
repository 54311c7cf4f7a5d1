; Python imports. `import a.b` binds `a`; `import a.b as c` binds `c`; `from m import x as y`.

(import_statement
  name: (dotted_name) @import.path) @import

(import_statement
  name: (aliased_import
    name: (dotted_name) @import.path
    alias: (identifier) @import.alias)) @import

(import_from_statement
  module_name: (_) @import.path
  name: (dotted_name) @import.name) @import

(import_from_statement
  module_name: (_) @import.path
  name: (aliased_import
    name: (dotted_name) @import.name
    alias: (identifier) @import.alias)) @import

(import_from_statement
  module_name: (_) @import.path
  (wildcard_import) @import.wildcard) @import
