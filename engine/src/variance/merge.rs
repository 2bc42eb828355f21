//! Combining the records of shards (`bip variance --shard k/n --predictions FILE`) into
//! the report one run over every item would give.

use std::collections::HashSet;

use crate::error::EngineError;

use super::{VarianceRecord, VarianceReport};

/// The records of one predictions file (JSON Lines, blank lines skipped), each with its
/// line (from 1). `file` names the file in errors.
///
/// # Errors
/// [`EngineError::NotARecord`] for a line that is not a record, and
/// [`EngineError::NotAnOptionLetter`] for a scored record whose letters are not options.
pub fn parse_records(file: &str, text: &str) -> Result<Vec<(usize, VarianceRecord)>, EngineError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let line = i + 1;
            let record: VarianceRecord =
                serde_json::from_str(l).map_err(|source| EngineError::NotARecord {
                    file: file.to_string(),
                    line,
                    source,
                })?;
            if let VarianceRecord::Item(r) = &record {
                r.outcome().ok_or_else(|| EngineError::NotAnOptionLetter {
                    file: file.to_string(),
                    line,
                })?;
            }
            Ok((line, record))
        })
        .collect()
}

/// The report over the records of shard files, given as `(name, text)`: themes in the
/// order they first appear, [`bip_themes::BASELINE`] first. The bootstraps draw from
/// `seed`, so the report equals that of one unsplit run with the same seed.
///
/// # Errors
/// As [`parse_records`]; [`EngineError::RepeatedRecord`] when a theme's item is in two
/// files (the same shard given twice, say).
pub fn merge_shards<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
    seed: u64,
) -> Result<VarianceReport, EngineError> {
    let mut records = Vec::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut order: Vec<String> = Vec::new();
    for (file, text) in files {
        for (line, record) in parse_records(file, text)? {
            let (theme, item) = (record.theme().to_string(), record.key());
            if !seen.insert((theme.clone(), item.clone())) {
                return Err(EngineError::RepeatedRecord {
                    file: file.to_string(),
                    line,
                    item,
                    theme,
                });
            }
            if !order.contains(&theme) {
                order.push(theme);
            }
            records.push(record);
        }
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

    #[test]
    fn shards_merge_and_a_repeat_is_refused() {
        let egypt = ITEM.replace("apartment", "egypt");
        let report = merge_shards([("one", ITEM), ("two", egypt.as_str())], 0).expect("merges");
        let names: Vec<&str> = report.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["apartment", "egypt"]);
        let twice = merge_shards([("one", ITEM), ("again", ITEM)], 0).unwrap_err();
        assert_eq!(
            twice.to_string(),
            "again:1: e1/q1 of theme apartment is already in an earlier file (the same shard twice?)"
        );
    }

    #[test]
    fn bad_lines_are_named() {
        let bad = parse_records("f", "\n{}").unwrap_err();
        assert!(
            bad.to_string().starts_with("f:2: not a variance record"),
            "{bad}"
        );
        let letter = ITEM.replace(r#""answer": "a""#, r#""answer": "z""#);
        let bad = parse_records("f", &letter).unwrap_err();
        assert_eq!(
            bad.to_string(),
            "f:1: answer or expected is not an option letter"
        );
    }
}
