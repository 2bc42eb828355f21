//! A `bip study` plan (TOML): the questions, the themes, an optional stratified subset
//! and the policy cells, each cell's flags parsed exactly as `bip eval` parses them.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use clap::Parser;

use bip::lab::report::fnv1a;
use bip::lab::study::Subset;
use bip::lab::variance::compared_themes;
use bip::themes::Theme;

use crate::cli::input::InputFormat;
use crate::cli::policy::PolicyArgs;
use crate::cli::study::plan_file::{PlanFile, Themes};
use crate::cli::theme::ThemeFiles;

/// A cell's flags, parsed by the same clap definitions as `bip eval --policy ...`.
#[derive(Debug, Parser)]
#[command(name = "args", no_binary_name = true, disable_help_flag = true)]
struct CellArgs {
    #[command(flatten)]
    policy: PolicyArgs,
}

/// One named policy of the grid.
#[derive(Debug)]
pub struct Cell {
    /// Its name in the results and the report.
    pub name: String,
    /// Its flags as written.
    pub args: Vec<String>,
    /// Its flags parsed.
    pub policy: PolicyArgs,
}

/// A checked plan.
#[derive(Debug)]
pub struct Plan {
    /// The plan file.
    pub path: PathBuf,
    /// The questions file.
    pub questions: PathBuf,
    /// What the questions file holds.
    pub format: InputFormat,
    /// The themes, Apartment first.
    pub themes: Vec<Theme>,
    /// The output folder.
    pub out: PathBuf,
    /// The stratified subset, if any.
    pub subset: Option<Subset>,
    /// The policy cells, in order.
    pub cells: Vec<Cell>,
    /// Groups of replicate cells (`group = "..."`), each with two cells or more, in the
    /// order of their first cell.
    pub groups: Vec<(String, Vec<String>)>,
}

impl Plan {
    /// Reads and checks the plan at `path`: every error names the file and the field.
    /// With `only` (cell names), the other cells' flags are parsed but what they name
    /// (a calibration file) is not read: they are not run now.
    pub fn load(path: &Path, only: &[String]) -> anyhow::Result<Self> {
        let text = bip::io::read_input(path)?;
        let name = path.display();
        let file: PlanFile =
            toml::from_str(&text).map_err(|e| anyhow!("{name}: {}", e.to_string().trim()))?;
        let extra = ThemeFiles::from_paths(file.theme_files)
            .load()
            .with_context(|| format!("{name}: theme_files"))?;
        let ids: Option<Vec<&str>> = match &file.themes {
            Themes::All(all) if all == "all" => None,
            Themes::All(other) => {
                bail!("{name}: themes: \"{other}\" is neither \"all\" nor a list of theme ids")
            }
            Themes::Ids(ids) => Some(ids.iter().map(String::as_str).collect()),
        };
        let themes =
            compared_themes(ids.as_deref(), &extra).with_context(|| format!("{name}: themes"))?;
        if file.policy.is_empty() {
            bail!("{name}: policy: no policy cell (add [[policy]] tables with name and args)");
        }
        let mut cells: Vec<Cell> = Vec::with_capacity(file.policy.len());
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        for (i, cell) in file.policy.into_iter().enumerate() {
            let field = format!("{name}: policy[{i}]");
            check_name(&cell.name).with_context(|| format!("{field}: name"))?;
            if let Some(group) = cell.group {
                check_name(&group).with_context(|| format!("{field}: group"))?;
                match groups.iter_mut().find(|(g, _)| *g == group) {
                    Some((_, members)) => members.push(cell.name.clone()),
                    None => groups.push((group, vec![cell.name.clone()])),
                }
            }
            if cells.iter().any(|c| c.name == cell.name) {
                bail!("{field}: name: \"{}\" names an earlier cell too", cell.name);
            }
            let parsed = CellArgs::try_parse_from(&cell.args).map_err(|e| {
                anyhow!(
                    "{field} (\"{}\"): args: {}",
                    cell.name,
                    e.render().to_string().trim()
                )
            })?;
            // β, --calibration and the ranges are checked now, not when the cell's turn
            // comes after hours of other cells; models load in their turn.
            if only.is_empty() || only.contains(&cell.name) {
                parsed
                    .policy
                    .options()
                    .with_context(|| format!("{field} (\"{}\"): args", cell.name))?;
            }
            cells.push(Cell {
                name: cell.name,
                args: cell.args,
                policy: parsed.policy,
            });
        }
        if let Some(unknown) = only.iter().find(|o| !cells.iter().any(|c| c.name == **o)) {
            bail!("--cells: \"{unknown}\" is not a cell of {name}");
        }
        for (group, members) in &groups {
            if members.len() < 2 {
                bail!(
                    "{name}: group \"{group}\": one cell ({}); replicates need two or more",
                    members[0]
                );
            }
            if cells.iter().any(|c| c.name == *group) {
                bail!("{name}: group \"{group}\" is also a cell's name");
            }
        }
        Ok(Self {
            path: path.to_path_buf(),
            questions: file.questions,
            format: file.format,
            themes,
            out: file.out,
            subset: file.subset.map(|s| Subset {
                per_type: s.per_type,
                seed: s.seed,
            }),
            cells,
            groups,
        })
    }

    /// Everything of the plan that decides its records, with the questions' content
    /// hash (`questions_text`): the header of every results file.
    pub fn fingerprint(&self, questions_text: &str) -> serde_json::Value {
        serde_json::json!({
            "questions": self.questions.display().to_string(),
            "questions_hash": format!("{:016x}", fnv1a(questions_text.as_bytes())),
            "format": match self.format {
                InputFormat::Episodes => "episodes",
                InputFormat::Mmtom => "mmtom",
            },
            "themes": self.themes.iter().map(Theme::id).collect::<Vec<_>>(),
            "subset": self.subset.map(|s| serde_json::json!({"per_type": s.per_type, "seed": s.seed})),
            "policies": self.cells.iter().map(|c| serde_json::json!({"name": c.name, "args": c.args})).collect::<Vec<_>>(),
        })
    }
}

/// A cell name is used in file names (`heatmap-NAME.svg`): letters, digits, `-`, `_`, `.`.
fn check_name(name: &str) -> anyhow::Result<()> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if name.is_empty() || !name.chars().all(allowed) || name.starts_with('.') {
        bail!("\"{name}\" is not a name of letters, digits, '-', '_' and '.'");
    }
    Ok(())
}
