; Imports of JavaScript, TypeScript and TSX (TypeScript adds `typescript/imports.scm`).
; ES modules: `import x from './x'` imports the default export under the local name x
; (recorded as name `default`, alias x: `@import.default`), `import {a as b} from`,
; `import * as m from` (a module alias, like Python's `import m as m`), side-effect
; `import './x'`. Re-exports (`export {a} from`, `export * from`, `export * as ns from`) are
; imports too. CommonJS: `const x = require('./x')` (module alias),
; `const {a, b: c} = require('./x')` and `const a = require('./x').a`.

(import_statement
  (import_clause (identifier) @import.alias @import.default)
  source: (string (string_fragment) @import.path)) @import

(import_statement
  (import_clause
    (named_imports
      (import_specifier
        name: (_) @import.name
        alias: (identifier)? @import.alias)))
  source: (string (string_fragment) @import.path)) @import

(import_statement
  (import_clause (namespace_import (identifier) @import.alias))
  source: (string (string_fragment) @import.path)) @import

(import_statement
  .
  source: (string (string_fragment) @import.path)) @import

; `export { a, b as c } from './m'`: the clause whole, each specifier read from it in code (a
; pattern per specifier made the query engine's work grow faster than the square of the list:
; 26 s for one `export { ... }` of a thousand names).
(export_statement
  (export_clause) @import.specifiers
  source: (string (string_fragment) @import.path)) @import

(export_statement
  (namespace_export (identifier) @import.alias)
  source: (string (string_fragment) @import.path)) @import

(export_statement
  "*" @import.wildcard
  source: (string (string_fragment) @import.path)) @import

(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string (string_fragment) @import.path) .))
  (#eq? @_require "require")) @import

(variable_declarator
  name: (object_pattern
    [(shorthand_property_identifier_pattern) @import.name
     (pair_pattern
       key: (property_identifier) @import.name
       value: (identifier) @import.alias)])
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string (string_fragment) @import.path) .))
  (#eq? @_require "require")) @import

; `const f = require('./errors').f`: the member `f` of the module, under the local name.
(variable_declarator
  name: (identifier) @import.alias
  value: (member_expression
    object: (call_expression
      function: (identifier) @_require
      arguments: (arguments . (string (string_fragment) @import.path) .))
    property: (property_identifier) @import.name)
  (#eq? @_require "require")) @import

; `require('./polyfill');` for its side effects, and dynamic `import('./Page')` (lazy loading).
(expression_statement
  (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string (string_fragment) @import.path) .))
  (#eq? @_require "require")) @import

(call_expression
  function: (import)
  arguments: (arguments . (string (string_fragment) @import.path))) @import

; Local aliases, recorded as imports with an empty path (a name of the same file under another
; name): `export default origin`, `export default function origin() {}`, `module.exports =
; Widget` (the default export), `var app = module.exports = {}`, `export const plus = add`, `export { add as plus }`. Importers
; follow them like re-exports.
(export_statement
  "default"
  declaration: [
    (function_declaration name: (_) @import.name)
    (generator_function_declaration name: (_) @import.name)
    (class_declaration name: (_) @import.name)
  ]) @import @import.default

(export_statement
  "default"
  value: (identifier) @import.name) @import @import.default

; (Also inside a chain: `exports = module.exports = Mocha`.)
(assignment_expression
  left: (member_expression
    object: (identifier) @_module
    property: (property_identifier) @_exports)
  right: (identifier) @import.name
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @import @import.default

(assignment_expression
  left: (member_expression
    object: (identifier) @_module
    property: (property_identifier) @_exports)
  right: (function_expression name: (identifier) @import.name)
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @import @import.default

; `var app = module.exports = {}`, `var app = exports = module.exports = {}`: the variable is
; what the module exports.
(variable_declarator
  name: (identifier) @import.name
  value: (assignment_expression
    left: (member_expression
      object: (identifier) @_module
      property: (property_identifier) @_exports))
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @import @import.default

(variable_declarator
  name: (identifier) @import.name
  value: (assignment_expression
    right: (assignment_expression
      left: (member_expression
        object: (identifier) @_module
        property: (property_identifier) @_exports)))
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @import @import.default

(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @import.alias
      value: (identifier) @import.name))) @import

(export_statement
  !source
  (export_clause
    (export_specifier
      name: (_) @import.name
      alias: (_) @import.alias))) @import
