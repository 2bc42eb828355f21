//! One variance run: every input item read in every theme, all the episodes inferred in
//! one batch, one record per scored question or unreadable input, and the report.

use std::error::Error;
use std::str::FromStr;

use serde::Serialize;

use bip_episodes::json::EpisodeFile;
use bip_episodes::Episode;
use bip_themes::{apply_record, read_themed_record, Theme, ThemeError};

use crate::error::in_episode;
use crate::observer::RunObserver;
use crate::LabError;
use bip_engine::Policy;
use bip_engine::{infer_all, BatchOptions};

use super::{
    ItemRecord, UnreadableRecord, VarianceHeader, VariancePlan, VarianceRecord, VarianceReport,
    VARIANCE_FORMAT,
};

/// What the input items hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemFormat {
    /// One `bip-episode/1` document each.
    Episodes,
    /// One MMToM-QA text question (a JSON line) each.
    Mmtom,
}

/// One input item: where it stands in the input, and its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item<'a> {
    /// Its line in the input (from 1).
    pub line: usize,
    /// Its text.
    pub text: &'a str,
}

impl<'a> Item<'a> {
    /// The non-blank lines of `text` (JSON Lines), one item each.
    pub fn lines(text: &'a str) -> Vec<Self> {
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, text)| Item { line: i + 1, text })
            .collect()
    }

    /// The whole of `text` as one item, at line 1.
    pub fn whole(text: &'a str) -> Self {
        Item { line: 1, text }
    }
}

/// Shard k of n (1 ≤ k ≤ n) of a run split across processes: the items at positions
/// k−1, k−1+n, k−1+2n, ... (counted from 0), in every theme. Written `k/n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    k: usize,
    n: usize,
}

impl Shard {
    /// Shard `k` of `n`.
    ///
    /// # Errors
    /// [`LabError::InvalidShard`] unless 1 ≤ k ≤ n.
    pub fn new(k: usize, n: usize) -> Result<Self, LabError> {
        if (1..=n).contains(&k) {
            Ok(Shard { k, n })
        } else {
            Err(LabError::InvalidShard {
                text: format!("{k}/{n}"),
            })
        }
    }

    /// Whether the item at `position` (from 0) belongs to this shard.
    pub fn holds(&self, position: usize) -> bool {
        position % self.n == self.k - 1
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl Shard {
    /// k, from 1.
    pub fn k(&self) -> usize {
        self.k
    }

    /// n, the number of shards.
    pub fn n(&self) -> usize {
        self.n
    }
}

impl FromStr for Shard {
    type Err = LabError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || LabError::InvalidShard {
            text: s.to_string(),
        };
        let (k, n) = s.split_once('/').ok_or_else(invalid)?;
        let (Ok(k), Ok(n)) = (k.trim().parse(), n.trim().parse()) else {
            return Err(invalid());
        };
        Shard::new(k, n).map_err(|_| invalid())
    }
}

/// How [`run_themes`] reads, splits and infers.
#[derive(Debug, Clone)]
pub struct VarianceOptions {
    /// What the items hold.
    pub format: ItemFormat,
    /// Names an episode that has no id: `<id_stem>-<line>` (the input file's stem, say).
    pub id_stem: String,
    /// Run only this shard of the items (`None`: all of them).
    pub shard: Option<Shard>,
    /// How each episode is inferred.
    pub batch: BatchOptions,
    /// Seed of the bootstrap resamples: equal inputs and seed give equal reports.
    pub seed: u64,
}

/// What [`run_themes`] found.
#[derive(Debug, Clone, Serialize)]
pub struct VarianceRun {
    /// Items run (those of the shard).
    pub items: usize,
    /// Records: first every unreadable input (by theme, then item), then every scored
    /// question (by theme, then item, then question). The lines of `--predictions`.
    pub records: Vec<VarianceRecord>,
    /// The report over `records`, the baseline theme first.
    pub report: VarianceReport,
    /// The shard and themes of the run: the first line of `--predictions`.
    pub header: VarianceHeader,
}

/// The themes to compare: [`bip_themes::BASELINE`] first, then the themes `names`
/// (`None`: every built-in theme, then every theme of `extra`), each once.
///
/// # Errors
/// [`ThemeError`] for a name that is neither built in nor in `extra`.
pub fn compared_themes(names: Option<&[&str]>, extra: &[Theme]) -> Result<Vec<Theme>, ThemeError> {
    let mut out: Vec<Theme> = vec![bip_themes::find(bip_themes::BASELINE, &[])?];
    let all: Vec<&str>;
    let names = match names {
        Some(names) => names,
        None => {
            all = bip_themes::builtin_ids()
                .into_iter()
                .chain(extra.iter().map(Theme::id))
                .collect();
            &all
        }
    };
    for name in names {
        if out.iter().all(|t| t.id() != *name) {
            out.push(bip_themes::find(name, extra)?);
        }
    }
    Ok(out)
}

/// Reads every item (of the shard) in every theme of `themes`, infers every episode
/// read under `policy`, and reports accuracy per theme against the baseline theme
/// ([`bip_themes::BASELINE`], when among `themes`). An item a theme cannot read is
/// recorded (and told to `observer`), not fatal. The results do not depend on how the
/// episodes are spread over threads.
///
/// # Errors
/// [`LabError::InEpisode`] naming the first episode whose inference failed.
///
/// # Example
/// ```
/// use bip_lab::generate::{generate, GenerateOptions};
/// use bip_lab::variance::{compared_themes, run_themes, Item, ItemFormat, VarianceOptions};
/// use bip_engine::{BatchOptions, PlannerPolicy};
///
/// let texts: Vec<String> = generate(&GenerateOptions::default(), 2)?
///     .iter()
///     .map(|e| e.to_json())
///     .collect();
/// let items: Vec<Item> = texts.iter().map(|text| Item::whole(text)).collect();
/// let themes = compared_themes(Some(&["egypt"]), &[])?;
/// let options = VarianceOptions {
///     format: ItemFormat::Episodes,
///     id_stem: "demo".into(),
///     shard: None,
///     batch: BatchOptions::default(),
///     seed: 0,
/// };
/// let run = run_themes(&items, &themes, &PlannerPolicy::default(), &options, &())?;
/// assert_eq!((run.items, run.records.len()), (2, 4));
/// let names: Vec<&str> = run.report.variants.iter().map(|v| v.name.as_str()).collect();
/// assert_eq!(names, ["apartment", "egypt"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run_themes(
    items: &[Item<'_>],
    themes: &[Theme],
    policy: &dyn Policy,
    options: &VarianceOptions,
    observer: &dyn RunObserver,
) -> Result<VarianceRun, LabError> {
    let items: Vec<&Item> = items
        .iter()
        .enumerate()
        .filter(|(i, _)| options.shard.is_none_or(|s| s.holds(*i)))
        .map(|(_, item)| item)
        .collect();
    let mut records: Vec<VarianceRecord> = Vec::new();
    let mut read: Vec<(&Theme, Episode)> = Vec::new();
    for theme in themes {
        for item in &items {
            match read_item(item, theme, options) {
                Ok(episode) => read.push((theme, episode)),
                Err(unreadable) => {
                    let record = UnreadableRecord {
                        theme: theme.id().to_string(),
                        line: item.line,
                        unreadable,
                    };
                    observer.unreadable(&record);
                    records.push(VarianceRecord::Unreadable(record));
                }
            }
        }
    }
    let (owners, episodes): (Vec<&Theme>, Vec<Episode>) = read.into_iter().unzip();
    observer.started(episodes.len());
    let results = infer_all(&episodes, policy, &options.batch, &|| {
        observer.episode_done()
    });
    for ((theme, episode), result) in owners.iter().zip(&episodes).zip(results) {
        let inference = result.map_err(|e| in_episode(e, episode.id()))?;
        for (question, answer) in episode.questions().iter().zip(&inference.answers) {
            if question.expected.is_some() {
                let record = ItemRecord::new(theme.id(), episode.id(), question, answer);
                records.push(VarianceRecord::Item(record));
            }
        }
    }
    let order: Vec<String> = themes.iter().map(|t| t.id().to_string()).collect();
    let report = VarianceReport::from_records(&records, &order, bip_themes::BASELINE, options.seed);
    let header = VarianceHeader::new(
        VARIANCE_FORMAT,
        options.shard.unwrap_or(Shard { k: 1, n: 1 }).to_string(),
        VariancePlan { themes: order },
    );
    Ok(VarianceRun {
        items: items.len(),
        records,
        report,
        header,
    })
}

/// `item` read in `theme` (as `options` say), or why it could not be (its errors'
/// messages, joined).
pub fn read_item(
    item: &Item<'_>,
    theme: &Theme,
    options: &VarianceOptions,
) -> Result<Episode, String> {
    match options.format {
        ItemFormat::Mmtom => apply_record(item.text, theme)
            .and_then(|line| read_themed_record(&line, item.line, theme))
            .map(|r| r.episode)
            .map_err(|e| chain(&e)),
        ItemFormat::Episodes => {
            let fallback_id = format!("{}-{}", options.id_stem, item.line);
            themed_episode(item.text, &fallback_id, theme)
        }
    }
}

/// A `bip-episode/1` document in `theme`, validated before and after theming.
fn themed_episode(text: &str, fallback_id: &str, theme: &Theme) -> Result<Episode, String> {
    let file: EpisodeFile = serde_json::from_str(text)
        .map_err(|e| format!("not a bip-episode/1 document: {}", chain(&e)))?;
    Episode::from_file(file.clone(), fallback_id)
        .map_err(|e| format!("invalid episode: {}", chain(&e)))?;
    let themed = theme.apply_episode(&file).map_err(|e| chain(&e))?;
    Episode::from_file(themed, fallback_id).map_err(|e| chain(&e))
}

/// An error and each of its sources, joined by ": " (outermost first).
fn chain(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_as_k_of_n() {
        assert_eq!("2/4".parse::<Shard>().ok(), Shard::new(2, 4).ok());
        assert!("0/4".parse::<Shard>().is_err());
        assert!("5/4".parse::<Shard>().is_err());
        assert!("2".parse::<Shard>().is_err());
        let shard = Shard::new(2, 3).expect("valid");
        let held: Vec<usize> = (0..7).filter(|&i| shard.holds(i)).collect();
        assert_eq!(held, [1, 4]);
    }

    #[test]
    fn items_are_the_non_blank_lines() {
        let items = Item::lines("a\n\n  \nb\n");
        assert_eq!(items, [Item::whole("a"), Item { line: 4, text: "b" }]);
    }

    #[test]
    fn the_baseline_comes_first_and_once() {
        let themes = compared_themes(Some(&["egypt", "apartment", "egypt"]), &[]).expect("known");
        let ids: Vec<&str> = themes.iter().map(Theme::id).collect();
        assert_eq!(ids, [bip_themes::BASELINE, "egypt"]);
        assert!(compared_themes(Some(&["atlantis"]), &[]).is_err());
        let all = compared_themes(None, &[]).expect("built-in");
        assert_eq!(all.len(), bip_themes::builtin_ids().len());
    }

    #[test]
    fn unreadable_items_say_why_through_every_cause() {
        let theme = bip_themes::find("egypt", &[]).expect("built in");
        let options = VarianceOptions {
            format: ItemFormat::Episodes,
            id_stem: "input".into(),
            shard: None,
            batch: BatchOptions::default(),
            seed: 0,
        };
        let why = read_item(&Item::whole("not json"), &theme, &options).unwrap_err();
        assert!(
            why.starts_with("not a bip-episode/1 document: expected ident"),
            "{why}"
        );
    }
}
