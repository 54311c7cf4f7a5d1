//! The call hierarchy: the item at a position, its incoming and outgoing calls with their call
//! sites. Each is a plain function over the state, run by `Backend::query`.

use tower_lsp_server::ls_types::*;

use codegraph_graph::query;

use crate::state::State;

pub(crate) fn prepare(
    state: &State,
    params: CallHierarchyPrepareParams,
) -> Option<Vec<CallHierarchyItem>> {
    let position = params.text_document_position_params;
    let (located, targets) = state.targets(&position.text_document.uri, position.position)?;
    let convert = state.converter(&located.root, &located.graph);
    let items: Vec<CallHierarchyItem> = targets
        .iter()
        .filter(|entity| entity.kind.is_callable())
        .filter_map(|entity| convert.call_hierarchy_item(entity))
        .collect();
    (!items.is_empty()).then_some(items)
}

pub(crate) fn incoming(
    state: &State,
    params: CallHierarchyIncomingCallsParams,
) -> Option<Vec<CallHierarchyIncomingCall>> {
    let (root, graph, id) = state.root_of_item(&params.item)?;
    let convert = state.converter(&root, &graph);
    let calls = query::callers(&graph, &id)
        .into_iter()
        .filter_map(|call| {
            let from = convert.call_hierarchy_item(&call.entity)?;
            // The call sites are in the caller's file.
            let from_ranges = call
                .sites
                .iter()
                .filter_map(|site| convert.range(&call.entity.file_path, *site))
                .collect();
            Some(CallHierarchyIncomingCall { from, from_ranges })
        })
        .collect();
    Some(calls)
}

pub(crate) fn outgoing(
    state: &State,
    params: CallHierarchyOutgoingCallsParams,
) -> Option<Vec<CallHierarchyOutgoingCall>> {
    let (root, graph, id) = state.root_of_item(&params.item)?;
    let caller = graph.entity(&id)?;
    let convert = state.converter(&root, &graph);
    let calls = query::callees(&graph, &id)
        .into_iter()
        .filter_map(|call| {
            let to = convert.call_hierarchy_item(&call.entity)?;
            // The call sites are in the caller's (the item's) file.
            let from_ranges = call
                .sites
                .iter()
                .filter_map(|site| convert.range(&caller.file_path, *site))
                .collect();
            Some(CallHierarchyOutgoingCall { to, from_ranges })
        })
        .collect();
    Some(calls)
}
