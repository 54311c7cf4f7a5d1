; Kotlin supertypes: `: Base(args)` is a superclass (a constructor call), a bare type after the
; colon is an interface (resolution corrects the kind from the target), `I by impl` delegates.

(delegation_specifier
  (constructor_invocation
    (user_type) @extends))

(delegation_specifier
  (user_type) @implements)

(delegation_specifier
  (explicit_delegation
    (user_type) @implements))
