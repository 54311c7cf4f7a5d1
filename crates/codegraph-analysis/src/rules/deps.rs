//! What counts as a dependency of a file, for the rules: its imports (of workspace files and of
//! external modules), and its resolved calls, inheritance and type uses that land in another
//! file of the workspace.
//!
//! Left out on purpose: containment and out-of-line definitions (structure, not dependency),
//! ambiguous references (never guessed), and calls resolved only because the name is unique in
//! the workspace (`Resolution::UniqueName`, a guess): a rule must not fire on a guess.

use codegraph_model::Name;
use rustc_hash::FxHashSet;

use super::{DependencyKind, Fix};
use codegraph_graph::{EntityId, FileNode, FilePath, Graph};
use codegraph_model::{LineSpan, Position, RelationKind, Resolution, Span};

/// What a dependency lands on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// An entity of another workspace file.
    Entity { file: FilePath, entity: EntityId },
    /// A module from outside the workspace, as the import writes it (`requests.adapters`,
    /// `net/http`, `node:fs`), and the name it imports from it, if any.
    External { module: Name, name: Option<Name> },
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Dependency {
    pub kind: DependencyKind,
    /// The import statement, or the referenced name.
    pub site: Span,
    pub target: Target,
}

impl Target {
    pub fn file(&self) -> Option<&FilePath> {
        match self {
            Target::Entity { file, .. } => Some(file),
            Target::External { .. } => None,
        }
    }

    /// The entity id, or the external module.
    pub fn display(&self) -> String {
        match self {
            Target::Entity { entity, .. } => entity.to_string(),
            Target::External { module, .. } => module.to_string(),
        }
    }
}

fn kind_of(relation: RelationKind) -> Option<DependencyKind> {
    match relation {
        RelationKind::Imports => Some(DependencyKind::Import),
        RelationKind::Calls => Some(DependencyKind::Call),
        RelationKind::Extends => Some(DependencyKind::Extends),
        RelationKind::Implements => Some(DependencyKind::Implements),
        RelationKind::Uses => Some(DependencyKind::TypeUse),
        RelationKind::Contains | RelationKind::Defines => None,
    }
}

/// The dependencies of one file, in the order of its edges, then its external imports.
pub fn dependencies(graph: &Graph, file: &FileNode) -> Vec<Dependency> {
    let mut found = Vec::new();
    let mut import_sites: FxHashSet<(u32, u32)> = FxHashSet::default();
    for edge in &file.resolved.edges {
        let Some(kind) = kind_of(edge.kind) else {
            continue;
        };
        if edge.resolution == Resolution::UniqueName {
            continue;
        }
        let Some(site) = file.site(edge) else {
            continue;
        };
        if kind == DependencyKind::Import {
            import_sites.insert((site.start_byte, site.end_byte));
        }
        let Some(location) = graph.location(&edge.to) else {
            continue;
        };
        if location.file == file.path {
            continue;
        }
        found.push(Dependency {
            kind,
            site,
            target: Target::Entity {
                file: location.file,
                entity: edge.to,
            },
        });
    }
    for import in &file.summary.imports {
        if import_sites.contains(&(import.span.start_byte, import.span.end_byte)) {
            continue;
        }
        found.push(Dependency {
            kind: DependencyKind::Import,
            site: import.span,
            target: Target::External {
                module: import.path,
                name: import.name,
            },
        });
    }
    found
}

/// The source text of a site: its first line, trimmed, at most 160 bytes.
pub fn reference_text(text: &str, site: Span) -> String {
    let found = text
        .get(site.start_byte as usize..site.end_byte as usize)
        .unwrap_or_default();
    let first = found.lines().next().unwrap_or_default().trim();
    if first.len() <= 160 {
        return first.to_string();
    }
    let mut end = 160;
    while !first.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &first[..end])
}

/// "Remove the import": the whole lines of the import statement when nothing else shares them
/// (a trailing `;` or comment aside; Go's `import "x"` whose site is the spec included), else
/// exactly the statement.
pub fn remove_import(text: &str, site: LineSpan) -> Option<Fix> {
    let start = site.start_byte as usize;
    let end = site.end_byte as usize;
    if start > end
        || end > text.len()
        || !text.is_char_boundary(start)
        || !text.is_char_boundary(end)
    {
        return None;
    }
    let line_start = text[..start].rfind('\n').map_or(0, |index| index + 1);
    let line_end = text[end..]
        .find('\n')
        .map_or(text.len(), |index| end + index);
    let before = text[line_start..start].trim();
    let after = text[end..line_end].trim();
    let alone = (before.is_empty() || before == "import")
        && (after.is_empty()
            || after == ";"
            || after.starts_with("//")
            || after.starts_with('#')
            || after.starts_with("; //"));
    let title = "Remove the import".to_string();
    if alone {
        // Through the newline, so no empty line is left behind.
        let (delete_end, end_position) = if line_end < text.len() {
            (
                line_end + 1,
                Position {
                    line: site.end.line + 1,
                    column: 0,
                },
            )
        } else {
            (
                line_end,
                Position {
                    line: site.end.line,
                    column: (line_end - text[..line_end].rfind('\n').map_or(0, |index| index + 1))
                        as u32,
                },
            )
        };
        return Some(Fix {
            title,
            start_line: site.start.line + 1,
            end_line: site.end.line + 1,
            delete: LineSpan {
                start_byte: line_start as u32,
                end_byte: delete_end as u32,
                start: Position {
                    line: site.start.line,
                    column: 0,
                },
                end: end_position,
            },
        });
    }
    Some(Fix {
        title,
        start_line: site.start.line + 1,
        end_line: site.end.line + 1,
        delete: site,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(text: &str, needle: &str) -> LineSpan {
        let start = text.find(needle).unwrap();
        let end = start + needle.len();
        let position = |byte: usize| {
            let line = text[..byte].matches('\n').count() as u32;
            let column = (byte - text[..byte].rfind('\n').map_or(0, |index| index + 1)) as u32;
            Position { line, column }
        };
        LineSpan {
            start_byte: start as u32,
            end_byte: end as u32,
            start: position(start),
            end: position(end),
        }
    }

    fn apply(text: &str, fix: &Fix) -> String {
        format!(
            "{}{}",
            &text[..fix.delete.start_byte as usize],
            &text[fix.delete.end_byte as usize..]
        )
    }

    #[test]
    fn removing_an_import_takes_its_whole_lines_when_it_is_alone() {
        let python = "import os\nfrom src.infra.db import connect  # db\nx = 1\n";
        let fix = remove_import(python, site(python, "from src.infra.db import connect")).unwrap();
        assert_eq!(apply(python, &fix), "import os\nx = 1\n");
        assert_eq!((fix.start_line, fix.end_line), (2, 2));

        let go = "package a\n\nimport \"example.com/app/infra\"\n\nfunc f() {}";
        let fix = remove_import(go, site(go, "\"example.com/app/infra\"")).unwrap();
        assert_eq!(apply(go, &fix), "package a\n\n\nfunc f() {}");

        let typescript = "import { connect } from \"../infra/db\";";
        let fix = remove_import(
            typescript,
            site(typescript, "import { connect } from \"../infra/db\""),
        )
        .unwrap();
        assert_eq!(apply(typescript, &fix), "");
        assert_eq!(
            fix.delete.end,
            Position {
                line: 0,
                column: 38
            }
        );

        let shared = "let a = 1; use crate::infra::db;\n";
        let fix = remove_import(shared, site(shared, "use crate::infra::db;")).unwrap();
        assert_eq!(apply(shared, &fix), "let a = 1; \n");
    }
}
