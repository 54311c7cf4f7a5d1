; Python bases: `class A(B, mod.C, Base[str], metaclass=M)`; keyword arguments are not bases; a
; generic base (`Serializer[str]`, `t.Generic[T]`) is the class it subscripts.

(class_definition
  superclasses: (argument_list
    [(identifier) (attribute)] @extends))

(class_definition
  superclasses: (argument_list
    (subscript
      value: [(identifier) (attribute)] @extends)))
