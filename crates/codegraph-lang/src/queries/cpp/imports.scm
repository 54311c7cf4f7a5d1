; C++ imports beyond C's `#include` (`c_common/imports.scm`, loaded first): `using namespace
; a::b;` brings a namespace in (wildcard); `using a::b::name;` imports one name;
; `namespace fs = std::filesystem;` is an aliased import.

(using_declaration
  "namespace" @import.wildcard
  [(identifier) (qualified_identifier)] @import.path) @import

; Using-declarations are rare, so the text test that tells them from using-directives is cheap.
((using_declaration
  (qualified_identifier
    scope: (_) @import.path
    name: (_) @import.name)) @import
  (#not-match? @import "^using\\s+namespace"))

(namespace_alias_definition
  name: (namespace_identifier) @import.alias
  [(namespace_identifier) (nested_namespace_specifier)] @import.path) @import
