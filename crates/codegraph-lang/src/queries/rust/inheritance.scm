; Rust "inheritance": `impl Trait for Type` (the child is named explicitly) and supertraits
; (`trait A: B + C`).

(impl_item
  trait: (_) @implements
  type: (_) @child)

(trait_item
  bounds: (trait_bounds
    [(type_identifier) (scoped_type_identifier) (generic_type)] @extends))
