//! The graph as a SCIP index (<https://github.com/scip-code/scip>), for Sourcegraph and the
//! other tools that read one: a document per file, a definition occurrence per entity, a
//! reference occurrence per edge that is proven, symbol information with documentation and
//! relationships, and references into dependencies as symbols of their packages.
//!
//! What is left out, and why:
//! - ambiguous references (kept aside by the graph, never edges) and `unique_name` edges (a
//!   guess: the only definition with that name) are not occurrences: an index reader takes every
//!   occurrence as precise. [`Exported`] counts both;
//! - `contains` and `defines` edges are structure, said by `enclosing_symbol` instead;
//! - parameters and locals (the graph has no entities for them).
//!
//! Positions are the graph's: zero-based lines, columns in UTF-8 bytes, declared as
//! `UTF8CodeUnitOffsetFromLineStart` on every document.

mod external;
pub mod packages;
pub mod symbols;

use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};
use scip::types::{
    Document, Index, Metadata, Occurrence, PositionEncoding, Relationship, Signature,
    SymbolInformation, SymbolRole, TextEncoding, ToolInfo, symbol_information::Kind,
};
use serde::Serialize;

use codegraph_graph::{Entity, FileNode, Graph, query};
use codegraph_lang::Language;
use codegraph_model::{EntityKind, LineSpan, RelationKind, Resolution};
use symbols::{Named, Namer};

/// What an export wrote and what it left out.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize)]
pub struct Exported {
    pub documents: usize,
    pub definitions: usize,
    pub references: usize,
    /// References into dependencies, as symbols of their packages.
    pub external_references: usize,
    pub relationships: usize,
    /// Edges resolved by a unique-name guess: not written.
    pub guesses_left_out: usize,
    /// References the graph kept aside as ambiguous: not written.
    pub ambiguous_left_out: usize,
    /// Languages of the documents, with their counts.
    pub languages: Vec<(String, usize)>,
}

/// The SCIP name of a language (the `Language` enum of scip.proto).
pub fn language_name(language: Language) -> &'static str {
    match language {
        Language::Python => "Python",
        Language::JavaScript => "JavaScript",
        Language::TypeScript => "TypeScript",
        Language::Tsx => "TypeScriptReact",
        Language::Rust => "Rust",
        Language::Go => "Go",
        Language::Java => "Java",
        Language::C => "C",
        Language::Cpp => "CPP",
        Language::CSharp => "CSharp",
        Language::Ruby => "Ruby",
        Language::Php => "PHP",
        Language::Kotlin => "Kotlin",
        Language::Swift => "Swift",
        Language::Scala => "Scala",
        Language::Lua => "Lua",
        Language::Bash => "ShellScript",
    }
}

fn kind(kind: EntityKind) -> Kind {
    match kind {
        EntityKind::Module => Kind::Module,
        EntityKind::Class => Kind::Class,
        EntityKind::Function => Kind::Function,
        EntityKind::Method => Kind::Method,
        EntityKind::Interface => Kind::Interface,
        EntityKind::Enum => Kind::Enum,
        EntityKind::Struct => Kind::Struct,
        EntityKind::Trait => Kind::Trait,
    }
}

/// A SCIP range: `[line, start, end]` on one line, `[start line, start, end line, end]` across.
fn range(span: &LineSpan) -> Vec<i32> {
    let (start, end) = (span.start, span.end);
    if start.line == end.line {
        vec![start.line as i32, start.column as i32, end.column as i32]
    } else {
        vec![
            start.line as i32,
            start.column as i32,
            end.line as i32,
            end.column as i32,
        ]
    }
}

/// Whether an edge is proven enough to be an occurrence.
fn precise(resolution: Resolution) -> bool {
    !matches!(resolution, Resolution::UniqueName)
}

/// Builds the SCIP index of `graph`, reading the manifests under `root` for package names.
pub fn export(graph: &Graph, root: &Path, arguments: Vec<String>) -> (Index, Exported) {
    let mut writer = Writer {
        graph,
        namer: Namer::new(packages::Packages::new(root)),
        exported: Exported::default(),
        described: FxHashSet::default(),
    };
    let mut languages: FxHashMap<&'static str, usize> = FxHashMap::default();
    let mut documents = Vec::with_capacity(graph.file_count());
    for file in graph.files() {
        *languages.entry(language_name(file.language)).or_default() += 1;
        documents.push(writer.document(file));
    }
    let mut exported = writer.exported;
    exported.documents = documents.len();
    let mut languages: Vec<(String, usize)> = languages
        .into_iter()
        .map(|(language, count)| (language.to_string(), count))
        .collect();
    languages.sort();
    exported.languages = languages;
    (index(root, arguments, documents), exported)
}

/// The index of the documents, with the tool and the project's root.
fn index(root: &Path, arguments: Vec<String>, documents: Vec<Document>) -> Index {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    Index {
        metadata: Some(Metadata {
            tool_info: Some(ToolInfo {
                name: "codegraph".to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
                arguments,
                ..ToolInfo::default()
            })
            .into(),
            project_root: format!("file://{}", root.display()),
            text_document_encoding: TextEncoding::UTF8.into(),
            ..Metadata::default()
        })
        .into(),
        documents,
        ..Index::default()
    }
}

/// Writes the documents one file at a time, counting what it writes and leaves out.
struct Writer<'g> {
    graph: &'g Graph,
    namer: Namer,
    exported: Exported,
    /// Namespace symbols (a Go or Java package spans files): described once.
    described: FxHashSet<String>,
}

impl Writer<'_> {
    /// One file's document: its definitions, proven references and references into
    /// dependencies, one occurrence per site and symbol.
    fn document(&mut self, file: &FileNode) -> Document {
        let mut document = Document {
            language: language_name(file.language).to_string(),
            relative_path: file.path.to_string(),
            position_encoding: PositionEncoding::UTF8CodeUnitOffsetFromLineStart.into(),
            ..Document::default()
        };
        let entities = self.graph.file_entities(&file.path);
        let own = self.definitions(&entities, &mut document);
        self.references(file, &own, &mut document);
        self.exported.ambiguous_left_out += file.resolved.ambiguous.len();
        self.external_references(file, &mut document);
        let repeated = dedup_occurrences(&mut document);
        // Only references repeat: a definition is one per entity, an external one per call.
        self.exported.references -= repeated;
        document
    }

    /// The definitions of the file's entities, with their symbol information; returns the
    /// symbol of each entity, for the references that follow.
    fn definitions<'e>(
        &mut self,
        entities: &'e [Entity],
        document: &mut Document,
    ) -> FxHashMap<&'e str, String> {
        let mut locals = 0usize;
        let mut own: FxHashMap<&str, String> = FxHashMap::default();
        for entity in entities {
            let symbol = match self.namer.entity(self.graph, &entity.id) {
                Some(Named::Global(symbol)) => symbol,
                Some(Named::Local) => {
                    locals += 1;
                    format!("local {locals}")
                }
                None => continue,
            };
            document.occurrences.push(definition(entity, &symbol));
            self.exported.definitions += 1;
            let is_module = entity.kind == EntityKind::Module;
            if !is_module || self.described.insert(symbol.clone()) {
                let information = information(self.graph, &mut self.namer, entity, &symbol, &own);
                self.exported.relationships += information.relationships.len();
                document.symbols.push(information);
            }
            own.insert(&entity.id, symbol);
        }
        own
    }

    /// References: every proven edge with a site.
    fn references(
        &mut self,
        file: &FileNode,
        own: &FxHashMap<&str, String>,
        document: &mut Document,
    ) {
        for edge in &file.resolved.edges {
            let Some(site) = file.site(edge) else {
                continue;
            };
            let role = match edge.kind {
                RelationKind::Calls
                | RelationKind::Uses
                | RelationKind::Extends
                | RelationKind::Implements => 0,
                RelationKind::Imports => SymbolRole::Import as i32,
                RelationKind::Contains | RelationKind::Defines => continue,
            };
            if !precise(edge.resolution) {
                self.exported.guesses_left_out += 1;
                continue;
            }
            let symbol = match own.get(&*edge.to) {
                Some(symbol) => symbol.clone(),
                None => match self.namer.entity(self.graph, &edge.to) {
                    Some(Named::Global(symbol)) => symbol,
                    // A local symbol of another document cannot be named from here.
                    _ => continue,
                },
            };
            document.occurrences.push(Occurrence {
                range: range(&file.summary.locate(site)),
                symbol,
                symbol_roles: role,
                ..Occurrence::default()
            });
            self.exported.references += 1;
        }
    }

    /// References into dependencies, as symbols of their packages.
    fn external_references(&mut self, file: &FileNode, document: &mut Document) {
        let prefix = self.namer.prefix(file);
        for reference in &file.resolved.external {
            if let Some(symbol) = external::symbol(file, prefix.package.as_deref(), reference)
                && let Some(site) = file.summary.refs.get(reference.reference as usize)
            {
                document.occurrences.push(Occurrence {
                    range: range(&file.summary.locate(site.span)),
                    symbol,
                    ..Occurrence::default()
                });
                self.exported.external_references += 1;
            }
        }
    }
}

/// The definition occurrence of an entity: at its name (its whole span when it has no name
/// span), enclosing its span (a module encloses nothing: it is the document).
fn definition(entity: &Entity, symbol: &str) -> Occurrence {
    let is_module = entity.kind == EntityKind::Module;
    let name_span = if entity.name_span.is_empty() && !is_module {
        entity.span
    } else {
        entity.name_span
    };
    Occurrence {
        range: range(&name_span),
        symbol: symbol.to_string(),
        symbol_roles: SymbolRole::Definition as i32,
        enclosing_range: if is_module {
            Vec::new()
        } else {
            range(&entity.span)
        },
        ..Occurrence::default()
    }
}

/// Sorts the document's occurrences and keeps one per site, symbol and role (`impl Trait for
/// Type` is both a use and an implementation of `Trait`; one import statement may bind a name
/// twice). Returns how many it dropped.
fn dedup_occurrences(document: &mut Document) -> usize {
    document.occurrences.sort_by(|left, right| {
        (&left.range, &left.symbol, left.symbol_roles).cmp(&(
            &right.range,
            &right.symbol,
            right.symbol_roles,
        ))
    });
    let before = document.occurrences.len();
    document.occurrences.dedup_by(|later, earlier| {
        later.range == earlier.range
            && later.symbol == earlier.symbol
            && later.symbol_roles == earlier.symbol_roles
    });
    before - document.occurrences.len()
}

/// An entity's symbol information: kind, name, signature, docstring, enclosing symbol, and its
/// relationships (the types it extends or implements; the members a method implements).
fn information(
    graph: &Graph,
    namer: &mut Namer,
    entity: &Entity,
    symbol: &str,
    own: &FxHashMap<&str, String>,
) -> SymbolInformation {
    let mut relationships = Vec::new();
    let mut relate = |target: &str, reference: bool, namer: &mut Namer| {
        if let Some(Named::Global(target)) = namer.entity(graph, target)
            && !relationships
                .iter()
                .any(|known: &Relationship| known.symbol == target)
        {
            relationships.push(Relationship {
                symbol: target,
                is_implementation: true,
                is_reference: reference,
                ..Relationship::default()
            });
        }
    };
    if entity.kind.is_type() {
        for (base, _) in query::supertypes(graph, &entity.id) {
            relate(&base.id, false, namer);
        }
    } else if entity.kind == EntityKind::Method
        && let Some(owner) = query::owner_type(graph, entity)
    {
        for (base, _) in query::supertypes(graph, &owner) {
            for member in query::members(graph, &base.id) {
                if member.name == entity.name && member.kind == EntityKind::Method {
                    relate(&member.id, true, namer);
                }
            }
        }
    }
    let enclosing_symbol = entity
        .parent
        .as_deref()
        .filter(|parent| graph.kind_of(parent) != Some(EntityKind::Module))
        .and_then(|parent| own.get(parent).cloned())
        .unwrap_or_default();
    SymbolInformation {
        symbol: symbol.to_string(),
        documentation: entity.docstring.iter().cloned().collect(),
        relationships,
        kind: kind(entity.kind).into(),
        display_name: entity.name.to_string(),
        signature_documentation: entity
            .signature
            .as_ref()
            .map(|text| Signature {
                language: language_name(entity.language).to_string(),
                text: text.clone(),
                ..Signature::default()
            })
            .into(),
        enclosing_symbol,
        ..SymbolInformation::default()
    }
}

/// Writes the index to `path`: into a new file beside it (created exclusively, so a planted
/// file or symlink of that name is never written through), then renamed into place.
pub fn write(index: &Index, path: &Path) -> anyhow::Result<u64> {
    use anyhow::Context;
    use protobuf::Message;
    let bytes = index.write_to_bytes().context("encoding the SCIP index")?;
    let mut name = path
        .file_name()
        .context("the output path names no file")?
        .to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    let temporary = path.with_file_name(name);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temporary)
        .with_context(|| format!("creating {}", temporary.display()))?;
    let written = std::io::Write::write_all(&mut file, &bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temporary, path));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(error).with_context(|| format!("writing {}", path.display()));
    }
    Ok(bytes.len() as u64)
}
