//! Navigation: definitions, implementations, references, hover, document and workspace
//! symbols, code lenses. Each is a plain function over the state, run by `Backend::query`.

use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use codegraph_graph::Entity;
use codegraph_graph::query;
use codegraph_world::work;

use crate::proto;
use crate::state::{Root, State};

/// How many workspace symbols to return.
const SYMBOL_LIMIT: usize = 100;

pub(crate) fn definition(
    state: &State,
    params: GotoDefinitionParams,
) -> Option<GotoDefinitionResponse> {
    let position = params.text_document_position_params;
    let (located, targets) = state.targets(&position.text_document.uri, position.position)?;
    let convert = state.converter(&located.root, &located.graph);
    let locations: Vec<Location> = targets
        .iter()
        .filter_map(|entity| convert.entity_location(entity))
        .collect();
    (!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations))
}

pub(crate) fn implementation(
    state: &State,
    params: GotoDefinitionParams,
) -> Option<GotoDefinitionResponse> {
    let position = params.text_document_position_params;
    let (located, targets) = state.targets(&position.text_document.uri, position.position)?;
    let convert = state.converter(&located.root, &located.graph);
    let graph = &located.graph;
    let locations: Vec<Location> = targets
        .iter()
        .flat_map(|target| query::implementation_targets(graph, target))
        .filter_map(|entity| convert.entity_location(&entity))
        .collect();
    (!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations))
}

pub(crate) fn references(state: &State, params: ReferenceParams) -> Option<Vec<Location>> {
    let position = params.text_document_position;
    let include_declaration = params.context.include_declaration;
    let (located, targets) = state.targets(&position.text_document.uri, position.position)?;
    let graph = &located.graph;
    let convert = state.converter(&located.root, graph);
    let mut locations = Vec::new();
    for target in &targets {
        if include_declaration && let Some(location) = convert.entity_location(target) {
            locations.push(location);
        }
        for (file, site) in query::references(graph, &target.id) {
            locations.extend(convert.location(&file, site));
        }
    }
    Some(locations)
}

pub(crate) fn hover(state: &State, params: HoverParams) -> Option<Hover> {
    let position = params.text_document_position_params;
    let (_, targets) = state.targets(&position.text_document.uri, position.position)?;
    if targets.is_empty() {
        return None;
    }
    let sections: Vec<String> = targets.iter().map(hover_text).collect();
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: sections.join("\n\n---\n\n"),
        }),
        range: None,
    })
}

pub(crate) fn document_symbols(
    state: &State,
    params: DocumentSymbolParams,
) -> Option<DocumentSymbolResponse> {
    let located = state.locate(&params.text_document.uri)?;
    let convert = state.converter(&located.root, &located.graph);
    Some(DocumentSymbolResponse::Nested(
        convert.document_symbols(&located.path),
    ))
}

/// Heavy work: every name of every folder is scanned, on every core.
pub(crate) fn workspace_symbols(
    state: &State,
    params: WorkspaceSymbolParams,
) -> Option<WorkspaceSymbolResponse> {
    work::slow_for_tests(&params.query);
    let roots: Vec<Arc<Root>> = state.roots.read().clone();
    let mut scored: Vec<(f64, WorkspaceSymbol)> = Vec::new();
    for root in &roots {
        let graph = root.world.snapshot();
        let convert = state.converter(root, &graph);
        for found in query::symbols(&graph, &params.query, SYMBOL_LIMIT) {
            let entity = &found.entity;
            let Some(location) = convert.entity_location(entity) else {
                continue;
            };
            let container = entity
                .qualified_name
                .rsplit_once('.')
                .map(|(container, _)| container.to_string());
            scored.push((
                found.score,
                WorkspaceSymbol {
                    name: entity.name.to_string(),
                    kind: proto::symbol_kind(entity.kind),
                    tags: None,
                    container_name: container,
                    location: OneOf::Left(location),
                    data: None,
                },
            ));
        }
    }
    // Stable: each root's own order (by score, then name length) survives the merge.
    scored.sort_by(|left, right| right.0.total_cmp(&left.0));
    scored.truncate(SYMBOL_LIMIT);
    Some(WorkspaceSymbolResponse::Nested(
        scored.into_iter().map(|(_, symbol)| symbol).collect(),
    ))
}

/// "N callers" above every function, method and type of the file.
pub(crate) fn code_lenses(state: &State, params: CodeLensParams) -> Option<Vec<CodeLens>> {
    let located = state.locate(&params.text_document.uri)?;
    let convert = state.converter(&located.root, &located.graph);
    // "3 callers, 2 possible": the possible ones are ambiguous references left aside.
    let possible = query::possible_caller_counts(&located.graph, &located.path);
    let lenses = located
        .graph
        .file_entities(&located.path)
        .into_iter()
        .filter(|entity| entity.kind.is_callable())
        .filter_map(|entity| {
            let callers = query::callers(&located.graph, &entity.id).len();
            let mut title = match callers {
                1 => "1 caller".to_string(),
                count => format!("{count} callers"),
            };
            if let Some(count) = possible.get(&entity.id) {
                title.push_str(&format!(", {count} possible"));
            }
            Some(CodeLens {
                range: convert.range(&located.path, entity.name_span)?,
                command: Some(Command {
                    title,
                    command: String::new(),
                    arguments: None,
                }),
                data: None,
            })
        })
        .collect();
    Some(lenses)
}

fn hover_text(entity: &Entity) -> String {
    let mut text = String::new();
    let signature = entity
        .signature
        .clone()
        .unwrap_or_else(|| entity.name.to_string());
    text.push_str(&format!(
        "```{}\n{}\n```\n\n*{}* `{}`",
        entity.language.name(),
        signature.trim(),
        entity.kind,
        entity.qualified_name
    ));
    if let Some(doc) = entity
        .docstring
        .as_deref()
        .filter(|doc| !doc.trim().is_empty())
    {
        text.push_str("\n\n");
        text.push_str(doc.trim());
    }
    text
}
