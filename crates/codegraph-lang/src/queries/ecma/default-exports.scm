; An anonymous default export (`export default function (x) {}`, `export default (x) => ..`,
; `export default class {}`) is named `default`, as tsserver names it; default imports of the
; file reach it. Shared by JavaScript, TypeScript and TSX, loaded after their definitions.
(export_statement
  "default" @name
  value: [(function_expression !name) (arrow_function) (generator_function !name)]) @definition.function

(export_statement
  "default" @name
  value: (class !name)) @definition.class
