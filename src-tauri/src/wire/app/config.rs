#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// A config file's text, for the window's editor.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ConfigText {
    pub path: String,
    pub exists: bool,
    pub text: String,
}
crate::wire::to_wire!(workbench_app::config::ConfigText => ConfigText);
impl From<workbench_app::config::ConfigText> for ConfigText {
    fn from(v: workbench_app::config::ConfigText) -> Self {
        let workbench_app::config::ConfigText { path, exists, text } = v;
        Self { path, exists, text }
    }
}
