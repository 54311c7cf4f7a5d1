//! The graph written out for other tools: a SCIP index (`export/scip.rs`) for code search and
//! navigation beyond one machine (Sourcegraph, and the tools that read SCIP).

pub mod scip;
