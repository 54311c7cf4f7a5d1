; Rust `use` declarations, one import per name. The full path of an import is always
; `path::name` (`name` may itself be qualified relative to `path`: `use a::{b::C}` gives path `a`
; and name `b::C`). `crate`, `self`, `super` stay in the path.

; use a::b::C;
(use_declaration
  argument: (scoped_identifier
    path: (_) @import.path
    name: (identifier) @import.name)) @import

; use a;
(use_declaration
  argument: (identifier) @import.name) @import

; use a::b::C as D;   use a as b;
(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier
      path: (_) @import.path
      name: (identifier) @import.name)
    alias: (identifier) @import.alias)) @import

(use_declaration
  argument: (use_as_clause
    path: (identifier) @import.name
    alias: (identifier) @import.alias)) @import

; use a::b::*;
(use_declaration
  argument: (use_wildcard
    (_) @import.path) @import.wildcard) @import

; use a::b::{C, d::E, F as G, self};
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.path
    list: (use_list
      [(identifier) (scoped_identifier)] @import.name))) @import

(use_declaration
  argument: (scoped_use_list
    path: (_) @import.path
    list: (use_list
      (use_as_clause
        path: (_) @import.name
        alias: (identifier) @import.alias)))) @import

(use_declaration
  argument: (scoped_use_list
    path: (_) @import.path
    list: (use_list
      (use_wildcard) @import.wildcard))) @import

; use a::b::{self}: imports the module `a::b` itself.
(use_declaration
  argument: (scoped_use_list
    path: (scoped_identifier
      path: (_) @import.path
      name: (identifier) @import.name)
    list: (use_list
      (self)))) @import

; extern crate serde;   extern crate serde as sd;
(extern_crate_declaration
  name: (identifier) @import.name
  alias: (identifier)? @import.alias) @import
