//! Where the workbench keeps its own files (config's trust record, the
//! settings, the store): the config library's [`crate::config::app`].

pub use crate::config::app::data_dir;
