; C# imports: `using A.B;` brings a namespace in (wildcard), as does `using static A.B.T;` (the
; members of a type); `using X = A.B.T;` is an aliased import of `T` from `A.B`.

(using_directive
  !name
  [(identifier) (qualified_name)] @import.path @import.wildcard) @import

(using_directive
  name: (identifier) @import.alias
  (qualified_name
    qualifier: (_) @import.path
    name: (_) @import.name)) @import

(using_directive
  name: (identifier) @import.alias
  (identifier) @import.path) @import

(namespace_declaration
  name: (_) @package)

(file_scoped_namespace_declaration
  name: (_) @package)
