; C++ bases: `class A : public B, private ns::C, D<T>`. The syntax cannot tell an interface (an
; abstract class) from a class, so every base is `@extends`.

(base_class_clause
  [(type_identifier) (qualified_identifier) (template_type)] @extends)
