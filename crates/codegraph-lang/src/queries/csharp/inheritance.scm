; C# bases: `class A : B, IC, IGeneric<T>`, `record R(...) : Base(...)`. The syntax cannot tell
; the base class from the interfaces, so all are `@extends`; resolution decides by the target's
; kind.

(base_list
  [(identifier) (qualified_name) (generic_name)] @extends)

(base_list
  (primary_constructor_base_type
    type: (_) @extends))
