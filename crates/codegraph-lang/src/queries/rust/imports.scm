; Rust `use` declarations. The whole tree is captured once (`@import.tree`) and flattened in
; `index::use_tree_leaves`: one import per leaf, at any depth of nesting, with `path::name` the
; leaf's full path (`use crate::{a::{self, B}, c::D as E, f::*}` gives `crate` + `a`, `crate::a`
; + `B`, `crate::c` + `D` as `E`, and a glob of `crate::f`). `crate`, `self`, `super` stay in
; the path. Queries cannot express recursion; the tree's grammar is small and stable.
(use_declaration
  argument: (_) @import.tree) @import

; extern crate serde;   extern crate serde as sd;
(extern_crate_declaration
  name: (identifier) @import.name
  alias: (identifier)? @import.alias) @import
