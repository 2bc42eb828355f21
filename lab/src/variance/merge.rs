//! Combining the records of shards (`bip variance --shard k/n --predictions FILE`) into
//! the report one run over every item would give.

use std::collections::HashSet;

use crate::LabError;

use bip_episodes::limits::quoted;

use super::{Shard, VariancePlan, VarianceRecord, VarianceReport, VARIANCE_FORMAT};
use crate::run_file::{parse_run_file, RunFile, RunHeader};

/// The header and records of one predictions file ([`VARIANCE_FORMAT`], JSON Lines,
/// blank lines skipped), each record with its line (from 1). `file` names the file in
/// errors.
///
/// # Errors
/// As [`parse_run_file`]: a missing header, a line that is not a record, a scored record
/// whose letters are not options or whose figures are impossible.
pub fn parse_records(
    file: &str,
    text: &str,
) -> Result<RunFile<VariancePlan, VarianceRecord>, LabError> {
    parse_run_file(file, text, VARIANCE_FORMAT, VarianceRecord::scored)
}

/// The report over the records of shard files, given as `(name, text)`: themes in the
/// order the runs compared them, [`bip_themes::BASELINE`] first. The bootstraps draw
/// from `seed`, so the report equals that of one unsplit run with the same seed.
///
/// Each file must begin with its run's header ([`VarianceHeader`](super::VarianceHeader)); the headers must be of one
/// split (`k/n` with the same n and themes) and cover every shard k = 1..n once, and
/// every record must be of a theme its run compared.
///
/// # Errors
/// As [`parse_records`]; [`LabError::NoRunHeader`] for a file without its header,
/// [`LabError::ShardMismatch`] for headers of different runs,
/// [`LabError::RepeatedShard`] for a shard given twice,
/// [`LabError::MissingShards`] when a shard is missing,
/// [`LabError::UnknownTheme`] for a record of a theme the run did not compare, and
/// [`LabError::RepeatedRecord`] when a theme's item is in two files (the same shard
/// given twice, say).
pub fn merge_shards<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
    seed: u64,
) -> Result<VarianceReport, LabError> {
    let mut records = Vec::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut split: Option<(usize, Vec<String>)> = None;
    let mut shards: HashSet<usize> = HashSet::new();
    for (file, text) in files {
        let (RunHeader { run: header }, parsed) = parse_records(file, text)?;
        let no_header = || LabError::NoRunHeader {
            file: file.to_string(),
            format: VARIANCE_FORMAT,
        };
        let shard: Shard = header.shard.parse().map_err(|_| no_header())?;
        if header.plan.themes.is_empty() {
            return Err(no_header());
        }
        let this = (shard.n(), header.plan.themes.clone());
        if split.get_or_insert_with(|| this.clone()) != &this {
            return Err(LabError::ShardMismatch {
                file: file.to_string(),
                shard: header.shard.clone(),
            });
        }
        if !shards.insert(shard.k()) {
            return Err(LabError::RepeatedShard {
                file: file.to_string(),
                shard: header.shard.clone(),
            });
        }
        for (line, record) in parsed {
            let (theme, item) = (record.theme().to_string(), record.key());
            if !header.plan.themes.contains(&theme) {
                let file = file.to_string();
                return Err(LabError::UnknownTheme {
                    file,
                    line,
                    theme: quoted(&theme),
                });
            }
            if !seen.insert((theme.clone(), item.clone())) {
                return Err(LabError::RepeatedRecord {
                    file: file.to_string(),
                    line,
                    item: quoted(&item),
                    theme,
                });
            }
            records.push(record);
        }
    }
    let Some((n, order)) = split else {
        return Err(LabError::MissingShards {
            n: 0,
            missing: "every file".into(),
        });
    };
    let missing: Vec<String> = (1..=n)
        .filter(|k| !shards.contains(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(LabError::MissingShards {
            n,
            missing: missing.join(", "),
        });
    }
    Ok(VarianceReport::from_records(
        &records,
        &order,
        bip_themes::BASELINE,
        seed,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ITEM: &str = r#"{"theme": "apartment", "item": "e1/q1", "episode": "e1", "expected": "a", "answer": "a", "posterior": [0.9, 0.1], "margin": 0.8, "correct": true}"#;

    const RUN_1: &str = r#"{"run": {"format": "bip-variance/1", "shard": "1/2", "plan": {"themes": ["apartment", "egypt"]}}}"#;
    const RUN_2: &str = r#"{"run": {"format": "bip-variance/1", "shard": "2/2", "plan": {"themes": ["apartment", "egypt"]}}}"#;

    #[test]
    fn shards_merge_and_a_repeat_is_refused() {
        let one = format!("{RUN_1}\n{ITEM}");
        let two = format!("{RUN_2}\n{}", ITEM.replace("apartment", "egypt"));
        let report =
            merge_shards([("one", one.as_str()), ("two", two.as_str())], 0).expect("merges");
        let names: Vec<&str> = report.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["apartment", "egypt"]);
        let again = format!("{RUN_2}\n{ITEM}");
        let twice =
            merge_shards([("one", one.as_str()), ("again", again.as_str())], 0).unwrap_err();
        assert_eq!(
            twice.to_string(),
            "again:2: e1/q1 of theme apartment is already in an earlier file (the same shard twice?)"
        );
    }

    #[test]
    fn bad_lines_are_named() {
        let bad = parse_records("f", &format!("{RUN_1}\n\n{{}}")).unwrap_err();
        assert!(
            bad.to_string()
                .starts_with("f:3: not a bip-variance/1 record"),
            "{bad}"
        );
        let letter = ITEM.replace(r#""answer": "a""#, r#""answer": "z""#);
        let bad = parse_records("f", &format!("{RUN_1}\n{letter}")).unwrap_err();
        assert_eq!(
            bad.to_string(),
            "f:2: answer or expected is not an option letter"
        );
        let study = RUN_1.replace("bip-variance/1", "bip-study/1");
        let bad = parse_records("f", &format!("{study}\n{ITEM}")).unwrap_err();
        assert!(bad.to_string().starts_with("f: no run line first"), "{bad}");
    }

    /// Every way a set of shard files can be wrong, each refused with its file named.
    #[test]
    fn incomplete_or_impossible_shards_are_refused() {
        let one = format!("{RUN_1}\n{ITEM}");
        let cases: [(&[&str], &str); 8] = [
            (&[one.as_str()], "shard 2/2 is missing"),
            (&[ITEM], "f0: no run line"),
            (
                &[&format!("{RUN_1}\n{}", ITEM.replace("apartment", "mars"))],
                "f0:2: theme \"mars\"",
            ),
            (
                &[&format!(
                    "{RUN_1}\n{}",
                    ITEM.replace("0.9, 0.1", "1.2, -0.2")
                )],
                "f0:2: posterior: 1.2",
            ),
            (
                &[&format!(
                    "{RUN_1}\n{}",
                    ITEM.replace("0.9, 0.1", "0.5, 0.1")
                )],
                "summing to 0.6",
            ),
            (
                &[&format!(
                    "{RUN_1}\n{}",
                    ITEM.replace("\"correct\": true", "\"correct\": false")
                )],
                "correct: false disagrees",
            ),
            (
                &[
                    one.as_str(),
                    &format!("{}\n{ITEM}", RUN_2.replace("2/2", "2/3")),
                ],
                "f1: shard 2/3 is not of the run",
            ),
            (
                &[one.as_str(), one.as_str()],
                "f1: shard 1/2 is already in an earlier file",
            ),
        ];
        for (files, expected) in cases {
            let named: Vec<(String, &str)> = files
                .iter()
                .enumerate()
                .map(|(i, t)| (format!("f{i}"), *t))
                .collect();
            let e = merge_shards(named.iter().map(|(n, t)| (n.as_str(), *t)), 0).unwrap_err();
            assert!(e.to_string().contains(expected), "{e} lacks {expected}");
        }
    }
}
