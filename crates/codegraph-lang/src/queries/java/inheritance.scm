; Java bases: `extends` a class, `implements` interfaces, interfaces `extends` interfaces.

(superclass
  [(type_identifier) (scoped_type_identifier) (generic_type)] @extends)

(super_interfaces
  (type_list
    [(type_identifier) (scoped_type_identifier) (generic_type)] @implements))

(extends_interfaces
  (type_list
    [(type_identifier) (scoped_type_identifier) (generic_type)] @extends))
