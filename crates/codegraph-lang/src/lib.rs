//! The language registry: which files are which language, the grammar, our own tree-sitter
//! queries (`queries/<language>/*.scm` and the shared `ecma/`, `_jsx/`, `c_common/`, see
//! `queries!`; embedded with `include_str!`, compiled lazily), and the
//! few facts about each language that resolution needs (see [`LanguageSpec`]).
//!
//! Adding a language means adding a folder of queries and one entry in [`LANGUAGES`], and
//! giving it resolution semantics in `codegraph_graph::semantics` (an existing family's, or a
//! new implementation of that trait).
//!
//! # Capture conventions (all query files of a language are concatenated into one query)
//!
//! `definitions.scm`
//! - `@definition.<kind>` on the whole definition node, kind one of `module class function method
//!   interface enum struct trait`; the inner `@name` is its name. A function nested directly in a
//!   type becomes a method.
//! - `@doc` (optional) on a docstring node inside the definition (Python); comments directly above
//!   a definition are found without a capture.
//! - `@owner` (optional) names the type a definition belongs to when it is not lexically inside
//!   it (Go receivers, C++ `Type::method`).
//! - `@scope.impl` with `@name`: a block whose definitions belong to the named type (Rust `impl`,
//!   Swift and Kotlin extensions). It creates no entity.
//!
//! `references.scm`
//! - `@reference.call` on a call; `@name` is the called name and `@receiver` (optional) the
//!   expression before the dot (`self`, `this`, a module alias, a variable, a class name).
//! - `@reference.type` with `@name`: a non-call use of a type name (annotations, `new`-less uses).
//! - `@binding` with `@binding.name` and `@binding.type`: the variable or field `name` holds a
//!   value of type `type` (typed parameters, fields, `Foo x = new Foo()`). With `@binding.value`
//!   instead, `name` was assigned that expression (`let x = Foo::new()?`, `x := pkg.Open()`,
//!   `const s = await load()`), which resolution types in one step. With `@binding.bound`, `name`
//!   is a type parameter bounded by that type (`A: Automaton`, `T extends Base`). `@binding.field`
//!   (a marker) binds `this.name` for the whole class (TypeScript parameter properties). Resolution
//!   uses bindings for receivers (`graph/resolve/infer.rs`).
//! - A definition's declared return type is read from its node's `return_type` (or Go's
//!   `result`) field, no capture needed.
//!
//! `imports.scm`
//! - `@import` on the statement, `@import.path` the module path or file (quotes are stripped),
//!   `@import.name` an imported name, `@import.alias` its local alias, `@import.wildcard` a glob.
//!   `@import.tree` captures a whole Rust `use` tree, flattened by `index` into one import per
//!   leaf. `@import.default` (a marker): with a path, the default export (`import x from`); without
//!   one, a local alias exporting `name` as `default` (`export default x`, `module.exports = x`).
//!   An import without a path is a local alias of the same file (`export const plus = add`).
//! - `@package` on a package or namespace declaration's name.
//!
//! `inheritance.scm`
//! - `@extends` / `@implements` on a base type's name. The child is the innermost definition
//!   around it, or the type named by `@child` (Rust `impl Trait for Type`).

pub mod c_build;
pub mod file_class;
pub mod go_build;
pub mod highlight;
pub mod rust_cfg;

use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use tree_sitter::{Language as Grammar, Query};

/// A supported language. Serialised by its lowercase name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Rust,
    Go,
    Java,
    C,
    Cpp,
    CSharp,
    Ruby,
    Php,
    Kotlin,
    Swift,
    Scala,
    Lua,
    Bash,
}

/// A family of languages whose code can call each other's: references never cross families
/// (a Go call never lands in Python), and a family shares its resolution rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    Python,
    /// JavaScript, TypeScript and TSX.
    Ecma,
    Rust,
    Go,
    /// Java, Kotlin and Scala.
    Jvm,
    /// C and C++.
    C,
    CSharp,
    Ruby,
    Php,
    Swift,
    Lua,
    Bash,
}

/// When a name not found in any scope, import or package may still resolve to the one
/// definition of that name in the workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UniqueNameFallback {
    /// Never: the language's visibility rules are explicit (every name is defined or imported).
    Never,
    /// For calls on receivers of unknown type only (`obj.method()`).
    ReceiverOnly,
    /// For bare calls and calls on unknown receivers: the language has global names
    /// (C functions, Ruby and PHP classes, Lua and Bash globals).
    Always,
}

/// Everything codegraph knows about one language.
pub struct LanguageSpec {
    pub language: Language,
    pub name: &'static str,
    pub extensions: &'static [&'static str],
    pub grammar: fn() -> Grammar,
    /// The `.scm` files the combined query is made of (`benches/query_cost.rs` compiles them
    /// again to measure each pattern).
    pub query_source: &'static [&'static str],
    query: OnceLock<Result<Query, String>>,
    /// Receivers that mean "the enclosing type" (`self`, `this`, `$this`).
    pub self_receivers: &'static [&'static str],
    /// Receivers that mean "the bases of the enclosing type".
    pub super_receivers: &'static [&'static str],
    /// A bare call inside a method may name a member of the enclosing type (Java, C#, C++, ...).
    pub implicit_members: bool,
    pub unique_name_fallback: UniqueNameFallback,
    /// Separators of a qualified name in source (`a.b`, `a::b`, `a\b`).
    pub path_separators: &'static [&'static str],
    /// Methods of the language's own library that are called on values everywhere; a call on a
    /// receiver of unknown type with one of these names is never guessed to be a workspace method.
    pub builtin_methods: &'static [&'static [&'static str]],
    /// Names of the language's own functions and types that must never resolve by unique name.
    pub builtin_functions: &'static [&'static str],
}

impl LanguageSpec {
    /// A method of the language's own library (one of `builtin_methods`' lists).
    pub fn is_builtin_method(&self, name: &str) -> bool {
        self.builtin_methods
            .iter()
            .any(|methods| methods.contains(&name))
    }
}

/// A language's query files, in the order they are concatenated.
///
/// `queries!("python")`: the language's own folder, `queries/python/{definitions,references,
/// imports,inheritance}.scm`. Languages that share patterns list their files instead (a path
/// below `queries/` without `.scm`), each shared file before the language's own file of that
/// kind, as helix's `; inherits: ecma,_jsx` does: `ecma/` is what JavaScript, TypeScript and TSX
/// share, `_jsx/` what JavaScript and TSX share, `c_common/` what C and C++ share. A shared
/// file holds only patterns that compile in every grammar that loads it, and keeps their order:
/// where two patterns match one node, the first match wins (`index` keeps the first definition
/// of a span, and bindings in match order).
macro_rules! queries {
    ($lang:literal) => {
        &[
            include_str!(concat!("queries/", $lang, "/definitions.scm")),
            include_str!(concat!("queries/", $lang, "/references.scm")),
            include_str!(concat!("queries/", $lang, "/imports.scm")),
            include_str!(concat!("queries/", $lang, "/inheritance.scm")),
        ]
    };
    ($first:literal, $($file:literal),+ $(,)?) => {
        &[
            include_str!(concat!("queries/", $first, ".scm")),
            $(include_str!(concat!("queries/", $file, ".scm")),)+
        ]
    };
}

const COMMON_BUILTIN_METHODS: &[&str] = &[
    "get",
    "set",
    "put",
    "add",
    "remove",
    "delete",
    "clear",
    "contains",
    "push",
    "pop",
    "append",
    "extend",
    "insert",
    "len",
    "length",
    "size",
    "map",
    "filter",
    "reduce",
    "join",
    "split",
    "keys",
    "values",
    "items",
    "entries",
    "format",
    "toString",
    "to_string",
    "equals",
    "hashCode",
    "clone",
    "copy",
    "close",
    "open",
    "read",
    "write",
    "flush",
    "next",
    "iter",
    "unwrap",
    "expect",
    "then",
    "catch",
    "forEach",
    "update",
    "sort",
    "reverse",
    "index",
    "find",
    "replace",
    "strip",
    "trim",
    "lower",
    "upper",
    "startswith",
    "endswith",
    "startsWith",
    "endsWith",
    "toLowerCase",
    "toUpperCase",
    "substring",
    "slice",
    "splice",
    "concat",
    "includes",
    "indexOf",
    "has",
    "count",
    "encode",
    "decode",
    "emit",
    "on",
    "send",
    "log",
    "print",
    "println",
    "debug",
    "info",
    "warn",
    "error",
    "isEmpty",
    "is_empty",
    "first",
    "last",
    "min",
    "max",
    "sum",
    "collect",
    "into",
    "as_str",
    "as_ref",
    "borrow",
    "lock",
    "call",
    "apply",
    "bind",
    "resolve",
    "reject",
    "wait",
    "run",
    "start",
    "stop",
    "exec",
    "match",
    "test",
    "parse",
    "load",
    "dump",
    "dumps",
    "loads",
];

/// Go's, besides the common names: the methods of the builtin `error` and of `fmt.Stringer`,
/// which every error value and many others have.
const GO_BUILTIN_METHODS: &[&str] = &["Error", "String", "Unwrap", "Is", "As"];

/// JavaScript's and TypeScript's, besides the common names: the methods of the builtin arrays,
/// strings, numbers, promises, objects and event emitters.
const JS_BUILTIN_METHODS: &[&str] = &[
    "some",
    "every",
    "findIndex",
    "findLast",
    "lastIndexOf",
    "flat",
    "flatMap",
    "fill",
    "shift",
    "unshift",
    "reduceRight",
    "at",
    "from",
    "of",
    "assign",
    "freeze",
    "isArray",
    "charAt",
    "charCodeAt",
    "codePointAt",
    "padStart",
    "padEnd",
    "repeat",
    "trimStart",
    "trimEnd",
    "replaceAll",
    "localeCompare",
    "normalize",
    "toFixed",
    "toPrecision",
    "isFinite",
    "isNaN",
    "isInteger",
    "finally",
    "all",
    "allSettled",
    "race",
    "any",
    "stringify",
    "create",
    "defineProperty",
    "getOwnPropertyNames",
    "getPrototypeOf",
    "setPrototypeOf",
    "hasOwnProperty",
    "valueOf",
    "toJSON",
    "addEventListener",
    "removeEventListener",
    "dispatchEvent",
    "once",
    "off",
    "removeListener",
    "removeAllListeners",
    "listeners",
    "end",
    "destroy",
    "pipe",
    "terminate",
    "kill",
    "abort",
    "subarray",
    "toISOString",
    "getTime",
];

pub static LANGUAGES: [LanguageSpec; 17] = [
    LanguageSpec {
        language: Language::Python,
        name: "python",
        extensions: &["py", "pyi"],
        grammar: || tree_sitter_python::LANGUAGE.into(),
        query_source: queries!("python"),
        query: OnceLock::new(),
        self_receivers: &["self", "cls"],
        super_receivers: &["super()"],
        implicit_members: false,
        unique_name_fallback: UniqueNameFallback::ReceiverOnly,
        path_separators: &["."],
        builtin_methods: &[COMMON_BUILTIN_METHODS],
        builtin_functions: &[
            "print",
            "len",
            "range",
            "open",
            "str",
            "int",
            "float",
            "list",
            "dict",
            "set",
            "tuple",
            "super",
            "isinstance",
            "getattr",
            "setattr",
            "hasattr",
            "sorted",
            "enumerate",
            "zip",
            "__import__",
            "iter",
            "next",
            "type",
            "vars",
            "bytes",
            "object",
            "repr",
            "format",
        ],
    },
    LanguageSpec {
        language: Language::JavaScript,
        name: "javascript",
        extensions: &["js", "jsx", "mjs", "cjs"],
        grammar: || tree_sitter_javascript::LANGUAGE.into(),
        query_source: queries![
            "ecma/definitions",
            "javascript/definitions",
            "ecma/default-exports",
            "ecma/references",
            "_jsx/references",
            "javascript/references",
            "ecma/imports",
            "javascript/inheritance",
        ],
        query: OnceLock::new(),
        self_receivers: &["this"],
        super_receivers: &["super"],
        implicit_members: false,
        unique_name_fallback: UniqueNameFallback::ReceiverOnly,
        path_separators: &["."],
        builtin_methods: &[COMMON_BUILTIN_METHODS, JS_BUILTIN_METHODS],
        builtin_functions: &[
            "require",
            "setTimeout",
            "setInterval",
            "parseInt",
            "parseFloat",
        ],
    },
    LanguageSpec {
        language: Language::TypeScript,
        name: "typescript",
        extensions: &["ts", "mts", "cts"],
        grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        // JavaScript's patterns where the grammars agree (`ecma/`), then TypeScript's own.
        query_source: queries![
            "ecma/definitions",
            "typescript/definitions",
            "ecma/default-exports",
            "ecma/references",
            "typescript/references",
            "ecma/imports",
            "typescript/imports",
            "typescript/inheritance",
        ],
        query: OnceLock::new(),
        self_receivers: &["this"],
        super_receivers: &["super"],
        implicit_members: false,
        unique_name_fallback: UniqueNameFallback::ReceiverOnly,
        path_separators: &["."],
        builtin_methods: &[COMMON_BUILTIN_METHODS, JS_BUILTIN_METHODS],
        builtin_functions: &[
            "require",
            "setTimeout",
            "setInterval",
            "parseInt",
            "parseFloat",
        ],
    },
    LanguageSpec {
        language: Language::Tsx,
        name: "tsx",
        extensions: &["tsx"],
        grammar: || tree_sitter_typescript::LANGUAGE_TSX.into(),
        // TSX is TypeScript plus JSX: the same queries, and JSX elements as calls.
        query_source: queries![
            "ecma/definitions",
            "typescript/definitions",
            "ecma/default-exports",
            "ecma/references",
            "typescript/references",
            "ecma/imports",
            "typescript/imports",
            "typescript/inheritance",
            "_jsx/references",
        ],
        query: OnceLock::new(),
        self_receivers: &["this"],
        super_receivers: &["super"],
        implicit_members: false,
        unique_name_fallback: UniqueNameFallback::ReceiverOnly,
        path_separators: &["."],
        builtin_methods: &[COMMON_BUILTIN_METHODS, JS_BUILTIN_METHODS],
        builtin_functions: &[
            "require",
            "setTimeout",
            "setInterval",
            "parseInt",
            "parseFloat",
        ],
    },
    LanguageSpec {
        language: Language::Rust,
        name: "rust",
        extensions: &["rs"],
        grammar: || tree_sitter_rust::LANGUAGE.into(),
        query_source: queries!("rust"),
        query: OnceLock::new(),
        self_receivers: &["self", "Self"],
        super_receivers: &[],
        implicit_members: false,
        unique_name_fallback: UniqueNameFallback::ReceiverOnly,
        path_separators: &["::"],
        builtin_methods: &[COMMON_BUILTIN_METHODS],
        builtin_functions: &["Some", "None", "Ok", "Err", "Box", "Vec", "String"],
    },
    LanguageSpec {
        language: Language::Go,
        name: "go",
        extensions: &["go"],
        grammar: || tree_sitter_go::LANGUAGE.into(),
        query_source: queries!("go"),
        query: OnceLock::new(),
        self_receivers: &[],
        super_receivers: &[],
        implicit_members: false,
        unique_name_fallback: UniqueNameFallback::ReceiverOnly,
        path_separators: &["."],
        builtin_methods: &[COMMON_BUILTIN_METHODS, GO_BUILTIN_METHODS],
        builtin_functions: &[
            "make", "new", "len", "cap", "append", "panic", "recover", "copy",
        ],
    },
    LanguageSpec {
        language: Language::Java,
        name: "java",
        extensions: &["java"],
        grammar: || tree_sitter_java::LANGUAGE.into(),
        query_source: queries!("java"),
        query: OnceLock::new(),
        self_receivers: &["this"],
        super_receivers: &["super"],
        implicit_members: true,
        unique_name_fallback: UniqueNameFallback::ReceiverOnly,
        path_separators: &["."],
        builtin_methods: &[COMMON_BUILTIN_METHODS],
        builtin_functions: &[],
    },
    LanguageSpec {
        language: Language::C,
        name: "c",
        extensions: &["c", "h"],
        grammar: || tree_sitter_c::LANGUAGE.into(),
        query_source: queries![
            "c_common/definitions",
            "c/definitions",
            "c_common/references",
            "c/references",
            "c_common/imports",
            "c/inheritance",
        ],
        query: OnceLock::new(),
        self_receivers: &[],
        super_receivers: &[],
        implicit_members: false,
        unique_name_fallback: UniqueNameFallback::Always,
        path_separators: &["."],
        builtin_methods: &[],
        builtin_functions: &["printf", "malloc", "free", "memcpy", "strlen", "sizeof"],
    },
    LanguageSpec {
        language: Language::Cpp,
        name: "cpp",
        extensions: &["cpp", "cc", "cxx", "hpp", "hh", "hxx", "c++", "h++"],
        grammar: || tree_sitter_cpp::LANGUAGE.into(),
        query_source: queries![
            "c_common/definitions",
            "cpp/definitions",
            "c_common/references",
            "cpp/references",
            "c_common/imports",
            "cpp/imports",
            "cpp/inheritance",
        ],
        query: OnceLock::new(),
        self_receivers: &["this"],
        super_receivers: &[],
        implicit_members: true,
        unique_name_fallback: UniqueNameFallback::Always,
        path_separators: &["::", "."],
        builtin_methods: &[COMMON_BUILTIN_METHODS],
        builtin_functions: &["printf", "malloc", "free", "memcpy", "strlen", "sizeof"],
    },
    LanguageSpec {
        language: Language::CSharp,
        name: "csharp",
        extensions: &["cs"],
        grammar: || tree_sitter_c_sharp::LANGUAGE.into(),
        query_source: queries!("csharp"),
        query: OnceLock::new(),
        self_receivers: &["this"],
        super_receivers: &["base"],
        implicit_members: true,
        unique_name_fallback: UniqueNameFallback::ReceiverOnly,
        path_separators: &["."],
        builtin_methods: &[COMMON_BUILTIN_METHODS],
        builtin_functions: &["nameof", "typeof"],
    },
    LanguageSpec {
        language: Language::Ruby,
        name: "ruby",
        extensions: &["rb", "rake"],
        grammar: || tree_sitter_ruby::LANGUAGE.into(),
        query_source: queries!("ruby"),
        query: OnceLock::new(),
        self_receivers: &["self"],
        super_receivers: &[],
        implicit_members: true,
        unique_name_fallback: UniqueNameFallback::Always,
        path_separators: &["::", "."],
        builtin_methods: &[COMMON_BUILTIN_METHODS],
        builtin_functions: &[
            "puts",
            "require",
            "require_relative",
            "raise",
            "attr_accessor",
            "attr_reader",
            "attr_writer",
            "include",
            "extend",
            "prepend",
            "private",
            "protected",
            "public",
            "module_function",
            "load",
            "lambda",
            "proc",
            "loop",
            "new",
        ],
    },
    LanguageSpec {
        language: Language::Php,
        name: "php",
        extensions: &["php"],
        grammar: || tree_sitter_php::LANGUAGE_PHP.into(),
        query_source: queries!("php"),
        query: OnceLock::new(),
        self_receivers: &["$this", "self", "static"],
        super_receivers: &["parent"],
        implicit_members: false,
        unique_name_fallback: UniqueNameFallback::Always,
        path_separators: &["\\", "->", "::"],
        builtin_methods: &[COMMON_BUILTIN_METHODS],
        builtin_functions: &["echo", "isset", "count", "array_map", "strlen", "sprintf"],
    },
    LanguageSpec {
        language: Language::Kotlin,
        name: "kotlin",
        extensions: &["kt", "kts"],
        grammar: || tree_sitter_kotlin_ng::LANGUAGE.into(),
        query_source: queries!("kotlin"),
        query: OnceLock::new(),
        self_receivers: &["this"],
        super_receivers: &["super"],
        implicit_members: true,
        unique_name_fallback: UniqueNameFallback::ReceiverOnly,
        path_separators: &["."],
        builtin_methods: &[COMMON_BUILTIN_METHODS],
        builtin_functions: &["println", "listOf", "mapOf", "setOf", "require", "check"],
    },
    LanguageSpec {
        language: Language::Swift,
        name: "swift",
        extensions: &["swift"],
        grammar: || tree_sitter_swift::LANGUAGE.into(),
        query_source: queries!("swift"),
        query: OnceLock::new(),
        self_receivers: &["self", "Self"],
        super_receivers: &["super"],
        implicit_members: true,
        unique_name_fallback: UniqueNameFallback::Always,
        path_separators: &["."],
        builtin_methods: &[COMMON_BUILTIN_METHODS],
        builtin_functions: &["print", "fatalError", "precondition", "assert"],
    },
    LanguageSpec {
        language: Language::Scala,
        name: "scala",
        extensions: &["scala", "sc"],
        grammar: || tree_sitter_scala::LANGUAGE.into(),
        query_source: queries!("scala"),
        query: OnceLock::new(),
        self_receivers: &["this"],
        super_receivers: &["super"],
        implicit_members: true,
        unique_name_fallback: UniqueNameFallback::ReceiverOnly,
        path_separators: &["."],
        builtin_methods: &[COMMON_BUILTIN_METHODS],
        builtin_functions: &["println", "require", "assert"],
    },
    LanguageSpec {
        language: Language::Lua,
        name: "lua",
        extensions: &["lua"],
        grammar: || tree_sitter_lua::LANGUAGE.into(),
        query_source: queries!("lua"),
        query: OnceLock::new(),
        self_receivers: &["self"],
        super_receivers: &[],
        implicit_members: false,
        unique_name_fallback: UniqueNameFallback::Always,
        path_separators: &[".", ":"],
        builtin_methods: &[COMMON_BUILTIN_METHODS],
        builtin_functions: &[
            "print",
            "require",
            "pairs",
            "ipairs",
            "setmetatable",
            "tostring",
        ],
    },
    LanguageSpec {
        language: Language::Bash,
        name: "bash",
        extensions: &["sh", "bash"],
        grammar: || tree_sitter_bash::LANGUAGE.into(),
        query_source: queries!("bash"),
        query: OnceLock::new(),
        self_receivers: &[],
        super_receivers: &[],
        implicit_members: false,
        unique_name_fallback: UniqueNameFallback::Always,
        path_separators: &[],
        builtin_methods: &[],
        builtin_functions: &[
            "echo", "printf", "cd", "test", "source", ".", "exit", "return", "set", "shift",
            "read", "eval", "exec", "trap", "export", "unset", "local", "declare", "true", "false",
            "command", "pwd",
        ],
    },
];

impl Language {
    pub fn spec(self) -> &'static LanguageSpec {
        LANGUAGES
            .iter()
            .find(|spec| spec.language == self)
            .expect("every language has a spec")
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn family(self) -> Family {
        match self {
            Language::Python => Family::Python,
            Language::JavaScript | Language::TypeScript | Language::Tsx => Family::Ecma,
            Language::Rust => Family::Rust,
            Language::Go => Family::Go,
            Language::Java | Language::Kotlin | Language::Scala => Family::Jvm,
            Language::C | Language::Cpp => Family::C,
            Language::CSharp => Family::CSharp,
            Language::Ruby => Family::Ruby,
            Language::Php => Family::Php,
            Language::Swift => Family::Swift,
            Language::Lua => Family::Lua,
            Language::Bash => Family::Bash,
        }
    }

    pub fn from_name(name: &str) -> Option<Language> {
        LANGUAGES
            .iter()
            .find(|spec| spec.name == name)
            .map(|spec| spec.language)
    }

    /// The language of a file, from its extension (case-insensitive).
    pub fn from_path(path: &Path) -> Option<Language> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        LANGUAGES
            .iter()
            .find(|spec| spec.extensions.contains(&extension.as_str()))
            .map(|spec| spec.language)
    }
}

/// Which language a `.h` header is: C unless the workspace is C++ (C++ sources and no C
/// sources, said by the walk) or the header's own text is C++ (namespaces, templates, classes
/// with bodies, access specifiers, `std::`). `CODEGRAPH_HEADER_LANGUAGE=c|cpp` forces one.
pub fn header_language(path: &Path, text: &str, cpp_workspace: bool) -> Option<Language> {
    let language = Language::from_path(path)?;
    let is_header = path
        .extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| extension.eq_ignore_ascii_case("h"));
    if language != Language::C || !is_header {
        return Some(language);
    }
    match std::env::var("CODEGRAPH_HEADER_LANGUAGE").as_deref() {
        Ok("c") => return Some(Language::C),
        Ok("cpp" | "c++") => return Some(Language::Cpp),
        _ => {}
    }
    Some(if cpp_workspace || looks_like_cpp(text) {
        Language::Cpp
    } else {
        Language::C
    })
}

/// Whether a header's text uses syntax that C does not have. Line comments are skipped; a
/// `extern "C"` guard (in C headers meant for C++ callers too) does not count.
pub fn looks_like_cpp(text: &str) -> bool {
    text.lines().take(5_000).any(|line| {
        let line = line.split("//").next().unwrap_or("").trim_start();
        line.starts_with("namespace ")
            || line.starts_with("template<")
            || line.starts_with("template <")
            || line.starts_with("public:")
            || line.starts_with("private:")
            || line.starts_with("protected:")
            || line.contains("std::")
            || (line.starts_with("class ")
                && !line.trim_end().ends_with(';')
                && (line.contains('{') || line.contains(':') || !line.contains('(')))
    })
}

/// Whether the walked files make a C++ workspace for `.h` headers: C++ sources, no C sources.
pub fn cpp_workspace<'a>(paths: impl Iterator<Item = &'a str>) -> bool {
    let (mut cpp, mut c) = (false, false);
    for path in paths {
        let extension = path.rsplit_once('.').map_or("", |(_, extension)| extension);
        match extension.to_ascii_lowercase().as_str() {
            "c" => c = true,
            "cpp" | "cc" | "cxx" | "c++" | "hpp" | "hh" | "hxx" => cpp = true,
            _ => {}
        }
    }
    cpp && !c
}

impl LanguageSpec {
    /// The language's combined query, compiled on first use. A query that does not compile is a
    /// bug in the shipped `.scm` files; the test suite compiles every one.
    pub fn query(&self) -> Result<&Query, &str> {
        self.query
            .get_or_init(|| {
                let source = self.query_source.concat();
                Query::new(&(self.grammar)(), &source)
                    .map_err(|error| format!("{} queries: {error}", self.name))
            })
            .as_ref()
            .map_err(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_query_compiles() {
        for spec in &LANGUAGES {
            if let Err(error) = spec.query() {
                panic!("{error}");
            }
        }
    }

    #[test]
    fn extensions_map_to_languages() {
        assert_eq!(
            Language::from_path(Path::new("a/b.py")),
            Some(Language::Python)
        );
        assert_eq!(Language::from_path(Path::new("x.TSX")), Some(Language::Tsx));
        assert_eq!(Language::from_path(Path::new("x.hpp")), Some(Language::Cpp));
        assert_eq!(Language::from_path(Path::new("Makefile")), None);
        let header = Path::new("include/x.h");
        let c_header =
            "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(void);\nstruct s { int a; };\n";
        let cpp_header = "#pragma once\nnamespace util {\nint f();\n}\n";
        let class_header = "class Widget : public Base {\npublic:\n  void draw();\n};\n";
        assert_eq!(header_language(header, c_header, false), Some(Language::C));
        assert_eq!(header_language(header, c_header, true), Some(Language::Cpp));
        assert_eq!(
            header_language(header, cpp_header, false),
            Some(Language::Cpp)
        );
        assert_eq!(
            header_language(header, class_header, false),
            Some(Language::Cpp)
        );
        assert_eq!(
            header_language(Path::new("x.c"), cpp_header, true),
            Some(Language::C)
        );
        assert!(cpp_workspace(["a.cpp", "b.h"].into_iter()));
        assert!(!cpp_workspace(["a.cpp", "b.c", "b.h"].into_iter()));
        assert!(!cpp_workspace(["b.h"].into_iter()));
        for spec in &LANGUAGES {
            for extension in spec.extensions {
                let path = format!("file.{extension}");
                assert_eq!(
                    Language::from_path(Path::new(&path)),
                    Some(spec.language),
                    "{path}"
                );
            }
        }
    }
}

pub mod syntax;
