//! Who calls a function or method: `find_callers`, with the parameters, the result shapes
//! and the call-walk helpers `find_callees` shares.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ToolResult;
use crate::graph::query;
use crate::graph::{Entity, Graph};
use crate::mcp::convert::EntitySummary;
use crate::mcp::{CodegraphMcp, resolve_for_tool};

fn default_one() -> u32 {
    1
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CallsParams {
    /// The function or method: an id (`path/to/file.py::Class.method`), a qualified name or a
    /// plain name. Also accepted as `function_name` or `entity_name`.
    #[serde(alias = "function_name", alias = "entity_name", alias = "name")]
    pub entity_id: String,
    /// How many hops to follow (1 = direct only). Default 1, at most 10.
    #[serde(default = "default_one")]
    pub max_depth: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CallNeighbour {
    #[serde(flatten)]
    pub entity: EntitySummary,
    /// 1 for a direct caller/callee, 2 for the next hop, ...
    pub depth: u32,
    /// The entity this one was reached from.
    pub via: String,
    /// Lines (one-based) of the calls between the two.
    pub call_lines: Vec<u32>,
    /// How the call was resolved: `scope`, `same_file`, `import`, `receiver_type`, `dispatch`
    /// (through an interface or base member), `same_package`, `qualified`, `unique_name` (a
    /// guess: the only definition of that name the caller can see).
    pub resolution: String,
}

/// What an answer rests on: the graph revision, the files with unsaved editor edits among
/// those it reads, and the references left aside because their target is ambiguous.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Provenance {
    /// The graph revision the answer was read from (it grows with every change).
    pub revision: u64,
    /// Files of this answer open in the editor with unsaved edits: the answer follows the
    /// editor's text, not the disk's.
    pub unsaved_files: Vec<String>,
    /// References that may be calls but are no edges (several definitions fit the name): an
    /// empty list of calls with possible ones here means "none proven", not "none".
    pub possible: Vec<PossibleCallEntry>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PossibleCallEntry {
    /// The entity the reference is in.
    pub from: String,
    pub file_path: String,
    pub line: u32,
    /// The name as written.
    pub name: String,
    /// Every definition the name could mean.
    pub candidates: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CallersResult {
    pub entity: EntitySummary,
    pub callers: Vec<CallNeighbour>,
    pub provenance: Provenance,
}

/// The call lines and resolution between a reached entity and the one it was reached from,
/// as `query::callers`/`callees` of the latter report them (dispatch and build twins included).
fn call_between(graph: &Graph, reached: &str, via: &str, incoming: bool) -> (Vec<u32>, String) {
    let calls = if incoming {
        query::callers(graph, via)
    } else {
        query::callees(graph, via)
    };
    calls
        .into_iter()
        .find(|call| &*call.entity.id == reached)
        .map(|call| (call.call_lines, call.resolution.to_string()))
        .unwrap_or_default()
}

/// The provenance of a callers (`incoming`) or callees answer.
pub(super) fn provenance(
    world: &crate::world::World,
    graph: &Graph,
    entity: &Entity,
    neighbours: &[CallNeighbour],
    incoming: bool,
) -> Provenance {
    let possible = if incoming {
        query::possible_callers(graph, &entity.id)
    } else {
        query::possible_callees(graph, &entity.id)
    };
    let mut files: std::collections::BTreeSet<&str> = neighbours
        .iter()
        .map(|neighbour| neighbour.entity.file_path.as_str())
        .collect();
    files.insert(&entity.file_path);
    let unsaved_files = world
        .unsaved_files()
        .into_iter()
        .filter(|path| files.contains(&**path))
        .map(|path| path.to_string())
        .collect();
    Provenance {
        revision: graph.revision(),
        unsaved_files,
        possible: possible
            .into_iter()
            .map(|call| PossibleCallEntry {
                from: call.from.to_string(),
                file_path: call.file.to_string(),
                line: call.line,
                name: call.name.to_string(),
                candidates: call.candidates.iter().map(ToString::to_string).collect(),
            })
            .collect(),
    }
}

pub(super) fn call_neighbours(
    graph: &Graph,
    entity: &Entity,
    incoming: bool,
    depth: u32,
) -> Vec<CallNeighbour> {
    query::call_closure(graph, &entity.id, incoming, depth.clamp(1, 10))
        .into_iter()
        .map(|reached| {
            let (call_lines, resolution) =
                call_between(graph, &reached.entity.id, &reached.via, incoming);
            CallNeighbour {
                entity: EntitySummary::from(&reached.entity),
                depth: reached.depth,
                via: reached.via.to_string(),
                call_lines,
                resolution,
            }
        })
        .collect()
}

#[tool_router(router = find_callers_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Who calls a function or method. Use it to see how something is used, or what a change to it would affect. Accepts an entity id (`path/file.py::Class.method`), a qualified name or a plain name; an ambiguous name fails and lists candidate ids. `max_depth` > 1 follows callers of callers (default 1: direct callers only). Each caller comes with the lines of its calls.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    pub async fn find_callers(
        &self,
        Parameters(params): Parameters<CallsParams>,
    ) -> ToolResult<CallersResult> {
        let graph = self.world.snapshot();
        let entity = resolve_for_tool(&graph, &params.entity_id)?;
        let callers = call_neighbours(&graph, &entity, true, params.max_depth);
        let provenance = provenance(&self.world, &graph, &entity, &callers, true);
        Ok(Json(CallersResult {
            entity: EntitySummary::from(&entity),
            callers,
            provenance,
        }))
    }
}
