; Ruby definitions: modules, classes (`class A::B` is `B` owned by `A`), `Struct.new` constants,
; methods (`def m` is a function, promoted to a method inside a class; `def self.m` is a method).
; Methods inside `class << self` belong to the enclosing class.

(module
  name: (constant) @name) @definition.module

(module
  name: (scope_resolution
    scope: (_) @owner
    name: (constant) @name)) @definition.module

(class
  name: (constant) @name) @definition.class

(class
  name: (scope_resolution
    scope: (_) @owner
    name: (constant) @name)) @definition.class

; `Point = Struct.new(:x, :y) do ... end`
(assignment
  left: (constant) @name
  right: (call
    receiver: (constant) @_struct
    method: (identifier) @_new)
  (#eq? @_struct "Struct")
  (#eq? @_new "new")) @definition.class

(method
  name: (_) @name) @definition.function

(singleton_method
  name: (_) @name) @definition.method
