//! The MCP resources: graph statistics, one entity, one file, and a guide for AI clients.

use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use serde_json::json;

use super::convert::{self, EntitySummary};
use codegraph_graph::Graph;
use codegraph_graph::query;

pub const STATS_URI: &str = "codegraph://stats";
pub const GUIDE_URI: &str = "codegraph://guide";
pub const ENTITY_PREFIX: &str = "codegraph://entities/";
pub const FILE_PREFIX: &str = "codegraph://files/";
pub const COMMUNITY_PREFIX: &str = "codegraph://communities/";
/// At most this many members are listed in a community resource.
const MAX_COMMUNITY_MEMBERS: usize = 500;

pub const GUIDE: &str = "\
# codegraph for AI assistants

codegraph keeps a graph of this repository: modules, classes, functions, methods (entities) and
the calls, imports, uses, extends and implements edges between them, parsed with tree-sitter.

## Ids
An entity id is `path/to/file.ext::Nested.name`, e.g. `src/auth/service.py::AuthService.login`.
A module's id is its file path. Tools accept an id, a qualified name (`src.auth.service.AuthService.login`)
or a plain name (`login`); an ambiguous name fails and lists the candidate ids.

## Tools
- `query_codebase` — find entities from plain words or names (BM25 over name words, paths,
  signatures, docstrings; stemmed).
- `global_search` — a big-picture question answered from communities (groups of connected code);
  `community_level: 1` for a subsystem (how does authentication work?), 0 for a narrow area.
- `local_search` — a question about an entity's neighbourhood (callers, callees, members, ...).
- `suggest_refactoring` — metrics and suggestions (extract, simplify, move, remove, ...).
- `get_file_structure` — outline of a file, with ids.
- `analyze_module_structure` — a file's definitions, imports, exported API (with its users and
  the unused public definitions), dependencies, dependents and metrics.
- `find_callers` / `find_callees` — the call graph, `max_depth` hops.
- `find_implementations` — subtypes of a type, overrides of a method.
- `find_dependencies` — upstream/downstream over calls, imports, uses, extends, implements.
- `find_affected_tests` — after editing: what changed since a git revision (unsaved buffers
  included), what it affects, and the tests to run, each with the path that reaches it.
- `get_code_snippet` — an entity's exact source, with context lines.
- `read_file_content` — a file (or a line range) inside the repository.
- `reindex_repository` — refresh the graph after changes on disk.
- `check_architecture` — the architecture rules' violations (`.codegraph/rules.toml`), of the
  repository, of some files, or of proposed contents written nowhere (would this break a rule?).

## What every answer says about itself
- `provenance.revision` — the graph revision the answer was read from.
- `provenance.unsaved_files` — files of the answer open in the editor with unsaved edits: the
  answer follows the editor's text.
- `provenance.stale_files` — files of the answer changed on disk since codegraph read them:
  call `reindex_repository` (a server started with `serve`/`--mcp-only` catches up by itself).
- `resolution` on every edge — `import`, `scope`, `receiver_type`, `dispatch`, ...;
  `unique_name` is a guess (the only definition of that name the caller can see).
- `provenance.possible` on callers, callees and implementations — references left aside:
  `ambiguous` (several definitions fit; `candidates` lists them) or `unresolved` (the language's
  rules found none, though definitions of that name exist). No callers with possible ones means
  'none proven', not 'none'.

## Budgets
Lists are paged: `limit` and `offset` in, `total`, `truncated`, `next_offset` and a `hint` out
(callers and callees: 25 by default; other lists 50). A body over 300 lines or 24 KiB comes back
as a link, `codegraph://files/{path}#L{first}-L{last}`, unless `full: true`; `read_file_content`
returns 1,000 lines unless `end_line` asks for more, with `rest_uri` for the rest.

## Resources
- `codegraph://stats` — counts by entity and relation type, languages, files by class (production, test, ...).
- `codegraph://entities/{entity_id}` — one entity with its source, callers and callees.
- `codegraph://files/{file_path}` — a file's entities and edges; `#L12-L40` after it: those lines.
- `codegraph://communities/{community_id}` — a community: name, summary, members, top entities.
- `codegraph://rules` — the architecture rules with their violations now and against the
  baseline; subscribe to hear when the violations change.

## Prompts
- `place_shared_module` — where a new module shared by some files should live.

## Caveats
Only resolved edges are listed as callers, callees or implementations; what codegraph could not
attribute is in `provenance.possible`, and dynamic dispatch or reflection it cannot see at all:
an empty list with no possible references is still not a proof that nothing calls a function.
";

pub fn list() -> Vec<Resource> {
    vec![
        Resource::new(STATS_URI, "stats")
            .with_description(
                "Statistics of the code graph: entities and relations by type, files, languages",
            )
            .with_mime_type("application/json"),
        Resource::new(GUIDE_URI, "guide")
            .with_description("How to use codegraph's tools and entity ids (read this first)")
            .with_mime_type("text/markdown"),
        Resource::new(super::rules::RULES_URI, "rules")
            .with_description("The architecture rules of .codegraph/rules.toml with their status: violations per rule now and against the baseline, problems of the rules file, the violations; notifies subscribers when the violations change")
            .with_mime_type("application/json"),
    ]
}

pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new("codegraph://entities/{entity_id}", "entity")
            .with_description("One entity: its fields, source code, callers and callees. entity_id like `path/file.py::Class.method`")
            .with_mime_type("application/json"),
        ResourceTemplate::new("codegraph://communities/{community_id}", "community")
            .with_description("One community of closely connected code (Leiden over calls, imports, containment, inheritance): its level, name, extractive summary, members and top entities by PageRank. Ids come from global_search")
            .with_mime_type("application/json"),
        ResourceTemplate::new("codegraph://files/{file_path}", "file")
            .with_description("One file's entities and the edges starting in it. file_path relative to the repository root. With a fragment `#L<first>-L<last>` (as tools link large bodies): those lines of the file, as text")
            .with_mime_type("application/json"),
    ]
}

/// Decodes `%XX` escapes, which clients may apply to the `{}` parts of a template.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%'
            && index + 2 < bytes.len()
            && let Ok(hex) = std::str::from_utf8(&bytes[index + 1..index + 3])
            && let Ok(value) = u8::from_str_radix(hex, 16)
        {
            decoded.push(value);
            index += 3;
            continue;
        }
        decoded.push(bytes[index]);
        index += 1;
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

/// Escapes what cannot stand as is in a `codegraph://` URI part (`%`, `#`, `?`, spaces,
/// controls, non-ASCII), so that [`percent_decode`] gives the text back.
pub fn percent_encode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        let plain = byte.is_ascii_alphanumeric() || b"/._-~:+,;=@!$&'()*".contains(&byte);
        if plain {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

/// `codegraph://files/{path}#L{first}-L{last}`: the lines `first..=last` of a file.
pub fn file_lines_uri(path: &str, first: u32, last: u32) -> String {
    format!("{FILE_PREFIX}{}#L{first}-L{last}", percent_encode(path))
}

/// `codegraph://entities/{id}`.
pub fn entity_uri(id: &str) -> String {
    format!("{ENTITY_PREFIX}{}", percent_encode(id))
}

/// `L12-L40` (or `L12-40`, or `L12`) → (12, 40).
fn line_fragment(fragment: &str) -> Option<(u32, u32)> {
    let rest = fragment.strip_prefix('L')?;
    let (first, last) = match rest.split_once('-') {
        Some((first, last)) => (first, last.strip_prefix('L').unwrap_or(last)),
        None => (rest, rest),
    };
    let first: u32 = first.parse().ok()?;
    let last: u32 = last.parse().ok()?;
    (first >= 1 && first <= last).then_some((first, last))
}

/// The lines a `codegraph://files/{path}#L{first}-L{last}` link names, as text: the graph's
/// text of the file (an editor's unsaved buffer included), as `read_file_content` returns it.
fn file_lines(
    graph: &Graph,
    uri: &str,
    path: &str,
    fragment: &str,
) -> Result<ReadResourceResult, ErrorData> {
    let Some((first, last)) = line_fragment(fragment) else {
        return Err(ErrorData::invalid_params(
            format!("not a line range: #{fragment}"),
            Some(json!({"uri": uri, "expected": "#L<first>-L<last>, one-based, first <= last"})),
        ));
    };
    // A file changed on disk since it was indexed has no text here until it is re-indexed.
    let Some(file_text) = graph.file(path).and_then(|node| node.text()) else {
        return Err(ErrorData::resource_not_found(
            format!("File not found: {path}"),
            Some(json!({"uri": uri})),
        ));
    };
    let total = file_text.lines().count() as u32;
    if first > total.max(1) {
        return Err(ErrorData::invalid_params(
            format!("line {first} is past the end of {path} ({total} lines)"),
            Some(json!({"uri": uri, "total_lines": total})),
        ));
    }
    let (text, _, _) = convert::line_range(&file_text, first, last);
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type("text/plain"),
    ]))
}

/// `value` as the JSON contents of the resource `uri`.
pub(crate) fn json_contents(uri: &str, value: serde_json::Value) -> ReadResourceResult {
    let text = serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string());
    ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type("application/json"),
    ])
}

pub fn stats(graph: &Graph) -> serde_json::Value {
    // The counts `codegraph index` reports, from the one function that makes them.
    let mut report = codegraph_world::IndexReport::default();
    codegraph_world::fill_counts(&mut report, graph);
    json!({
        "statistics": {
            "entities": report.entities,
            "relations": report.relations,
            "files": report.files,
            "lines": report.lines,
            "languages": report.languages.keys().collect::<Vec<_>>(),
        },
        "files_by_language": report.languages,
        "files_by_class": report.files_by_class,
        "entities_by_type": report.entities_by_type,
        "relations_by_type": report.relations_by_type,
        "unresolved": {
            "ambiguous_references": report.ambiguous_references,
            "external_references": report.external_references,
            "bounded_references": report.bounded_references,
            "files_with_syntax_errors": report.files_with_problems,
            "failed_files": report.failed.len(),
        },
    })
}

pub fn entity(graph: &Graph, text: &str) -> Result<serde_json::Value, super::Unresolved> {
    let entity = super::resolve(graph, text)?;
    let neighbour = |found: &codegraph_graph::Entity| json!({"id": found.id, "name": found.name, "type": found.kind.to_string()});
    let callers: Vec<_> = query::callers(graph, &entity.id)
        .iter()
        .map(|call| neighbour(&call.entity))
        .collect();
    let callees: Vec<_> = query::callees(graph, &entity.id)
        .iter()
        .map(|call| neighbour(&call.entity))
        .collect();
    let bases: Vec<_> = query::supertypes(graph, &entity.id)
        .iter()
        .map(|(base, kind)| json!({"id": base.id, "name": base.name, "relation": kind.to_string()}))
        .collect();
    let implementations: Vec<_> = query::implementations(graph, &entity.id)
        .iter()
        .map(neighbour)
        .collect();
    let mut value = serde_json::to_value(EntitySummary::from(&entity)).unwrap_or_default();
    value["docstring"] = json!(entity.docstring);
    value["language"] = json!(entity.language.name());
    value["source_code"] = json!(convert::entity_source(graph, &entity));
    Ok(json!({
        "entity": value,
        "relations": {
            "callers": callers,
            "callees": callees,
            "bases": bases,
            "implementations": implementations,
        }
    }))
}

pub fn file(graph: &Graph, path: &str) -> Option<serde_json::Value> {
    let node = graph.file(path)?;
    let entities: Vec<_> = graph
        .file_entities(path)
        .iter()
        .map(EntitySummary::from)
        .collect();
    let relations: Vec<_> = node
        .resolved
        .edges
        .iter()
        .map(|edge| json!({"source": edge.from, "target": edge.to, "type": edge.kind.to_string()}))
        .collect();
    Some(json!({
        "file_path": path,
        "language": node.language.name(),
        "line_count": node.summary.line_count,
        "entity_count": entities.len(),
        "entities": entities,
        "relations": relations,
    }))
}

/// One community as JSON; `None` if there is no such id.
pub fn community(
    graph: &Graph,
    communities: &codegraph_analysis::communities::Communities,
    id: u32,
) -> Option<serde_json::Value> {
    let community = communities.get(id)?;
    let level = communities.levels.get(community.level as usize);
    let members: Vec<_> = community
        .members
        .iter()
        .take(MAX_COMMUNITY_MEMBERS)
        .filter_map(|member| graph.entity(member))
        .map(|entity| {
            json!({
                "id": entity.id,
                "type": entity.kind.to_string(),
                "name": entity.name,
                "file": entity.file_path,
                "start_line": entity.start_line,
                "pagerank": communities.rank(&entity.id),
            })
        })
        .collect();
    let neighbours = |list: &[(u32, f64)]| -> Vec<serde_json::Value> {
        list.iter()
            .take(10)
            .filter_map(|(other, weight)| {
                let other = communities.get(*other)?;
                Some(json!({"id": other.id, "name": other.name, "edges": weight}))
            })
            .collect()
    };
    Some(json!({
        "community": {
            "id": community.id,
            "level": community.level,
            "name": community.name,
            "summary": community.summary,
            "member_count": community.member_count,
            "directory": community.directory,
            "keywords": community.keywords,
            "parent": community.parent,
            "level_modularity": level.map(|level| level.modularity),
        },
        "top_entities": members.iter().take(10).collect::<Vec<_>>(),
        "depends_on": neighbours(&community.depends_on),
        "used_by": neighbours(&community.used_by),
        "members": members,
        "members_truncated": community.member_count > MAX_COMMUNITY_MEMBERS,
    }))
}

/// The id of a community resource, `rest` being what follows [`COMMUNITY_PREFIX`] in `uri`.
pub(crate) fn community_id(uri: &str, rest: &str) -> Result<u32, ErrorData> {
    rest.trim().parse::<u32>().map_err(|_| {
        ErrorData::resource_not_found(
            format!("not a community id: {rest}"),
            Some(json!({"uri": uri, "expected": "codegraph://communities/<number>, ids from global_search"})),
        )
    })
}

pub fn read(graph: &Graph, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    if uri == STATS_URI {
        return Ok(json_contents(uri, stats(graph)));
    }
    if uri == GUIDE_URI {
        return Ok(ReadResourceResult::new(vec![
            ResourceContents::text(GUIDE, uri).with_mime_type("text/markdown"),
        ]));
    }
    if let Some(rest) = uri.strip_prefix(ENTITY_PREFIX) {
        let id = percent_decode(rest);
        return match entity(graph, &id) {
            Ok(value) => Ok(json_contents(uri, value)),
            Err(unresolved) => Err(ErrorData::resource_not_found(
                format!("no single entity {id}"),
                Some(unresolved.to_json(&id)),
            )),
        };
    }
    if let Some(rest) = uri.strip_prefix(FILE_PREFIX) {
        if let Some((path, fragment)) = rest.split_once('#') {
            return file_lines(graph, uri, &percent_decode(path), fragment);
        }
        let path = percent_decode(rest);
        return match file(graph, &path) {
            Some(value) => Ok(json_contents(uri, value)),
            None => Err(ErrorData::resource_not_found(
                format!("File not found: {path}"),
                Some(json!({"uri": uri})),
            )),
        };
    }
    Err(ErrorData::resource_not_found(
        format!("unknown resource {uri}"),
        Some(
            json!({"uri": uri, "known": [STATS_URI, GUIDE_URI, "codegraph://entities/{entity_id}", "codegraph://files/{file_path}", "codegraph://communities/{community_id}"]}),
        ),
    ))
}
