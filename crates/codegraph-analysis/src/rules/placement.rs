//! Where a new shared module should live: the lowest common ancestor of the files that will use
//! it (the directory `suggest_refactoring` also proposes for moves), then, when the rules say
//! some user may not depend on a module there, down the layers to the highest one every user may
//! depend on. The structure-analysis design's `lca-resolve` suggests `{lca}/shared/`; so does
//! this.

use serde::Serialize;

use super::DependencyKind;
use super::checker::{Checker, TargetRef};
use super::config::{RuleBody, has_glob};
use crate::refactor::lowest_common_directory;
use codegraph_graph::FilePath;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placement {
    pub users: Vec<FilePath>,
    /// The deepest directory holding every user (`""` for the root).
    pub lowest_common_directory: String,
    /// Where the module should go: a file path.
    pub suggested_path: String,
    /// Why it is not simply under the lowest common directory, when it is not.
    pub notes: Vec<String>,
    /// Rules a user would still break by depending on the suggested path (empty: none).
    pub conflicts: Vec<String>,
}

fn shared_in(directory: &str, file_name: &str) -> String {
    if directory.is_empty() {
        format!("shared/{file_name}")
    } else {
        format!("{directory}/shared/{file_name}")
    }
}

/// The literal directory a pattern starts with (`src/services` for `src/services/**`).
fn literal_prefix(pattern: &str) -> String {
    let literal: Vec<&str> = pattern
        .split('/')
        .take_while(|part| !has_glob(part))
        .collect();
    literal.join("/")
}

/// Where a module named `module_name` (a file name without extension) used by `users` should
/// live. `checker` brings the rules; without rules, the lowest common ancestor decides alone.
pub fn place(checker: Option<&Checker>, users: &[FilePath], module_name: &str) -> Placement {
    let lowest = lowest_common_directory(users.iter().map(|user| &**user));
    let extension = users
        .first()
        .and_then(|user| user.rsplit_once('.'))
        .map(|(_, extension)| extension)
        .filter(|extension| !extension.contains('/'))
        .unwrap_or("py");
    let file_name = format!("{module_name}.{extension}");
    let mut suggested = shared_in(&lowest, &file_name);
    let mut notes = Vec::new();
    let breaks = |path: &str| -> Vec<String> {
        let Some(checker) = checker else {
            return Vec::new();
        };
        let class = checker.rules().classify(path);
        let target = TargetRef::File {
            path,
            class: &class,
        };
        let mut found: Vec<String> = users
            .iter()
            .flat_map(|user| {
                checker
                    .breaks(user, &target, DependencyKind::Import)
                    .into_iter()
                    .map(move |(rule, why)| format!("{user} → {path} breaks `{rule}`: {why}"))
            })
            .collect();
        found.dedup();
        found
    };
    let mut conflicts = breaks(&suggested);
    if !conflicts.is_empty()
        && let Some(checker) = checker
    {
        // Down the layers: the highest layer that is at or below every user's.
        for rule in &checker.rules().rules {
            let RuleBody::Layers { layers } = &rule.body else {
                continue;
            };
            let lowest_user_layer = users
                .iter()
                .filter_map(|user| {
                    checker
                        .rules()
                        .classify(user)
                        .group(layers, &checker.rules().patterns)
                })
                .max();
            let Some(layer) = lowest_user_layer else {
                continue;
            };
            let Some(&pattern) = layers[layer].first() else {
                continue;
            };
            let directory = literal_prefix(&checker.rules().patterns[pattern].text);
            let candidate = shared_in(&directory, &file_name);
            let candidate_conflicts = breaks(&candidate);
            if candidate_conflicts.len() < conflicts.len() {
                notes.push(format!(
                    "{} would break the layers of `{}`: the lowest layer among the users is `{}`, so the module goes there",
                    suggested, rule.name, checker.rules().patterns[pattern].text
                ));
                suggested = candidate;
                conflicts = candidate_conflicts;
            }
        }
    }
    Placement {
        users: users.to_vec(),
        lowest_common_directory: lowest,
        suggested_path: suggested,
        notes,
        conflicts,
    }
}
