//! The MCP prompts: task templates filled with real graph context (source, callers, callees,
//! file structure, statistics) so the AI starts from facts, not guesses.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{PromptMessage, Role};
use rmcp::{ErrorData, prompt, prompt_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CodegraphMcp, convert, resolve};
use codegraph_graph::query;
use codegraph_graph::{Entity, Graph};
use codegraph_lang::Language;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CodeReviewArgs {
    /// The entity to review (id, qualified name or plain name).
    #[serde(alias = "entity_name", alias = "function_name")]
    pub entity_id: String,
    /// What to focus on: security, performance, style, ...
    pub focus: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExplainArgs {
    /// overview (default) or detailed.
    pub depth: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DebugArgs {
    /// The error message or symptom.
    pub error_message: String,
    /// More context: what was being done, a stack trace, ...
    pub context: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RefactorArgs {
    /// The entity to refactor.
    #[serde(alias = "entity_name")]
    pub entity_id: String,
    /// The goal: improve testability, split responsibilities, ...
    pub goal: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TestArgs {
    /// The entity to test.
    #[serde(alias = "entity_name", alias = "function_name")]
    pub entity_id: String,
    /// unit (default) or integration.
    pub test_type: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FeatureArgs {
    /// What the feature should do.
    pub description: String,
    /// Comma-separated ids or names of existing entities the feature touches.
    pub related_entities: Option<String>,
}

fn entity_or_error(graph: &Graph, text: &str) -> Result<Entity, ErrorData> {
    resolve(graph, text).map_err(|unresolved| {
        ErrorData::invalid_params(
            format!("cannot use '{text}' as an entity"),
            Some(unresolved.to_json(text)),
        )
    })
}

fn fence(language: Language, source: &str) -> String {
    format!("```{}\n{}\n```", language.name(), source.trim_end())
}

fn list_calls(calls: &[query::CallSite]) -> String {
    if calls.is_empty() {
        return "(none resolved)".to_string();
    }
    calls
        .iter()
        .map(|call| {
            format!(
                "- `{}` ({}:{})",
                call.entity.id, call.entity.file_path, call.entity.start_line
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Name, kind, location, source, callers and callees of an entity, in Markdown.
fn entity_context(graph: &Graph, entity: &Entity) -> String {
    let callers = query::callers(graph, &entity.id);
    let callees = query::callees(graph, &entity.id);
    let mut text = format!(
        "## Entity\n- Id: `{}`\n- Name: {}\n- Type: {}\n- File: {}:{}-{}\n",
        entity.id, entity.name, entity.kind, entity.file_path, entity.start_line, entity.end_line
    );
    if let Some(doc) = &entity.docstring {
        text.push_str(&format!(
            "- Doc: {}\n",
            doc.lines().next().unwrap_or_default()
        ));
    }
    text.push_str(&format!(
        "\n## Source code\n{}\n\n## Called by\n{}\n\n## Calls\n{}\n",
        fence(entity.language, &convert::entity_source(graph, entity)),
        list_calls(&callers),
        list_calls(&callees)
    ));
    text
}

fn file_outline(graph: &Graph, path: &str) -> String {
    graph
        .file_entities(path)
        .iter()
        .filter(|entity| entity.kind != codegraph_model::EntityKind::Module)
        .map(|entity| {
            format!(
                "- {} `{}` lines {}-{}",
                entity.kind, entity.id, entity.start_line, entity.end_line
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn stats_summary(graph: &Graph) -> String {
    let stats = super::resources::stats(graph);
    format!(
        "- Files: {}\n- Entities: {}\n- Relations: {}\n- Languages: {}\n- Entities by type: {}\n- Relations by type: {}",
        stats["statistics"]["files"],
        stats["statistics"]["entities"],
        stats["statistics"]["relations"],
        stats["statistics"]["languages"],
        stats["entities_by_type"],
        stats["relations_by_type"]
    )
}

/// The test framework people use for a language.
pub fn test_framework(language: Language) -> &'static str {
    match language.name() {
        "python" => "pytest (plain `test_*` functions, fixtures, `pytest.raises`)",
        "rust" => {
            "Rust's built-in test harness (`#[test]` in a `#[cfg(test)] mod tests`, or `tests/`)"
        }
        "javascript" => "Jest or Vitest (`describe`/`it`/`expect`)",
        "typescript" | "tsx" => "Vitest or Jest with TypeScript (`describe`/`it`/`expect`)",
        "go" => "Go's `testing` package (`func TestXxx(t *testing.T)`, table-driven tests)",
        "java" => "JUnit 5 (`@Test`, `assertEquals`), Mockito for collaborators",
        "kotlin" => "JUnit 5 or kotlin.test (`@Test`), MockK for collaborators",
        "c_sharp" | "csharp" => "xUnit (`[Fact]`, `[Theory]`)",
        "ruby" => "RSpec (`describe`/`it`/`expect`) or Minitest",
        "php" => "PHPUnit (`TestCase`, `assertSame`)",
        "swift" => "XCTest (`XCTestCase`, `XCTAssertEqual`) or Swift Testing",
        "scala" => "ScalaTest or MUnit",
        "c" => "Unity or CMocka",
        "cpp" => "GoogleTest (`TEST`, `EXPECT_EQ`) or Catch2",
        "lua" => "busted (`describe`/`it`/`assert`)",
        "bash" => "bats (`@test`)",
        _ => "the test framework already used in this repository",
    }
}

/// Identifier-like words of a free text that name entities in the graph.
fn entities_mentioned(graph: &Graph, text: &str, limit: usize) -> Vec<Entity> {
    let mut found: Vec<Entity> = Vec::new();
    for word in text.split(|character: char| {
        !(character.is_alphanumeric() || character == '_' || character == '.')
    }) {
        let word = word.trim_matches('.');
        if word.len() < 3 {
            continue;
        }
        for candidate in [word, word.rsplit('.').next().unwrap_or(word)] {
            for entry in graph.named(candidate) {
                if let Some(entity) = graph.entity(&entry.id)
                    && !found.iter().any(|known| known.id == entity.id)
                {
                    found.push(entity);
                }
            }
        }
        if found.len() >= limit {
            break;
        }
    }
    found.truncate(limit);
    found
}

fn user(text: String) -> Vec<PromptMessage> {
    vec![PromptMessage::new_text(Role::User, text)]
}

#[prompt_router(vis = "pub(crate)")]
impl CodegraphMcp {
    #[prompt(description = "Review one entity's code with its callers and callees as context")]
    async fn code_review(
        &self,
        Parameters(args): Parameters<CodeReviewArgs>,
    ) -> Result<Vec<PromptMessage>, ErrorData> {
        let graph = self.world.snapshot();
        let entity = entity_or_error(&graph, &args.entity_id)?;
        let focus = args.focus.unwrap_or_else(|| "general".to_string());
        Ok(user(format!(
            "# Code Review Request\n\n{}\n## Review focus\n{focus}\n\nPlease review this code for:\n1. Potential bugs or errors\n2. Code quality issues\n3. Performance concerns\n4. Security vulnerabilities\n5. Suggestions for improvement\n\nConsider how the callers above use it: a change in behaviour affects them. Use codegraph's tools (find_callers, get_code_snippet) for more context.",
            entity_context(&graph, &entity)
        )))
    }

    #[prompt(description = "Explain the codebase from its graph: statistics, files, main entities")]
    async fn explain_codebase(
        &self,
        Parameters(args): Parameters<ExplainArgs>,
    ) -> Result<Vec<PromptMessage>, ErrorData> {
        let graph = self.world.snapshot();
        let detailed = args.depth.as_deref() == Some("detailed");
        // The most-called entities say what the code is about.
        let mut called: Vec<(usize, Entity)> = graph
            .files()
            .flat_map(|file| graph.file_entities(&file.path))
            .map(|entity| (query::callers(&graph, &entity.id).len(), entity))
            .filter(|(count, _)| *count > 0)
            .collect();
        called.sort_by(|left, right| {
            right
                .0
                .cmp(&left.0)
                .then_with(|| left.1.id.cmp(&right.1.id))
        });
        let central = called
            .iter()
            .take(15)
            .map(|(count, entity)| format!("- `{}` ({}; {count} callers)", entity.id, entity.kind))
            .collect::<Vec<_>>()
            .join("\n");
        let mut files = String::new();
        for file in graph.files().take(if detailed { 200 } else { 50 }) {
            files.push_str(&format!("### {} ({})\n", file.path, file.language.name()));
            if detailed {
                files.push_str(&file_outline(&graph, &file.path));
            } else {
                let top: Vec<String> = graph
                    .file_entities(&file.path)
                    .iter()
                    .filter(|entity| entity.parent.as_deref() == Some(&*file.module_id))
                    .map(|entity| format!("{} {}", entity.kind, entity.name))
                    .collect();
                files.push_str(&top.join(", "));
            }
            files.push_str("\n\n");
        }
        Ok(user(format!(
            "# Explain this codebase ({})\n\n## Statistics\n{}\n\n## Most-called entities\n{}\n\n## Files\n{}\nPlease explain what this codebase does, its architecture (main modules and how they depend on each other), the key abstractions, and where a newcomer should start reading.",
            if detailed { "detailed" } else { "overview" },
            stats_summary(&graph),
            if central.is_empty() {
                "(no resolved calls)".to_string()
            } else {
                central
            },
            files
        )))
    }

    #[prompt(
        description = "Debug an error: the entities it mentions, with their source and callers"
    )]
    async fn debug_issue(
        &self,
        Parameters(args): Parameters<DebugArgs>,
    ) -> Result<Vec<PromptMessage>, ErrorData> {
        let graph = self.world.snapshot();
        let context = args.context.clone().unwrap_or_default();
        let mentioned =
            entities_mentioned(&graph, &format!("{} {}", args.error_message, context), 5);
        let related = if mentioned.is_empty() {
            "(no entity of the graph is named in the error; use query_codebase to find candidates)"
                .to_string()
        } else {
            mentioned
                .iter()
                .map(|entity| entity_context(&graph, entity))
                .collect::<Vec<_>>()
                .join("\n---\n")
        };
        Ok(user(format!(
            "# Debugging request\n\n## Error message\n```\n{}\n```\n\n## Additional context\n{}\n\n# Related code\n{}\n\nPlease find the most likely cause, explain how the error arises (follow the callers above), and propose a fix with the code to change.",
            args.error_message,
            if context.is_empty() {
                "(none)"
            } else {
                &context
            },
            related
        )))
    }

    #[prompt(description = "Plan a refactoring of one entity, with everything that depends on it")]
    async fn refactor_guidance(
        &self,
        Parameters(args): Parameters<RefactorArgs>,
    ) -> Result<Vec<PromptMessage>, ErrorData> {
        let graph = self.world.snapshot();
        let entity = entity_or_error(&graph, &args.entity_id)?;
        let goal = args
            .goal
            .unwrap_or_else(|| "improve readability and maintainability".to_string());
        Ok(user(format!(
            "# Refactoring guidance\n\n{}\n## Structure of {}\n{}\n\n## Goal\n{goal}\n\nPlease propose a step-by-step refactoring that reaches the goal, keeps behaviour, and lists every caller above that must change. Show the new code.",
            entity_context(&graph, &entity),
            entity.file_path,
            file_outline(&graph, &entity.file_path)
        )))
    }

    #[prompt(description = "Write tests for one entity in its language's usual test framework")]
    async fn test_generation(
        &self,
        Parameters(args): Parameters<TestArgs>,
    ) -> Result<Vec<PromptMessage>, ErrorData> {
        let graph = self.world.snapshot();
        let entity = entity_or_error(&graph, &args.entity_id)?;
        let test_type = args.test_type.unwrap_or_else(|| "unit".to_string());
        Ok(user(format!(
            "# Test generation\n\n{}\n## Test type\n{test_type}\n\n## Framework\n{}\n\nPlease write {test_type} tests for `{}`: the normal cases, edge cases and error cases. The callers above show how it is really used; the callees are the collaborators to stub or set up.",
            entity_context(&graph, &entity),
            test_framework(entity.language),
            entity.name
        )))
    }

    #[prompt(description = "Plan a new feature from the existing code it touches")]
    async fn implement_feature(
        &self,
        Parameters(args): Parameters<FeatureArgs>,
    ) -> Result<Vec<PromptMessage>, ErrorData> {
        let graph = self.world.snapshot();
        let mut related: Vec<Entity> = Vec::new();
        for name in args
            .related_entities
            .as_deref()
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
        {
            related.push(entity_or_error(&graph, name)?);
        }
        if related.is_empty() {
            related = entities_mentioned(&graph, &args.description, 5);
        }
        let context = if related.is_empty() {
            "(no related entity given or named; use query_codebase to find where the feature belongs)".to_string()
        } else {
            related
                .iter()
                .map(|entity| {
                    format!(
                        "{}\n### Structure of {}\n{}\n",
                        entity_context(&graph, entity),
                        entity.file_path,
                        file_outline(&graph, &entity.file_path)
                    )
                })
                .collect::<Vec<_>>()
                .join("\n---\n")
        };
        Ok(user(format!(
            "# Feature implementation\n\n## Feature\n{}\n\n## Codebase\n{}\n\n# Related existing code\n{}\n\nPlease design the feature: which files and entities to change or add, the code for each, how it fits the existing call structure above, and the tests to write.",
            args.description,
            stats_summary(&graph),
            context
        )))
    }
}
