//! The core vocabulary: entity and relation kinds, how an edge was resolved, source spans.
//!
//! These types carry no protocol concerns; the `lsp` and `mcp` doors convert them at the edge.

use serde::{Deserialize, Serialize};
use std::fmt;

mod lines;
mod name;
pub use lines::LineTable;
pub use name::{ByNumber, Name, footprint as names_footprint, texts as interned_texts};
pub use name::{NameCodec, with_codec};

/// What kind of code entity a definition is. The names are the wire names of the API reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntityKind {
    Module,
    Class,
    Function,
    Method,
    Interface,
    Enum,
    Struct,
    Trait,
}

impl EntityKind {
    pub const ALL: [EntityKind; 8] = [
        EntityKind::Module,
        EntityKind::Class,
        EntityKind::Function,
        EntityKind::Method,
        EntityKind::Interface,
        EntityKind::Enum,
        EntityKind::Struct,
        EntityKind::Trait,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EntityKind::Module => "module",
            EntityKind::Class => "class",
            EntityKind::Function => "function",
            EntityKind::Method => "method",
            EntityKind::Interface => "interface",
            EntityKind::Enum => "enum",
            EntityKind::Struct => "struct",
            EntityKind::Trait => "trait",
        }
    }

    pub fn parse(text: &str) -> Option<EntityKind> {
        EntityKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }

    /// Types that can hold members and take part in inheritance.
    pub fn is_type(self) -> bool {
        matches!(
            self,
            EntityKind::Class
                | EntityKind::Interface
                | EntityKind::Enum
                | EntityKind::Struct
                | EntityKind::Trait
        )
    }

    /// Things a call can land on: functions, methods, and types (a constructor call).
    pub fn is_callable(self) -> bool {
        matches!(self, EntityKind::Function | EntityKind::Method) || self.is_type()
    }
}

impl fmt::Display for EntityKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// The kind of an edge between two entities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RelationKind {
    /// A call site in the source entity lands on the target (a function, a method, or a type's constructor).
    Calls,
    /// Lexical nesting: a module contains its top-level definitions, a class its methods.
    Contains,
    /// A module imports the target (a module or a definition).
    Imports,
    /// A type implements an interface or trait.
    Implements,
    /// A type extends a base type.
    Extends,
    /// A non-call reference to a type (annotations, parameter and field types).
    Uses,
    /// A type defines a member outside its own body (Rust `impl` blocks, Go receiver methods,
    /// C++ out-of-line `Type::method`, Swift and Kotlin extensions).
    Defines,
}

impl RelationKind {
    pub const ALL: [RelationKind; 7] = [
        RelationKind::Calls,
        RelationKind::Contains,
        RelationKind::Imports,
        RelationKind::Implements,
        RelationKind::Extends,
        RelationKind::Uses,
        RelationKind::Defines,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RelationKind::Calls => "calls",
            RelationKind::Contains => "contains",
            RelationKind::Imports => "imports",
            RelationKind::Implements => "implements",
            RelationKind::Extends => "extends",
            RelationKind::Uses => "uses",
            RelationKind::Defines => "defines",
        }
    }
}

impl fmt::Display for RelationKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// How the target of an edge was found. Clients filter on this; an ambiguous reference never
/// becomes an edge, it is kept aside with its candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    /// Structural: containment and out-of-line definitions, known from the syntax alone.
    Syntax,
    /// Found in an enclosing scope (a nested function, a member of the enclosing class).
    Scope,
    /// Defined at the top level of the same file.
    SameFile,
    /// Through an import, a module alias or an include.
    Import,
    /// Through the receiver's type: `self`/`this`, a class name, a typed variable, or a type
    /// inferred from a constructor, a declared return type or a field.
    ReceiverType,
    /// Through a receiver typed by an interface, trait, abstract base or generic bound: the
    /// target is the declared member; the method that runs is one of its implementations.
    Dispatch,
    /// Visible because it lives in the same package, namespace or directory.
    SamePackage,
    /// Through an explicit qualifier naming a namespace or module (`util::format_name`,
    /// `Util::Format.format_name`).
    Qualified,
    /// The only definition with that name in the workspace.
    UniqueName,
    /// Inferred, not declared: a Go type implements an interface because its method set covers
    /// the interface's (Go's interfaces are satisfied implicitly).
    MethodSet,
}

impl Resolution {
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::Syntax => "syntax",
            Resolution::Scope => "scope",
            Resolution::SameFile => "same_file",
            Resolution::Import => "import",
            Resolution::ReceiverType => "receiver_type",
            Resolution::Dispatch => "dispatch",
            Resolution::SamePackage => "same_package",
            Resolution::Qualified => "qualified",
            Resolution::UniqueName => "unique_name",
            Resolution::MethodSet => "method_set",
        }
    }
}

impl fmt::Display for Resolution {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// What a file is for, from the conventions of its language and ecosystem (its path, and for
/// generated files a marker in its first lines): see `lang::file_class`. Search and analysis
/// rank production code first and filter on this.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum FileClass {
    /// The code the project ships: everything not recognised as one of the others.
    #[default]
    Production,
    /// Tests and benchmarks, and the helpers that live with them.
    Test,
    /// Data and sample code that tests read (`fixtures/`, `testdata/`, `__snapshots__/`).
    Fixture,
    /// Examples, demos and the code of documentation.
    Example,
    /// Written by a tool: bundles, minified files, protobuf and other generated sources,
    /// numbered migrations, files marked `Code generated ... DO NOT EDIT` or `@generated`.
    Generated,
    /// Someone else's code copied in: `vendor/`, `node_modules/`, `third_party/`.
    Vendored,
}

impl FileClass {
    pub const ALL: [FileClass; 6] = [
        FileClass::Production,
        FileClass::Test,
        FileClass::Fixture,
        FileClass::Example,
        FileClass::Generated,
        FileClass::Vendored,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FileClass::Production => "production",
            FileClass::Test => "test",
            FileClass::Fixture => "fixture",
            FileClass::Example => "example",
            FileClass::Generated => "generated",
            FileClass::Vendored => "vendored",
        }
    }

    /// The class named `text` (`tests` and `examples` are accepted too).
    pub fn parse(text: &str) -> Option<FileClass> {
        let text = text.trim().to_ascii_lowercase();
        let singular = text.strip_suffix('s').unwrap_or(&text);
        FileClass::ALL
            .into_iter()
            .find(|class| class.as_str() == text || class.as_str() == singular)
    }
}

impl fmt::Display for FileClass {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// A position in a file: zero-based line and zero-based column counted in UTF-8 bytes.
/// Protocol doors convert columns to the client's encoding.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

/// A range of source text in bytes: what the summaries and the graph store (eight bytes; its
/// lines and columns come from the file's [`LineTable`], `FileSummary::locate`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
pub struct Span {
    pub start_byte: u32,
    pub end_byte: u32,
}

/// A range of source text in bytes and in line/column positions: what answers carry.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
pub struct LineSpan {
    pub start_byte: u32,
    pub end_byte: u32,
    pub start: Position,
    pub end: Position,
}

impl LineSpan {
    pub fn is_empty(&self) -> bool {
        self.start_byte == self.end_byte
    }
}

impl Span {
    pub fn new(start_byte: u32, end_byte: u32) -> Span {
        Span {
            start_byte,
            end_byte,
        }
    }

    pub fn from_node(node: tree_sitter::Node<'_>) -> Span {
        Span {
            start_byte: node.start_byte() as u32,
            end_byte: node.end_byte() as u32,
        }
    }

    pub fn contains_byte(&self, byte: u32) -> bool {
        self.start_byte <= byte && byte <= self.end_byte
    }

    pub fn contains(&self, other: &Span) -> bool {
        self.start_byte <= other.start_byte && other.end_byte <= self.end_byte
    }

    pub fn len(&self) -> u32 {
        self.end_byte - self.start_byte
    }

    pub fn is_empty(&self) -> bool {
        self.start_byte == self.end_byte
    }
}

pub mod cancel;
pub mod contain;
pub mod walk;
