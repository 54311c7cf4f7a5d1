; Go imports: the path names a package directory; `name` is the local alias (`_` for a blank
; import), `.` imports every exported name. `package x` is the file's package.

(package_clause
  (package_identifier) @package)

(import_spec
  !name
  path: (_) @import.path) @import

(import_spec
  name: [(package_identifier) (blank_identifier)] @import.alias
  path: (_) @import.path) @import

(import_spec
  name: (dot) @import.wildcard
  path: (_) @import.path) @import
