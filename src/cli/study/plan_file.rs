//! A `bip study` plan file as written (TOML), before it is checked.

use std::path::PathBuf;

use serde::Deserialize;

use crate::cli::input::InputFormat;

/// The plan file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PlanFile {
    pub(super) questions: PathBuf,
    #[serde(default)]
    pub(super) format: InputFormat,
    #[serde(default)]
    pub(super) themes: Themes,
    #[serde(default)]
    pub(super) theme_files: Vec<PathBuf>,
    pub(super) out: PathBuf,
    pub(super) subset: Option<SubsetFile>,
    pub(super) policy: Vec<CellFile>,
}

/// `"all"` or a list of theme ids.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Themes {
    All(String),
    Ids(Vec<String>),
}

impl Default for Themes {
    fn default() -> Self {
        Self::All("all".into())
    }
}

/// `[subset]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SubsetFile {
    pub(super) per_type: usize,
    #[serde(default)]
    pub(super) seed: u64,
}

/// One `[[policy]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CellFile {
    pub(super) name: String,
    #[serde(default)]
    pub(super) args: Vec<String>,
    pub(super) group: Option<String>,
}
