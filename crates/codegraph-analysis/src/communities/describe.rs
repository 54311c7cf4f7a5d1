//! Names and summaries of communities a person recognises: the deepest directory holding most of
//! the community's production code, its most central entities (a method counting for its type),
//! and a paragraph extracted from their docstrings.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::Community;
use super::attach::parent_id;
use crate::text;
use codegraph_graph::{EntityId, Graph, materialize};
use codegraph_model::EntityKind;

/// The share of production members the named directory must hold.
const DIRECTORY_SHARE: f64 = 0.6;
/// How many central entities a name lists.
const NAMED: usize = 3;
/// How many central entities a summary cites.
const CITED: usize = 4;

pub(super) struct Context<'a> {
    pub graph: &'a Graph,
    pub ids: &'a [EntityId],
    pub index_of: &'a FxHashMap<EntityId, u32>,
    pub production: &'a [bool],
    pub ranks: &'a [f64],
}

/// A file's directory, `.` for the root.
fn directory_of(path: &str) -> &str {
    match codegraph_graph::modules::directory(path) {
        "" => ".",
        directory => directory,
    }
}

/// The deepest directory whose subtree holds at least [`DIRECTORY_SHARE`] of `files` (weighted
/// by members); `.` when only the root does.
fn dominant_directory(files: &[&str]) -> String {
    if files.is_empty() {
        return ".".to_string();
    }
    let mut subtree: BTreeMap<&str, usize> = BTreeMap::new();
    for file in files {
        let mut directory = directory_of(file);
        loop {
            *subtree.entry(directory).or_default() += 1;
            match directory.rsplit_once('/') {
                Some((up, _)) => directory = up,
                None if directory != "." => directory = ".",
                None => break,
            }
        }
    }
    let needed = (files.len() as f64 * DIRECTORY_SHARE).ceil() as usize;
    subtree
        .into_iter()
        .filter(|(_, count)| *count >= needed)
        .max_by(|left, right| {
            let depth = |directory: &str| {
                if directory == "." {
                    0
                } else {
                    directory.matches('/').count() + 1
                }
            };
            depth(left.0)
                .cmp(&depth(right.0))
                .then_with(|| left.1.cmp(&right.1))
                .then_with(|| right.0.cmp(left.0))
        })
        .map_or(".".to_string(), |(directory, _)| directory.to_string())
}

/// `EmailMessage.send` from `django/core/mail/message.py::EmailMessage.send`; a module's path.
fn short(id: &str) -> &str {
    id.rsplit_once("::").map_or(id, |(_, nested)| nested)
}

/// The directory, keywords, central entities and name of a community. `internal` is the weight
/// of each production member's edges to other members.
pub(super) fn describe_members(
    context: &Context,
    community: &mut Community,
    internal: &FxHashMap<u32, f64>,
) {
    let described = described_nodes(context, community);
    let files: Vec<&str> = described
        .iter()
        .filter_map(|&node| context.graph.location(&context.ids[node as usize]))
        .map(|location| &*location.file)
        .collect();
    community.directory = dominant_directory(&files);
    community.keywords = keywords(context, &described);
    community.central = central_entities(context, &described, internal);
    community.name = name_of(community);
}

/// The nodes a community is described by: its production members, or, for a community of
/// tests alone, its tests.
fn described_nodes(context: &Context, community: &Community) -> Vec<u32> {
    let nodes: Vec<u32> = community
        .members
        .iter()
        .filter_map(|id| context.index_of.get(id).copied())
        .collect();
    let production: Vec<u32> = nodes
        .iter()
        .copied()
        .filter(|&node| context.production[node as usize])
        .collect();
    if production.is_empty() {
        nodes
    } else {
        production
    }
}

/// The eight most frequent words (of three letters or more, not stop words) of the nodes' names.
fn keywords(context: &Context, described: &[u32]) -> Vec<String> {
    let mut words: BTreeMap<String, usize> = BTreeMap::new();
    for &node in described {
        for word in text::split_words(short(&context.ids[node as usize])) {
            if word.len() >= 3 && !text::is_stop_word(&word) {
                *words.entry(word).or_default() += 1;
            }
        }
    }
    let mut keywords: Vec<(String, usize)> = words.into_iter().collect();
    keywords.sort_by(|left, right| right.1.cmp(&left.1).then_with(|| left.0.cmp(&right.0)));
    keywords.into_iter().take(8).map(|(word, _)| word).collect()
}

/// The most central of the nodes, most central first: by internal edge weight, a method's
/// counted for its type too, PageRank breaking ties. Modules are named by their directory
/// already.
fn central_entities(
    context: &Context,
    described: &[u32],
    internal: &FxHashMap<u32, f64>,
) -> Vec<EntityId> {
    let graph = context.graph;
    let mut score: FxHashMap<u32, f64> = FxHashMap::default();
    for &node in described {
        let id = &context.ids[node as usize];
        if graph.kind_of(id) == Some(EntityKind::Module) {
            continue;
        }
        let weight = internal.get(&node).copied().unwrap_or(0.0) + context.ranks[node as usize];
        *score.entry(node).or_default() += weight;
        if graph.kind_of(id) == Some(EntityKind::Method)
            && let Some(parent) = parent_id(graph, id)
            && let Some(&parent_node) = context.index_of.get(&parent)
            && graph.kind_of(&parent).is_some_and(EntityKind::is_type)
            && described.contains(&parent_node)
        {
            *score.entry(parent_node).or_default() += weight;
        }
    }
    let mut central: Vec<(f64, u32)> = score.into_iter().map(|(node, s)| (s, node)).collect();
    central.sort_by(|left, right| {
        right
            .0
            .total_cmp(&left.0)
            .then_with(|| context.ids[left.1 as usize].cmp(&context.ids[right.1 as usize]))
    });
    central
        .iter()
        .take(CITED.max(NAMED))
        .map(|(_, node)| context.ids[*node as usize])
        .collect()
}

/// `directory: central, entities`, or the first two members' names when none is central.
fn name_of(community: &Community) -> String {
    let mut named: Vec<&str> = Vec::new();
    for id in &community.central {
        let name = short(id);
        if !named.contains(&name) {
            named.push(name);
        }
        if named.len() == NAMED {
            break;
        }
    }
    if named.is_empty() {
        named = community
            .members
            .iter()
            .take(2)
            .map(|id| id.rsplit('/').next().unwrap_or(id))
            .collect();
    }
    format!("{}: {}", community.directory, named.join(", "))
}

/// The first sentence of a docstring, at most 160 characters.
fn first_sentence(doc: &str) -> Option<String> {
    let paragraph: Vec<&str> = doc
        .lines()
        .map(str::trim)
        .skip_while(|line| line.is_empty())
        .take_while(|line| !line.is_empty())
        .collect();
    let paragraph = paragraph.join(" ");
    if paragraph.is_empty() {
        return None;
    }
    let end = paragraph
        .char_indices()
        .find(|&(index, character)| {
            character == '.'
                && paragraph[index + 1..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace)
        })
        .map_or(paragraph.len(), |(index, _)| index + 1);
    Some(paragraph[..end].chars().take(160).collect())
}

/// One paragraph: where the community lives, its central entities with the first sentence of
/// their docstrings, what it depends on and what uses it.
pub(super) fn summarise(graph: &Graph, community: &Community, names: &[String]) -> String {
    let mut summary = placement(graph, community);
    let cited = citations(graph, community);
    if !cited.is_empty() {
        summary.push_str(&format!(" Central: {}.", cited.join("; ")));
    }
    if !community.depends_on.is_empty() {
        summary.push_str(&format!(
            " Depends on: {}.",
            links(&community.depends_on, names)
        ));
    }
    if !community.used_by.is_empty() {
        summary.push_str(&format!(" Used by: {}.", links(&community.used_by, names)));
    }
    summary
}

/// The summary's first sentence: how many entities, in how many files (the four with most
/// members named), under which directory.
fn placement(graph: &Graph, community: &Community) -> String {
    let mut files: BTreeMap<&str, usize> = BTreeMap::new();
    for id in community
        .members
        .iter()
        .take(community.production_count.max(1))
    {
        if let Some(location) = graph.location(id) {
            *files.entry(&location.file).or_default() += 1;
        }
    }
    let mut file_list: Vec<(&str, usize)> = files.into_iter().collect();
    file_list.sort_by(|left, right| right.1.cmp(&left.1).then_with(|| left.0.cmp(right.0)));
    let shown: Vec<&str> = file_list.iter().take(4).map(|(file, _)| *file).collect();
    let files = format!(
        "{} file{} under {} ({}{})",
        file_list.len(),
        if file_list.len() == 1 { "" } else { "s" },
        community.directory,
        shown.join(", "),
        if file_list.len() > shown.len() {
            ", ..."
        } else {
            ""
        },
    );
    let attached = community.member_count - community.production_count;
    if community.production_count == 0 {
        return format!(
            "{} entities of tests or other non-production code in {files}, touching no production code.",
            community.member_count,
        );
    }
    let attached = if attached > 0 {
        format!(", with {attached} entities of tests and other code attached")
    } else {
        String::new()
    };
    format!(
        "{} entities of production code in {files}{attached}.",
        community.production_count,
    )
}

/// An entity as a summary cites it, `name (kind at path:line)`, with the first sentence of its
/// docstring if it has one.
fn cite(graph: &Graph, id: &EntityId) -> Option<(String, Option<String>)> {
    let location = graph.location(id)?;
    let file = graph.file(&location.file)?;
    let entity = materialize(file, location.index);
    let doc = entity.docstring.as_deref().and_then(first_sentence);
    Some((
        format!(
            "{} ({} at {}:{})",
            short(&entity.id),
            entity.kind,
            entity.file_path,
            entity.start_line
        ),
        doc,
    ))
}

/// The central entities cited, with their docstrings' first sentences; when fewer than two of
/// them have one, the best-ranked documented members too.
fn citations(graph: &Graph, community: &Community) -> Vec<String> {
    let mut cited: Vec<String> = Vec::new();
    let mut documented = 0;
    for id in community.central.iter().take(CITED) {
        if let Some((place, doc)) = cite(graph, id) {
            cited.push(match doc {
                Some(doc) => {
                    documented += 1;
                    format!("{place}: \"{doc}\"")
                }
                None => place,
            });
        }
    }
    if documented >= 2 {
        return cited;
    }
    for id in community
        .members
        .iter()
        .take(community.production_count.clamp(1, 50))
    {
        if community.central.contains(id) {
            continue;
        }
        if let Some((place, Some(doc))) = cite(graph, id) {
            cited.push(format!("{place}: \"{doc}\""));
            documented += 1;
            if documented >= 2 {
                break;
            }
        }
    }
    cited
}

/// The first three linked communities: `#id name (n edges)`.
fn links(list: &[(u32, f64)], names: &[String]) -> String {
    list.iter()
        .take(3)
        .map(|(id, weight)| format!("#{id} {} ({} edges)", names[*id as usize], *weight as u64))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directory_is_the_deepest_holding_most_members() {
        let files = [
            "django/db/models/sql/compiler.py",
            "django/db/models/sql/query.py",
            "django/db/models/query.py",
            "django/db/models/query.py",
            "django/db/backends/base/schema.py",
        ];
        assert_eq!(dominant_directory(&files), "django/db/models");
        assert_eq!(dominant_directory(&["a.py", "b/c.py"]), ".");
        assert_eq!(dominant_directory(&["app/x.py"]), "app");
    }

    #[test]
    fn a_summary_quotes_the_first_sentence() {
        assert_eq!(
            first_sentence(
                "\n  Turn a plain-text password into a hash. Call it\n  twice.\n\n  More."
            )
            .as_deref(),
            Some("Turn a plain-text password into a hash.")
        );
        assert_eq!(
            first_sentence("Version 1.2 of the API").as_deref(),
            Some("Version 1.2 of the API")
        );
    }
}
