; Python bases: `class A(B, mod.C, metaclass=M)`; keyword arguments are not bases.

(class_definition
  superclasses: (argument_list
    [(identifier) (attribute)] @extends))
