; Rust definitions. Functions inside a trait become methods (the trait is their parent); functions
; inside an `impl` block belong to the implemented type through `@scope.impl`.

(struct_item
  name: (type_identifier) @name) @definition.struct

(union_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(trait_item
  name: (type_identifier) @name) @definition.trait

(function_item
  name: (identifier) @name) @definition.function

; Trait methods without a body and `extern` block functions.
(function_signature_item
  name: (identifier) @name) @definition.function

; Inline modules only; `mod x;` names a file, which is its own module entity.
(mod_item
  name: (identifier) @name
  body: (declaration_list)) @definition.module

; `impl Type { ... }` and `impl Trait for Type { ... }`: the methods belong to `Type`.
(impl_item
  type: (_) @name
  body: (declaration_list)) @scope.impl

; A function written inside a macro's arguments (`quickcheck! { fn prop(a: u32) -> bool { .. } }`,
; tokio's `cfg_rt! { pub fn spawn<F>(future: F) -> JoinHandle<F::Output> where .. { .. } }`):
; the macro expands to it, so calls in its body are its own (`index/rust.rs` gives it the span
; from `fn` to its body; none inside a `macro_rules!` template).
(token_tree
  "fn"
  .
  (identifier) @name @definition.function
  .
  ["<" (token_tree)])
