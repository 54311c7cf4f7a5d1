//! `codegraph.affectedTests` (`workspace/executeCommand`): what the editor's changes since a git
//! revision affect, unsaved buffers included, and the tests to run, per workspace folder. A
//! command rather than a code lens: the answer is a walk of the graph over the whole change,
//! cheap once on request and too costly to keep on every function of every visible document
//! after every keystroke; an editor shows it in a picker or runs the selection.

use std::sync::Arc;

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{ExecuteCommandParams, LSPAny};

use crate::Backend;
use crate::state::Root;
use codegraph_world::work::Weight;

/// The command's name.
pub const AFFECTED_TESTS_COMMAND: &str = "codegraph.affectedTests";

impl Backend {
    /// `codegraph.affectedTests [{"base": REV}]`: for each folder, `{folder, ...}` with the
    /// answer of `codegraph affected --json` (the change, the affected entities, the tests, the
    /// test files), or `{folder, error}` where the folder is not in a git repository.
    pub(crate) async fn affected_tests(
        &self,
        params: ExecuteCommandParams,
    ) -> Result<Option<LSPAny>> {
        let base = match params.arguments.first() {
            None | Some(serde_json::Value::Null) => "HEAD".to_string(),
            Some(argument) => match argument.get("base") {
                None => "HEAD".to_string(),
                Some(serde_json::Value::String(base)) => base.clone(),
                Some(_) => return Err(Error::invalid_params("`base` must be a string")),
            },
        };
        let roots: Vec<Arc<Root>> = self.state.roots.read().clone();
        let answers = self
            .query(Weight::Heavy, move |_| {
                roots
                    .iter()
                    .map(|root| {
                        let folder = root.client_root.display().to_string();
                        match root.world.affected(&base) {
                            Ok((_, answer)) => {
                                let mut value = serde_json::to_value(&answer).unwrap_or_default();
                                if let Some(object) = value.as_object_mut() {
                                    object.insert("folder".into(), folder.into());
                                }
                                value
                            }
                            Err(error) => {
                                serde_json::json!({"folder": folder, "error": format!("{error:#}")})
                            }
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .await?;
        Ok(Some(serde_json::Value::Array(answers)))
    }
}
