//! What a study asks: every input item read in every theme, the items it keeps (all, or
//! those holding a question of the stratified subset), and the units of work.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use bip_episodes::Episode;
use bip_themes::Theme;

use crate::evaluation::UNLABELLED;
use crate::variance::{read_item, Item, Shard, VarianceOptions, VariantRun};
use crate::LabError;
use bip_engine::QuestionCost;

use super::record::StudyRecord;
use super::subset::{stratified, Candidate, Subset};

/// A question of the study, as the report lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StudyItem {
    /// Its input line (from 1).
    pub line: usize,
    /// Its key, the same in every theme (`episode/question`).
    pub item: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: String,
}

/// One unit of work: an item read in a theme, answered under one policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    /// The theme, an index into [`StudyLayout::themes`].
    pub theme: usize,
    /// The item, an index into the kept items.
    pub item: usize,
}

/// The items of a study read in every theme, the baseline theme first.
#[derive(Debug)]
pub struct StudyLayout {
    /// The theme ids, the baseline first.
    pub themes: Vec<String>,
    /// Input lines of the kept items, in input order.
    lines: Vec<usize>,
    /// `readings[theme][item]`: the item read in the theme, or why it could not be.
    readings: Vec<Vec<Result<Episode, String>>>,
    /// The questions kept (`None`: every question with an expected answer).
    subset: Option<BTreeSet<String>>,
}

impl StudyLayout {
    /// Reads every item in every theme (`themes[0]` is the baseline) and keeps those
    /// holding a question of `subset`, chosen among the baseline's readings (all items
    /// when `subset` is `None`).
    ///
    /// # Errors
    /// [`LabError::RepeatedItem`] when two kept items hold a question of one key.
    pub fn read(
        items: &[Item<'_>],
        themes: &[Theme],
        options: &VarianceOptions,
        subset: Option<Subset>,
    ) -> Result<Self, LabError> {
        let mut readings: Vec<Vec<Result<Episode, String>>> = themes
            .iter()
            .map(|t| items.iter().map(|i| read_item(i, t, options)).collect())
            .collect();
        let chosen = subset.map(|s| stratified(&candidates(&readings[0]), s));
        let keep: Vec<bool> = match &chosen {
            None => vec![true; items.len()],
            Some(keys) => readings[0]
                .iter()
                .map(|r| {
                    r.as_ref()
                        .is_ok_and(|e| keys_of(e).any(|k| keys.contains(&k)))
                })
                .collect(),
        };
        for theme in &mut readings {
            let mut kept = keep.iter();
            theme.retain(|_| kept.next().copied().unwrap_or(false));
        }
        let lines = items
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(i, _)| i.line)
            .collect();
        let layout = Self {
            themes: themes.iter().map(|t| t.id().to_string()).collect(),
            lines,
            readings,
            subset: chosen,
        };
        layout.check_unique()?;
        Ok(layout)
    }

    /// Whether the study asks question `key`.
    pub fn wants(&self, key: &str) -> bool {
        self.subset.as_ref().is_none_or(|s| s.contains(key))
    }

    /// The input line of kept item `item`.
    pub fn line(&self, item: usize) -> usize {
        self.lines[item]
    }

    /// The episode of `unit`, or why its item could not be read in its theme.
    pub fn episode(&self, unit: Unit) -> Result<&Episode, &str> {
        self.readings[unit.theme][unit.item]
            .as_ref()
            .map_err(String::as_str)
    }

    /// The keys of the questions `unit` answers, in the episode's order.
    pub fn keys(&self, unit: Unit) -> Vec<String> {
        self.episode(unit)
            .map(|e| keys_of(e).filter(|k| self.wants(k)).collect())
            .unwrap_or_default()
    }

    /// The units with a question to answer (theme by theme, items in order), of `shard`
    /// only when given: the kept items at positions k−1, k−1+n, ...
    pub fn units(&self, shard: Option<Shard>) -> Vec<Unit> {
        let items = (0..self.lines.len()).filter(|&i| shard.is_none_or(|s| s.holds(i)));
        let items: Vec<usize> = items.collect();
        (0..self.themes.len())
            .flat_map(|theme| items.iter().map(move |&item| Unit { theme, item }))
            .filter(|&u| !self.keys(u).is_empty())
            .collect()
    }

    /// The study's questions as the baseline reads them, for the report.
    pub fn items(&self) -> Vec<StudyItem> {
        let mut out = Vec::new();
        for (item, reading) in self.readings[0].iter().enumerate() {
            let Ok(episode) = reading else { continue };
            for q in episode.questions().iter().filter(|q| q.expected.is_some()) {
                let key = format!("{}/{}", episode.id(), q.id);
                if self.wants(&key) {
                    let kind = q.label.as_ref().map_or(UNLABELLED, |l| l.as_str());
                    out.push(StudyItem {
                        line: self.lines[item],
                        item: key,
                        kind: kind.to_string(),
                    });
                }
            }
        }
        out
    }

    /// The runs of `policy` over its `records`, one per theme in order, questions in the
    /// order [`run_themes`](crate::variance::run_themes) records them, with their costs
    /// in the same order and the (theme, question) pairs that have no record.
    pub(crate) fn policy_runs(
        &self,
        policy: &str,
        records: &HashMap<(&str, &str, &str), &StudyRecord>,
    ) -> PolicyRuns {
        let mut out = PolicyRuns::default();
        for (t, theme) in self.themes.iter().enumerate() {
            let mut run = VariantRun {
                name: theme.clone(),
                ..VariantRun::default()
            };
            for item in 0..self.lines.len() {
                let unit = Unit { theme: t, item };
                if self.episode(unit).is_err() {
                    run.unreadable += 1;
                }
                for key in self.keys(unit) {
                    let found = records.get(&(policy, theme.as_str(), key.as_str()));
                    match found.and_then(|r| Some((r.item.outcome()?, r.cost))) {
                        Some((outcome, cost)) => {
                            run.items.push((key, outcome));
                            out.costs.push(cost);
                        }
                        None => out.missing.push((theme.clone(), key)),
                    }
                }
            }
            out.runs.push(run);
        }
        out
    }

    /// Refuses two kept items holding a question of one key in one theme.
    fn check_unique(&self) -> Result<(), LabError> {
        for (t, theme) in self.themes.iter().enumerate() {
            let mut seen: HashMap<String, usize> = HashMap::new();
            for item in 0..self.lines.len() {
                for key in self.keys(Unit { theme: t, item }) {
                    let line = self.lines[item];
                    if let Some(&first) = seen.get(&key) {
                        let theme = theme.clone();
                        return Err(LabError::RepeatedItem {
                            item: key,
                            theme,
                            first,
                            line,
                        });
                    }
                    seen.insert(key, line);
                }
            }
        }
        Ok(())
    }
}

/// One policy's records laid out: a run per theme, the costs of the questions found,
/// and the (theme, question) pairs not found.
#[derive(Debug, Default)]
pub(crate) struct PolicyRuns {
    pub(crate) runs: Vec<VariantRun>,
    pub(crate) costs: Vec<QuestionCost>,
    pub(crate) missing: Vec<(String, String)>,
}

/// The keys of `episode`'s questions with an expected answer, in order.
fn keys_of(episode: &Episode) -> impl Iterator<Item = String> + '_ {
    episode
        .questions()
        .iter()
        .filter(|q| q.expected.is_some())
        .map(|q| format!("{}/{}", episode.id(), q.id))
}

/// The questions the subset chooses among: those the baseline reads, with their types.
fn candidates(baseline: &[Result<Episode, String>]) -> Vec<Candidate> {
    baseline
        .iter()
        .flatten()
        .flat_map(|e| {
            e.questions()
                .iter()
                .filter(|q| q.expected.is_some())
                .map(|q| Candidate {
                    key: format!("{}/{}", e.id(), q.id),
                    kind: q
                        .label
                        .as_ref()
                        .map_or(UNLABELLED, |l| l.as_str())
                        .to_string(),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, GenerateOptions};
    use crate::variance::{compared_themes, ItemFormat};

    fn options() -> VarianceOptions {
        VarianceOptions {
            format: ItemFormat::Episodes,
            id_stem: "t".into(),
            shard: None,
            batch: bip_engine::BatchOptions::default(),
            seed: 0,
        }
    }

    fn texts(n: usize) -> Vec<String> {
        let episodes = generate(&GenerateOptions::default(), n).expect("generates");
        episodes.iter().map(|e| e.to_json()).collect()
    }

    #[test]
    fn units_cover_every_theme_and_shards_split_the_items() {
        let texts = texts(5);
        let items = items_of(&texts);
        let themes = compared_themes(Some(&["egypt"]), &[]).expect("built in");
        let layout = StudyLayout::read(&items, &themes, &options(), None).expect("reads");
        assert_eq!(layout.units(None).len(), 10);
        let shard = Shard::new(2, 2).expect("valid");
        let items: Vec<usize> = layout.units(Some(shard)).iter().map(|u| u.item).collect();
        assert_eq!(items, [1, 3, 1, 3]);
        assert_eq!(layout.items().len(), 5);
        let subset = Some(Subset {
            per_type: 0,
            seed: 1,
        });
        let none = StudyLayout::read(&items_of(&texts), &themes, &options(), subset);
        assert!(none.expect("reads").units(None).is_empty());
    }

    fn items_of(texts: &[String]) -> Vec<Item<'_>> {
        texts.iter().map(|t| Item::whole(t)).collect()
    }

    #[test]
    fn a_question_named_twice_is_refused() {
        let texts = texts(1);
        let twice = [
            Item::whole(&texts[0]),
            Item {
                line: 2,
                text: &texts[0],
            },
        ];
        let themes = compared_themes(Some(&[]), &[]).expect("baseline");
        let e = StudyLayout::read(&twice, &themes, &options(), None).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("lines 1 and 2 both hold question"),
            "{e}"
        );
    }
}
