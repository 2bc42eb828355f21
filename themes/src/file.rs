//! The theme file (`bip-theme/1` JSON), parsed field by field so that an error names its
//! path.
//!
//! ```json
//! {"format": "bip-theme/1", "id": "andersen", "name": "Andersen Fairy Tales",
//!  "world": "cottage",
//!  "rooms": {"kitchen": "hearth"},
//!  "furniture": {"fridge": {"name": "cooling box", "forms": {"refrigerator": "ice chest"}}},
//!  "objects": {"wine": {"name": "mead", "forms": {"bottle of wine": "jug of mead"}},
//!              "apple": {"singular": "golden apple", "plural": "golden apples", "article": "a"}}}
//! ```
//!
//! A themed noun is a string (regular plural, article from its first letter) or
//! `{"singular", "plural", "article"}`. An entry maps a room or class to a noun, or to
//! `{"name": NOUN, "forms": {BASE_NAME: NOUN}}` to give some of the base names (synonyms)
//! their own themed noun; the other names of the class take `name`.

use serde_json::{Map, Value};

use bip_episodes::import::mmtom::vocabulary::NounKind;

use crate::error::ThemeError;
use crate::word::{article_for, spelling_error, Word};

/// The value of the `format` field.
pub const THEME_FORMAT: &str = "bip-theme/1";

/// A theme file as written, its nouns checked for spelling only.
#[derive(Debug, Clone)]
pub(crate) struct ThemeFile {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) world: Word,
    pub(crate) entries: Vec<EntryFile>,
}

/// One mapped room or class.
#[derive(Debug, Clone)]
pub(crate) struct EntryFile {
    pub(crate) kind: NounKind,
    pub(crate) class: String,
    pub(crate) path: String,
    pub(crate) name: Word,
    /// Base name → its own themed noun.
    pub(crate) forms: Vec<(String, Word)>,
}

fn field_error(path: &str, reason: impl Into<String>) -> ThemeError {
    ThemeError::Field {
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// Parses a theme file.
/// Ids that `--themes all` and `--theme auto` give a meaning of their own.
const RESERVED_IDS: [&str; 2] = ["all", "auto"];

pub(crate) fn parse(text: &str) -> Result<ThemeFile, ThemeError> {
    let value: Value = serde_json::from_str(text).map_err(|e| ThemeError::Json {
        line: e.line(),
        column: e.column(),
        message: bip_episodes::limits::json_message(&e),
    })?;
    let root = value
        .as_object()
        .ok_or_else(|| field_error("(root)", "a theme is a JSON object"))?;
    const FIELDS: [&str; 7] = [
        "format",
        "id",
        "name",
        "world",
        "rooms",
        "furniture",
        "objects",
    ];
    if let Some(unknown) = root.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(field_error(
            unknown,
            format!("unknown field (expected one of {})", FIELDS.join(", ")),
        ));
    }
    let string = |key: &str| -> Result<String, ThemeError> {
        root.get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| field_error(key, "missing or not a string"))
    };
    let format = string("format")?;
    if format != THEME_FORMAT {
        return Err(field_error(
            "format",
            format!("\"{format}\" is not \"{THEME_FORMAT}\""),
        ));
    }
    let id = string("id")?;
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
        return Err(field_error(
            "id",
            format!("\"{id}\": use lower-case letters and hyphens"),
        ));
    }
    if RESERVED_IDS.contains(&id.as_str()) {
        return Err(field_error(
            "id",
            format!("\"{id}\" is a word of the command line (`--themes all`, `--theme auto`), not a theme's id"),
        ));
    }
    let world = word(
        root.get("world")
            .ok_or_else(|| field_error("world", "missing"))?,
        "world",
    )?;
    let mut entries = Vec::new();
    for (key, kind) in [
        ("rooms", NounKind::Room),
        ("furniture", NounKind::Furniture),
        ("objects", NounKind::Object),
    ] {
        let Some(section) = root.get(key) else {
            continue;
        };
        let section = section
            .as_object()
            .ok_or_else(|| field_error(key, "not an object of class: noun"))?;
        for (class, value) in section {
            let path = format!("{key}.{class}");
            entries.push(entry(kind, class, value, path)?);
        }
    }
    Ok(ThemeFile {
        id,
        name: string("name")?,
        world,
        entries,
    })
}

fn entry(
    kind: NounKind,
    class: &str,
    value: &Value,
    path: String,
) -> Result<EntryFile, ThemeError> {
    let (name, forms) = match value.as_object() {
        Some(object) if object.contains_key("name") => {
            only_fields(object, &["name", "forms"], &path)?;
            let name = word(&object["name"], &format!("{path}.name"))?;
            let mut forms = Vec::new();
            if let Some(f) = object.get("forms") {
                let f = f
                    .as_object()
                    .ok_or_else(|| field_error(&format!("{path}.forms"), "not an object"))?;
                for (base, themed) in f {
                    forms.push((base.clone(), word(themed, &format!("{path}.forms.{base}"))?));
                }
            }
            (name, forms)
        }
        _ => (word(value, &path)?, Vec::new()),
    };
    Ok(EntryFile {
        kind,
        class: class.to_string(),
        path,
        name,
        forms,
    })
}

fn only_fields(
    object: &Map<String, Value>,
    allowed: &[&str],
    path: &str,
) -> Result<(), ThemeError> {
    match object.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(field_error(
            &format!("{path}.{k}"),
            format!("unknown field (expected {})", allowed.join(", ")),
        )),
        None => Ok(()),
    }
}

/// A themed noun: a string, or `{"singular", "plural", "article"}`.
fn word(value: &Value, path: &str) -> Result<Word, ThemeError> {
    let checked = |text: &str, path: &str| -> Result<String, ThemeError> {
        match spelling_error(text) {
            Some(reason) => Err(field_error(path, reason)),
            None => Ok(text.to_string()),
        }
    };
    match value {
        Value::String(s) => Ok(Word::regular(&checked(s, path)?)),
        Value::Object(object) => {
            only_fields(object, &["singular", "plural", "article"], path)?;
            let singular = object
                .get("singular")
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    field_error(&format!("{path}.singular"), "missing or not a string")
                })?;
            let singular = checked(singular, &format!("{path}.singular"))?;
            let mut word = Word::regular(&singular);
            if let Some(plural) = object.get("plural") {
                let plural = plural
                    .as_str()
                    .ok_or_else(|| field_error(&format!("{path}.plural"), "not a string"))?;
                word.plural = checked(plural, &format!("{path}.plural"))?;
            }
            word.article = match object.get("article").map(|a| a.as_str()) {
                None => article_for(&singular),
                Some(Some("a")) => "a",
                Some(Some("an")) => "an",
                Some(_) => {
                    return Err(field_error(
                        &format!("{path}.article"),
                        "must be \"a\" or \"an\"",
                    ))
                }
            };
            Ok(word)
        }
        _ => Err(field_error(
            path,
            "expected a noun: a string or {\"singular\", \"plural\", \"article\"}",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_field() {
        let bad = r#"{"format": "bip-theme/1", "id": "x", "name": "X", "world": "den",
            "objects": {"wine": {"name": "mead", "forms": {"bottle of wine": 3}}}}"#;
        let error = |text: &str| parse(text).map(|_| ()).unwrap_err().to_string();
        let e = error(bad);
        assert!(e.starts_with("objects.wine.forms.bottle of wine:"), "{e}");
        let bad = r#"{"format": "bip-theme/1", "id": "x", "name": "X", "world": "Den"}"#;
        assert!(error(bad).starts_with("world:"));
        let bad = r#"{"format": "bip-theme/2", "id": "x", "name": "X", "world": "den"}"#;
        assert!(error(bad).starts_with("format:"));
    }

    #[test]
    fn nouns_take_explicit_plurals_and_articles() {
        let text = r#"{"format": "bip-theme/1", "id": "x", "name": "X", "world": "den",
            "objects": {"apple": {"singular": "unicorn horn", "plural": "unicorn horns", "article": "a"}}}"#;
        let file = parse(text).map_err(|e| e.to_string());
        let file = file.as_ref().map(|f| &f.entries[0].name);
        assert_eq!(file.map(|w| w.article), Ok("a"));
    }
}
