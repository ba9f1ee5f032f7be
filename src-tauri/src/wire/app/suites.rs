#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// A case of a suite, as the Suites room lists it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct CaseInfo {
    pub name: String,
    pub server: Option<String>,
    /// The tool it calls, or the tool whose surface it checks.
    pub tool: String,
    pub surface: bool,
}
/// A prompt case of a suite (an eval), as the Suites room lists it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PromptInfo {
    pub name: String,
    pub prompt: String,
    /// The servers whose tools the model gets.
    pub servers: Vec<String>,
    pub runs: u32,
    pub pass_rate: f64,
}
/// A suite file of the project or the user.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SuiteInfo {
    pub path: String,
    pub name: String,
    /// `project` or `user`.
    pub scope: String,
    pub server: Option<String>,
    pub cases: Vec<CaseInfo>,
    /// Its prompt cases, run with `models`.
    pub prompts: Vec<PromptInfo>,
    pub models: Vec<String>,
    /// Why it cannot run (with line and column).
    pub broken: Option<String>,
    /// What it would call and read, and whether the person trusts it (a
    /// suite they did not write runs only once trusted).
    pub review: Option<crate::wire::calls::Review>,
}
crate::wire::to_wire!(workbench_app::suites::SuiteInfo => SuiteInfo);
impl From<workbench_app::suites::SuiteInfo> for SuiteInfo {
    fn from(v: workbench_app::suites::SuiteInfo) -> Self {
        let workbench_app::suites::SuiteInfo {
            path,
            name,
            scope,
            server,
            cases,
            prompts,
            models,
            broken,
            review,
        } = v;
        Self {
            path,
            name,
            scope,
            server,
            cases: cases.into_iter().map(|v| v.into()).collect(),
            prompts: prompts.into_iter().map(|v| v.into()).collect(),
            models,
            broken,
            review: review.map(|v| v.into()),
        }
    }
}
crate::wire::to_wire!(workbench_app::suites::CaseInfo => CaseInfo);
impl From<workbench_app::suites::CaseInfo> for CaseInfo {
    fn from(v: workbench_app::suites::CaseInfo) -> Self {
        let workbench_app::suites::CaseInfo {
            name,
            server,
            tool,
            surface,
        } = v;
        Self {
            name,
            server,
            tool,
            surface,
        }
    }
}
crate::wire::to_wire!(workbench_app::suites::PromptInfo => PromptInfo);
impl From<workbench_app::suites::PromptInfo> for PromptInfo {
    fn from(v: workbench_app::suites::PromptInfo) -> Self {
        let workbench_app::suites::PromptInfo {
            name,
            prompt,
            servers,
            runs,
            pass_rate,
        } = v;
        Self {
            name,
            prompt,
            servers,
            runs,
            pass_rate,
        }
    }
}
