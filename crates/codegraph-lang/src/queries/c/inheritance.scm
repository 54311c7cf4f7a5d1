; C has no inheritance. (Embedding a base struct as the first member is a convention the syntax
; cannot tell from any other field.)
