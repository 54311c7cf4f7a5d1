//! The editor's open documents: opened, edited, closed, and what differs from the disk.

use std::path::Path;

use codegraph_graph::{FilePath, FileUpdate};
use codegraph_lang::Language;

use crate::buffer::{Buffer, TextEdit};
use crate::{World, walk};

/// How many open documents keep their syntax tree between edits (each costs about 40 times its
/// text); a document edited before them parses in full on its next edit.
const EDITED_TREES: usize = 8;

impl World {
    /// The editor opened a document: its text replaces the disk's until it is closed.
    ///
    /// A document over the size cap (`max_file_size`, as for files on disk), minified or not source is not
    /// indexed from the editor: parsing it would hold up every request behind it. The graph keeps the file as
    /// it is on disk, and `false` says so (the editor door tells the user).
    pub fn open_buffer(&self, relative: &str, version: i32, text: String) -> bool {
        let Some(language) = Language::from_path(Path::new(relative)) else {
            return false;
        };
        if text.len() as u64 > self.config.max_file_size {
            tracing::warn!(
                "{relative}: {} bytes, over the {}-byte cap; not indexed from the editor",
                text.len(),
                self.config.max_file_size
            );
            self.close_buffer(relative);
            return false;
        }
        if let Some(reason) = codegraph_lang::file_class::not_indexed(language, &text) {
            tracing::warn!("{relative}: {reason}; not indexed from the editor");
            self.close_buffer(relative);
            return false;
        }
        let language =
            codegraph_lang::header_language(Path::new(relative), &text, self.cpp_headers())
                .unwrap_or(language);
        let path = FilePath::from(relative);
        // A document opened as it is on disk (the usual case) keeps the summary the graph has:
        // nothing is parsed or extracted again until its first edit. (The same bytes in the same
        // language give the same summary, whatever changed in the graph since.)
        let hash: [u8; 32] = blake3::hash(text.as_bytes()).into();
        let known = self
            .snapshot()
            .file(relative)
            .filter(|node| node.hash == hash && node.summary.language == language)
            .map(|node| node.summary.clone());
        let buffer = Buffer::new(language, version, text).knowing_summary(known);
        let content = buffer.content(relative);
        let mut state = self.state.lock();
        self.disk.open(&path);
        state.buffers.insert(path, buffer);
        self.publish(
            &mut state,
            vec![FileUpdate {
                path,
                content: Some(content),
            }],
        );
        true
    }

    /// Applies the editor's edits to an open buffer, in order. Returns `false` (and changes
    /// nothing) when the buffer is not open or the version goes backwards; a buffer that grows
    /// over the size cap is closed (the graph goes back to the file on disk) and `false` too.
    pub fn edit_buffer(&self, relative: &str, version: i32, edits: &[TextEdit]) -> bool {
        let path = FilePath::from(relative);
        let mut state = self.state.lock();
        let Some(buffer) = state.buffers.get_mut(&path) else {
            return false;
        };
        if version < buffer.version() {
            tracing::warn!(
                "{relative}: edit version {version} is older than {}; ignored",
                buffer.version()
            );
            return false;
        }
        buffer.apply(version, edits);
        // A header is C or C++ by what its text says, as when it is read from disk: an edit can
        // change which (`lang::header_language`).
        if relative.to_ascii_lowercase().ends_with(".h")
            && let Some(language) = codegraph_lang::header_language(
                Path::new(relative),
                buffer.text_str(),
                self.cpp_headers.load(std::sync::atomic::Ordering::Relaxed),
            )
        {
            buffer.set_language(language);
        }
        let too_large = buffer.len() as u64 > self.config.max_file_size;
        state.edited.retain(|edited| *edited != path);
        state.edited.push(path);
        if state.edited.len() > EDITED_TREES {
            let oldest = state.edited.remove(0);
            if let Some(buffer) = state.buffers.get_mut(&oldest) {
                buffer.drop_tree();
            }
        }
        let Some(buffer) = state.buffers.get(&path) else {
            return false;
        };
        if too_large {
            tracing::warn!(
                "{relative}: grew over the {}-byte cap; back to its contents on disk",
                self.config.max_file_size
            );
            drop(state);
            self.close_buffer(relative);
            return false;
        }
        let content = buffer.content(relative);
        self.publish(
            &mut state,
            vec![FileUpdate {
                path,
                content: Some(content),
            }],
        );
        true
    }

    /// The editor closed a document: the file goes back to its contents on disk.
    pub fn close_buffer(&self, relative: &str) {
        let removed = {
            let mut state = self.state.lock();
            state.edited.retain(|edited| &**edited != relative);
            self.disk.close(relative);
            state.buffers.remove(relative).is_some()
        };
        if removed {
            self.refresh_from_disk(relative);
        }
    }

    /// The open editor buffers whose text differs from the file on disk (unsaved edits), sorted.
    /// A buffer whose file is gone or unreadable counts as unsaved.
    pub fn unsaved_files(&self) -> Vec<FilePath> {
        let buffers: Vec<(FilePath, String)> = self
            .state
            .lock()
            .buffers
            .iter()
            .map(|(path, buffer)| (*path, buffer.text()))
            .collect();
        let mut unsaved: Vec<FilePath> = buffers
            .into_iter()
            .filter(|(path, text)| {
                let absolute = self.root.join(&**path);
                let limit = (text.len() as u64).saturating_add(1);
                match walk::read_prefix(&absolute, limit) {
                    Ok((bytes, false)) => bytes != text.as_bytes(),
                    _ => true,
                }
            })
            .map(|(path, _)| path)
            .collect();
        unsaved.sort();
        unsaved
    }

    /// The open editor buffers, sorted, each with whether it holds a syntax tree (only the
    /// few edited last do), for tests and diagnostics.
    pub fn open_documents(&self) -> Vec<(FilePath, bool)> {
        let state = self.state.lock();
        let mut documents: Vec<(FilePath, bool)> = state
            .buffers
            .iter()
            .map(|(path, buffer)| (*path, buffer.has_tree()))
            .collect();
        documents.sort();
        documents
    }

    /// The text of an open buffer, for tests and diagnostics.
    pub fn buffer_text(&self, relative: &str) -> Option<String> {
        self.state
            .lock()
            .buffers
            .get(relative)
            .map(|buffer| buffer.text())
    }
}
