; Bash has no types, hence no inheritance.
