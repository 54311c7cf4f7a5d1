//! The workspace: folders added and removed at run time, watched files changed on disk (and
//! the watcher's registration).

use std::path::PathBuf;

use tower_lsp_server::ls_types::*;

use crate::{Backend, proto, refresh_diagnostics};

impl Backend {
    pub(crate) async fn change_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        for removed in &params.event.removed {
            if let Some(path) = folder_path(removed) {
                self.state.remove_root(&path);
            }
        }
        for added in &params.event.added {
            if let Some(path) = folder_path(added)
                && let Some(root) = self.state.add_root(path)
            {
                drop(self.spawn_index(root));
            }
        }
    }

    pub(crate) async fn refresh_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let state = self.state.clone();
        let work = move || {
            for change in params.changes {
                let Some(path) = proto::path_of(&change.uri) else {
                    continue;
                };
                if let Some((root, relative)) = state.manifest_of(&path) {
                    root.world.refresh_from_disk(&relative);
                    continue;
                }
                if let Some((root, relative)) = state.root_of(&path) {
                    root.world.refresh_from_disk(&relative);
                    continue;
                }
                // A deleted directory: refresh every file the graph has under it.
                if change.typ == FileChangeType::DELETED {
                    let roots = state.roots.read().clone();
                    for root in roots {
                        let Ok(inside) = path.strip_prefix(&root.client_root) else {
                            continue;
                        };
                        let prefix = format!("{}/", inside.to_string_lossy());
                        let graph = root.world.snapshot();
                        for file in graph.files().filter(|file| file.path.starts_with(&prefix)) {
                            root.world.refresh_from_disk(&file.path);
                        }
                    }
                }
            }
        };
        if let Err(error) = tokio::task::spawn_blocking(work).await {
            tracing::error!("refreshing watched files failed: {error}");
        }
        // The rules file may be among them (it is read again when it changed).
        refresh_diagnostics(&self.client, &self.state, None);
    }

    pub(crate) async fn register_file_watcher(&self) {
        let options = DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![FileSystemWatcher {
                glob_pattern: GlobPattern::String("**/*".to_string()),
                kind: None,
            }],
        };
        let registration = Registration {
            id: "codegraph/watched-files".to_string(),
            method: "workspace/didChangeWatchedFiles".to_string(),
            register_options: serde_json::to_value(options).ok(),
        };
        if let Err(error) = self.client.register_capability(vec![registration]).await {
            tracing::warn!("registering the file watcher failed: {error}");
        }
    }
}

pub(crate) fn folder_path(folder: &WorkspaceFolder) -> Option<PathBuf> {
    proto::path_of(&folder.uri)
}
