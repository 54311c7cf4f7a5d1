//! Loading one file from disk for the index: read, hashed and extracted, or taken from the cache
//! when its stamp or its hash says the cached summary is this text's.

use std::path::Path;
use std::sync::Arc;

use codegraph_graph::{FileText, build::FileContent};
use codegraph_lang::Language;

use crate::texts::DiskTexts;
use crate::{cache, shrink_summary, stamp, walk};

/// A file's content, where it came from and what the file looked like when read (before it was
/// read), or why it was skipped.
pub(crate) type LoadResult = Result<(FileContent, Source, Option<stamp::DiskStamp>), String>;

/// Where a loaded file's summary came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// Extracted from the text just read.
    Parsed,
    /// The cache's: the text read has the cached hash.
    Hashed,
    /// The cache's, not read at all: the file's stamp is the settled one the cache recorded
    /// (`cache::Unread`).
    Trusted,
}

/// Reads, hashes and extracts one file from disk, reading at most `max_file_size` bytes. `Err`
/// says why not: unreadable, binary, not a regular file, over the cap, minified or not source
/// (`file_class::not_indexed`). The text is not kept:
/// `texts` reads it again when an answer needs it. With `trust` (the cache was written under
/// the same C/C++ header setting), a file whose stamp is the one the cache recorded is not read.
#[allow(clippy::too_many_arguments)]
pub(crate) fn load_file(
    absolute: &Path,
    relative: &str,
    language: Language,
    cpp_headers: bool,
    max_file_size: u64,
    cached: Option<&cache::CachedFile>,
    trust: bool,
    texts: &Arc<DiskTexts>,
) -> LoadResult {
    // Before the read: a change during it makes the stamp compare the content, never miss it.
    let disk = stamp::DiskStamp::of(absolute);
    if trust
        && let Some(cached) = cached
        && let Some(unread) = &cached.unread
        && disk.as_ref() == Some(&unread.stamp)
        && unread.stamp.bytes() <= max_file_size
    {
        let content = FileContent {
            language: cached.summary.language,
            text: FileText::Elsewhere {
                len: unread.len,
                ascii: unread.ascii,
                source: texts.clone(),
            },
            hash: cached.hash,
            summary: cached.summary.clone(),
            class: unread.class,
        };
        return Ok((content, Source::Trusted, disk));
    }
    let (bytes, truncated) =
        walk::read_prefix(absolute, max_file_size).map_err(|refusal| refusal.to_string())?;
    if truncated {
        return Err(format!("over the {max_file_size}-byte cap"));
    }
    let hash: [u8; 32] = blake3::hash(&bytes).into();
    let text = codegraph_lang::syntax::decode_lossy(bytes);
    if let Some(reason) = codegraph_lang::file_class::not_indexed(language, &text) {
        return Err(reason);
    }
    let language =
        codegraph_lang::header_language(absolute, &text, cpp_headers).unwrap_or(language);
    let elsewhere = FileText::Elsewhere {
        len: text.len() as u32,
        ascii: text.is_ascii(),
        source: texts.clone(),
    };
    let class = codegraph_lang::file_class::classify(relative, language, &text);
    if let Some(cached) = cached
        && cached.hash == hash
        && cached.summary.language == language
    {
        return Ok((
            FileContent {
                language,
                text: elsewhere,
                hash,
                summary: cached.summary.clone(),
                class,
            },
            Source::Hashed,
            disk,
        ));
    }
    let (mut summary, _) = codegraph_index::extract_text(language, &text);
    shrink_summary(&mut summary);
    Ok((
        FileContent {
            language,
            text: elsewhere,
            hash,
            summary: Arc::new(summary),
            class,
        },
        Source::Parsed,
        disk,
    ))
}
