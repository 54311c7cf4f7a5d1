; Imports of C and C++ (C++ adds `cpp/imports.scm`): `#include "file.h"` (relative to the
; including file, or found by suffix) and `#include <lib.h>` (system headers; they stay external
; unless the workspace has the file).

(preproc_include
  path: [(string_literal) (system_lib_string)] @import.path) @import
