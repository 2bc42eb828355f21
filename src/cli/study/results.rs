//! The results files of a study's output folder: `results.jsonl` for a run over every
//! item, `results-K-of-N.jsonl` for shard K of N. Each begins with a header holding the
//! plan's fingerprint; a file of another plan is refused, never appended to.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::Context;

use bip::io::{read_input, AppendLog};
use bip::lab::study::{parse_results, StudyHeader, StudyRecord, STUDY_FORMAT};
use bip::lab::variance::Shard;
use bip::lab::LabError;

/// The results file of `shard` (`None`: the whole run) in `out`.
pub fn results_path(out: &Path, shard: Option<Shard>) -> PathBuf {
    match shard {
        None => out.join("results.jsonl"),
        Some(s) => out.join(format!("results-{}-of-{}.jsonl", s.k(), s.n())),
    }
}

/// Opens this run's results file in `out`, cutting off a partial last line, and writes
/// its header when it is new. (Its records were read, and checked against `plan`, by
/// [`read_all`] first.)
pub fn open_own(
    out: &Path,
    shard: Option<Shard>,
    plan: &serde_json::Value,
) -> anyhow::Result<AppendLog> {
    let (log, text) = AppendLog::open(&results_path(out, shard))?;
    if text.trim().is_empty() {
        let header = StudyHeader::new(
            STUDY_FORMAT,
            shard.map_or("1/1".to_string(), |s| s.to_string()),
            plan.clone(),
        );
        log.append(&(serde_json::to_string(&header)? + "\n"))?;
    }
    Ok(log)
}

/// Every record of every results file in `out`, each checked against `plan`; refuses a
/// question of one policy and theme found twice. A partial last line (a run still
/// writing, or killed) is left out, not cut.
pub fn read_all(out: &Path, plan: &serde_json::Value) -> anyhow::Result<Vec<StudyRecord>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(out)
        .with_context(|| format!("reading the output folder {}", out.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_results(p))
        .collect();
    files.sort();
    let mut seen: HashSet<(String, String, String)> = HashSet::new();
    let mut all = Vec::new();
    for path in files {
        let text = read_input(&path)?;
        let complete = text.rfind('\n').map_or(0, |i| i + 1);
        for (line, record) in parse_lines(&path, &text[..complete], plan)? {
            let key = (
                record.policy.clone(),
                record.item.theme.clone(),
                record.item.item.clone(),
            );
            if !seen.insert(key) {
                return Err(LabError::RepeatedRecord {
                    file: path.display().to_string(),
                    line,
                    item: format!("{} of policy {}", record.item.item, record.policy),
                    theme: record.item.theme,
                }
                .into());
            }
            all.push(record);
        }
    }
    Ok(all)
}

fn is_results(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.starts_with("results") && name.ends_with(".jsonl") && path.is_file()
}

/// The records of one file after its header, refusing a header of another plan.
fn parse_lines(
    path: &Path,
    text: &str,
    plan: &serde_json::Value,
) -> anyhow::Result<Vec<(usize, StudyRecord)>> {
    let file = path.display().to_string();
    let (header, records) = parse_results(&file, text)?;
    if let Some(field) = first_difference(&header.run.plan, plan) {
        return Err(LabError::OtherPlan { file, field }.into());
    }
    Ok(records)
}

/// The first top-level field where two fingerprints differ.
fn first_difference(written: &serde_json::Value, now: &serde_json::Value) -> Option<String> {
    let (Some(a), Some(b)) = (written.as_object(), now.as_object()) else {
        return (written != now).then(|| "the plan".to_string());
    };
    b.iter()
        .find(|(k, v)| a.get(*k) != Some(v))
        .map(|(k, _)| k.clone())
        .or_else(|| a.keys().find(|k| !b.contains_key(*k)).cloned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_differing_field_is_named() {
        let now = serde_json::json!({"questions": "q", "themes": ["a"], "policies": []});
        assert_eq!(first_difference(&now, &now), None);
        let other = serde_json::json!({"questions": "q", "themes": ["a", "b"], "policies": []});
        assert_eq!(first_difference(&other, &now).as_deref(), Some("themes"));
        let more = serde_json::json!({"questions": "q", "themes": ["a"], "policies": [], "x": 1});
        assert_eq!(first_difference(&more, &now).as_deref(), Some("x"));
    }

    #[test]
    fn shards_have_their_own_results_file() {
        let shard = Shard::new(2, 3).ok();
        let out = Path::new("run");
        assert_eq!(results_path(out, None), out.join("results.jsonl"));
        assert_eq!(results_path(out, shard), out.join("results-2-of-3.jsonl"));
    }
}
