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

use codegraph_graph::{Entity, Graph, query};
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
    let mut namer = Namer::new(packages::Packages::new(root));
    let mut exported = Exported::default();
    let mut languages: FxHashMap<&'static str, usize> = FxHashMap::default();
    let mut documents = Vec::with_capacity(graph.file_count());
    // Namespace symbols (a Go or Java package spans files): described once.
    let mut described: FxHashSet<String> = FxHashSet::default();
    for file in graph.files() {
        let language = language_name(file.language);
        *languages.entry(language).or_default() += 1;
        let mut document = Document {
            language: language.to_string(),
            relative_path: file.path.to_string(),
            position_encoding: PositionEncoding::UTF8CodeUnitOffsetFromLineStart.into(),
            ..Document::default()
        };
        // Definitions, and the symbols of this file's entities for what follows.
        let mut locals = 0usize;
        let mut own: FxHashMap<&str, String> = FxHashMap::default();
        let entities = graph.file_entities(&file.path);
        for entity in &entities {
            let symbol = match namer.entity(graph, &entity.id) {
                Some(Named::Global(symbol)) => symbol,
                Some(Named::Local) => {
                    locals += 1;
                    format!("local {locals}")
                }
                None => continue,
            };
            let is_module = entity.kind == EntityKind::Module;
            let name_span = if entity.name_span.is_empty() && !is_module {
                entity.span
            } else {
                entity.name_span
            };
            document.occurrences.push(Occurrence {
                range: range(&name_span),
                symbol: symbol.clone(),
                symbol_roles: SymbolRole::Definition as i32,
                enclosing_range: if is_module {
                    Vec::new()
                } else {
                    range(&entity.span)
                },
                ..Occurrence::default()
            });
            exported.definitions += 1;
            if !is_module || described.insert(symbol.clone()) {
                let information = information(graph, &mut namer, entity, &symbol, &own);
                exported.relationships += information.relationships.len();
                document.symbols.push(information);
            }
            own.insert(&entity.id, symbol);
        }
        // References: every proven edge with a site.
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
                exported.guesses_left_out += 1;
                continue;
            }
            let symbol = match own.get(&*edge.to) {
                Some(symbol) => symbol.clone(),
                None => match namer.entity(graph, &edge.to) {
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
            exported.references += 1;
        }
        exported.ambiguous_left_out += file.resolved.ambiguous.len();
        // References into dependencies.
        let prefix = namer.prefix(file);
        for reference in &file.resolved.external {
            if let Some(symbol) = external::symbol(file, prefix.package.as_deref(), reference)
                && let Some(site) = file.summary.refs.get(reference.reference as usize)
            {
                document.occurrences.push(Occurrence {
                    range: range(&file.summary.locate(site.span)),
                    symbol,
                    ..Occurrence::default()
                });
                exported.external_references += 1;
            }
        }
        // One occurrence per site and symbol (`impl Trait for Type` is both a use and an
        // implementation of `Trait`; one import statement may bind a name twice).
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
        // Only references repeat: a definition is one per entity, an external one per call.
        exported.references -= before - document.occurrences.len();
        documents.push(document);
    }
    exported.documents = documents.len();
    let mut languages: Vec<(String, usize)> = languages
        .into_iter()
        .map(|(language, count)| (language.to_string(), count))
        .collect();
    languages.sort();
    exported.languages = languages;
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let index = Index {
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
    };
    (index, exported)
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
