//! The one place where core types meet LSP types: URIs and paths, client positions and byte
//! offsets (UTF-8 or UTF-16 columns), spans and ranges, entities and symbols.
//!
//! Core spans carry UTF-8 byte columns; the client counts in the negotiated encoding. A client
//! counting UTF-8, or a file holding only ASCII (`FileNode::ascii`), needs no text; otherwise the
//! conversion goes through the text of the file the span came from (`FileNode::text`, read again
//! from disk for a file no editor has open).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tower_lsp_server::ls_types::{
    CallHierarchyItem, DocumentSymbol, Location, Position, Range, SymbolKind, Uri,
};

use codegraph_graph::{Entity, FileNode, Graph};
use codegraph_lang::syntax::{floor_char_boundary, utf8_to_utf16_column, utf16_to_utf8_column};
use codegraph_model::LineTable;
use codegraph_model::{EntityKind, LineSpan};
use codegraph_world::buffer::{ClientPosition, ColumnEncoding};

/// A file's text with its line table, for converting several positions of one file.
pub struct FileText<'a> {
    text: &'a str,
    lines: LineTable,
    encoding: ColumnEncoding,
}

impl<'a> FileText<'a> {
    pub fn new(text: &'a str, encoding: ColumnEncoding) -> FileText<'a> {
        FileText {
            text,
            lines: LineTable::new(text),
            encoding,
        }
    }

    /// The byte offset of a client position; `None` when the line is past the end. A column
    /// past the line's end is clamped to it (clients do send those).
    pub fn byte_of(&self, position: Position) -> Option<u32> {
        let line = self.lines.line_range(self.text, position.line as usize)?;
        let line_text = &self.text[line.clone()];
        let column = match self.encoding {
            ColumnEncoding::Utf8 => floor_char_boundary(line_text, position.character as usize),
            ColumnEncoding::Utf16 => utf16_to_utf8_column(line_text, position.character as usize),
        };
        Some((line.start + column) as u32)
    }

    /// A core position (UTF-8 byte column) as a client position.
    pub fn position(&self, position: codegraph_model::Position) -> Position {
        let Some(line) = self.lines.line_range(self.text, position.line as usize) else {
            // Past the end: the end of the text.
            let last = self.lines.lines().saturating_sub(1);
            let end = self
                .lines
                .line_range(self.text, last)
                .map_or(0, |range| self.column(&self.text[range], usize::MAX));
            return Position::new(last as u32, end);
        };
        Position::new(
            position.line,
            self.column(&self.text[line], position.column as usize),
        )
    }

    fn column(&self, line_text: &str, utf8_column: usize) -> u32 {
        match self.encoding {
            ColumnEncoding::Utf8 => floor_char_boundary(line_text, utf8_column) as u32,
            ColumnEncoding::Utf16 => utf8_to_utf16_column(line_text, utf8_column) as u32,
        }
    }

    pub fn range(&self, span: LineSpan) -> Range {
        Range::new(self.position(span.start), self.position(span.end))
    }
}

/// A span of `text` as a client range. A span carries each end's byte offset and byte column, so
/// the end's line prefix is `text[byte - column..byte]` and no line table of the whole file is
/// needed: building one per range made call hierarchies and workspace symbols cost a scan of
/// every large file they touched. Falls back to the line table when the span does not fit the
/// text.
pub fn span_range(text: &str, span: LineSpan, encoding: ColumnEncoding) -> Range {
    let start = position_at(text, span.start_byte, span.start, encoding);
    let end = position_at(text, span.end_byte, span.end, encoding);
    match (start, end) {
        (Some(start), Some(end)) => Range::new(start, end),
        _ => FileText::new(text, encoding).range(span),
    }
}

/// A span of `file` as a client range. Columns are the same in both encodings when the client
/// counts UTF-8 or the file is ASCII: then the file's text is not read. A file that changed on
/// disk since it was indexed (no text) gets its byte columns.
pub fn file_range(file: &FileNode, span: LineSpan, encoding: ColumnEncoding) -> Range {
    if encoding == ColumnEncoding::Utf8 || file.ascii {
        return byte_columns(span);
    }
    match file.text() {
        Some(text) => span_range(&text, span, encoding),
        None => byte_columns(span),
    }
}

fn byte_columns(span: LineSpan) -> Range {
    Range::new(
        Position::new(span.start.line, span.start.column),
        Position::new(span.end.line, span.end.column),
    )
}

/// The client position of a core position whose byte offset is `byte`, if they agree.
fn position_at(
    text: &str,
    byte: u32,
    position: codegraph_model::Position,
    encoding: ColumnEncoding,
) -> Option<Position> {
    let byte = byte as usize;
    let line_start = byte.checked_sub(position.column as usize)?;
    // `get` checks the bounds and the character boundaries.
    let prefix = text.get(line_start..byte)?;
    let at_line_start = line_start == 0 || text.as_bytes()[line_start - 1] == b'\n';
    if !at_line_start || prefix.contains('\n') {
        return None;
    }
    let column = match encoding {
        ColumnEncoding::Utf8 => prefix.len(),
        ColumnEncoding::Utf16 => prefix.chars().map(char::len_utf16).sum(),
    };
    Some(Position::new(position.line, column as u32))
}

pub fn client_position(position: Position) -> ClientPosition {
    ClientPosition {
        line: position.line,
        column: position.character,
    }
}

pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    uri.to_file_path().map(|path| path.into_owned())
}

pub fn uri_of(path: &Path) -> Option<Uri> {
    Uri::from_file_path(path)
}

pub fn symbol_kind(kind: EntityKind) -> SymbolKind {
    match kind {
        EntityKind::Module => SymbolKind::MODULE,
        EntityKind::Class => SymbolKind::CLASS,
        EntityKind::Function => SymbolKind::FUNCTION,
        EntityKind::Method => SymbolKind::METHOD,
        EntityKind::Interface | EntityKind::Trait => SymbolKind::INTERFACE,
        EntityKind::Enum => SymbolKind::ENUM,
        EntityKind::Struct => SymbolKind::STRUCT,
    }
}

/// Converts entities and spans of one snapshot to client coordinates, reading each file's text
/// from the snapshot.
pub struct Converter<'a> {
    pub graph: &'a Graph,
    /// The workspace folder as the client named it; result URIs are built under it.
    pub client_root: &'a Path,
    pub encoding: ColumnEncoding,
}

impl Converter<'_> {
    pub fn uri(&self, relative: &str) -> Option<Uri> {
        uri_of(&self.client_root.join(relative))
    }

    pub fn range(&self, relative: &str, span: LineSpan) -> Option<Range> {
        let file = self.graph.file(relative)?;
        Some(file_range(file, span, self.encoding))
    }

    pub fn location(&self, relative: &str, span: LineSpan) -> Option<Location> {
        Some(Location::new(
            self.uri(relative)?,
            self.range(relative, span)?,
        ))
    }

    /// Where an entity's name is (the file's start for a file's own module; a namespace or an
    /// inline module has a name of its own).
    pub fn entity_location(&self, entity: &Entity) -> Option<Location> {
        let span = if entity.kind == EntityKind::Module && entity.parent.is_none() {
            LineSpan::default()
        } else {
            entity.name_span
        };
        self.location(&entity.file_path, span)
    }

    /// What VS Code shows after a call hierarchy item's name: where it is, `path:line`, after
    /// the entity that contains it (`AuthService · shop/auth/service.py:24`) unless that is the
    /// file itself, as the languages' own servers show a container and a place (the signature
    /// is in hover).
    pub fn call_hierarchy_detail(&self, entity: &Entity) -> String {
        let place = format!("{}:{}", entity.file_path, entity.start_line);
        let container = entity
            .parent
            .as_deref()
            .and_then(|parent| self.graph.entity(parent))
            // The file's own module (no parent of its own) is already said by the path.
            .filter(|parent| parent.kind != EntityKind::Module || parent.parent.is_some());
        match container {
            Some(container) => format!("{} · {place}", container.name),
            None => place,
        }
    }

    pub fn call_hierarchy_item(&self, entity: &Entity) -> Option<CallHierarchyItem> {
        let file = self.graph.file(&entity.file_path)?;
        Some(CallHierarchyItem {
            name: entity.name.to_string(),
            kind: symbol_kind(entity.kind),
            tags: None,
            detail: Some(self.call_hierarchy_detail(entity)),
            uri: self.uri(&entity.file_path)?,
            range: file_range(file, entity.span, self.encoding),
            selection_range: file_range(file, entity.name_span, self.encoding),
            data: Some(serde_json::json!({
                "root": self.client_root,
                "id": &*entity.id,
            })),
        })
    }

    /// The file's definitions as a tree, following each entity's parent. Namespaces, modules
    /// and packages declared in the file are containers like classes; only the file's own
    /// module entity is left out.
    pub fn document_symbols(&self, relative: &str) -> Vec<DocumentSymbol> {
        let Some(file) = self.graph.file(relative) else {
            return Vec::new();
        };
        let entities = self.graph.file_entities(relative);
        let module_id = file.module_id;
        let text = (self.encoding == ColumnEncoding::Utf16 && !file.ascii)
            .then(|| file.text())
            .flatten();
        match &text {
            Some(text) => {
                let text = FileText::new(text, self.encoding);
                build_symbols(&entities, &module_id, &module_id, &|span| text.range(span))
            }
            None => build_symbols(&entities, &module_id, &module_id, &byte_columns),
        }
    }
}

fn build_symbols(
    entities: &[Entity],
    parent: &str,
    file_module: &str,
    range_of: &dyn Fn(LineSpan) -> Range,
) -> Vec<DocumentSymbol> {
    // Each parent's children, in the file's order, grouped once: a file of a few hundred
    // definitions is answered in one pass, not one pass per container.
    let mut children: HashMap<&str, Vec<&Entity>> = HashMap::new();
    for entity in entities.iter().filter(|entity| &*entity.id != file_module) {
        if let Some(parent) = entity.parent.as_deref() {
            children.entry(parent).or_default().push(entity);
        }
    }
    symbols_under(&children, parent, range_of)
}

fn symbols_under(
    children: &HashMap<&str, Vec<&Entity>>,
    parent: &str,
    range_of: &dyn Fn(LineSpan) -> Range,
) -> Vec<DocumentSymbol> {
    let Some(entities) = children.get(parent) else {
        return Vec::new();
    };
    entities
        .iter()
        .map(|entity| {
            let nested = symbols_under(children, &entity.id, range_of);
            #[allow(deprecated)]
            DocumentSymbol {
                name: entity.name.to_string(),
                detail: entity.signature.clone(),
                kind: symbol_kind(entity.kind),
                tags: None,
                deprecated: None,
                range: range_of(entity.span),
                selection_range: range_of(entity.name_span),
                children: (!nested.is_empty()).then_some(nested),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_and_utf8_columns_on_a_line_with_cjk_and_emoji() {
        let text = "x = 1\ns = '名前😀'; call()\n";
        let call_byte = text.find("call").unwrap() as u32;
        let utf16 = FileText::new(text, ColumnEncoding::Utf16);
        let utf8 = FileText::new(text, ColumnEncoding::Utf8);
        // "s = '" 5 + 名前 2 + 😀 2 + "'; " 3 = 12 UTF-16 units; 5 + 6 + 4 + 3 = 18 bytes.
        assert_eq!(utf16.byte_of(Position::new(1, 12)), Some(call_byte));
        assert_eq!(utf8.byte_of(Position::new(1, 18)), Some(call_byte));
        let core = codegraph_model::Position {
            line: 1,
            column: 18,
        };
        assert_eq!(utf16.position(core), Position::new(1, 12));
        assert_eq!(utf8.position(core), Position::new(1, 18));
        assert_eq!(utf16.byte_of(Position::new(9, 0)), None);
        // Without a line table, the same ranges.
        let call = LineSpan {
            start_byte: call_byte,
            end_byte: call_byte + 4,
            start: core,
            end: codegraph_model::Position {
                line: 1,
                column: 22,
            },
        };
        for encoding in [ColumnEncoding::Utf8, ColumnEncoding::Utf16] {
            assert_eq!(
                span_range(text, call, encoding),
                FileText::new(text, encoding).range(call)
            );
        }
        assert_eq!(
            span_range(text, call, ColumnEncoding::Utf16),
            Range::new(Position::new(1, 12), Position::new(1, 16))
        );
        // A span that does not fit the text falls back to the line table (and its clamping).
        let stale = LineSpan {
            start_byte: 2,
            ..call
        };
        assert_eq!(
            span_range(text, stale, ColumnEncoding::Utf16),
            FileText::new(text, ColumnEncoding::Utf16).range(stale)
        );
        // A column inside the emoji's surrogate pair or past the line's end is clamped.
        assert_eq!(
            utf16.byte_of(Position::new(1, 99)),
            Some(text.find("\ns =").unwrap() as u32 + 1 + "s = '名前😀'; call()".len() as u32)
        );
    }
}
