//! Themes named on the command line: `--theme NAME|all|A,B,...`.

use anyhow::{bail, Context};

use bip::themes::{self, Theme};

/// The themes `spec` names, in its order: `all` (the built-in themes, then `extra`), or
/// ids separated by commas, each built in or of `extra` (one named twice counts twice).
///
/// # Errors
/// A list that names no theme, or a name that is no theme (the error lists those there
/// are).
pub fn themes_named(flag: &str, spec: &str, extra: &[Theme]) -> anyhow::Result<Vec<Theme>> {
    match listed(flag, spec)? {
        None => Ok(themes::builtins()
            .into_iter()
            .chain(extra.iter().cloned())
            .collect()),
        Some(names) => names
            .iter()
            .map(|name| themes::find(name, extra).with_context(|| flag.to_string()))
            .collect(),
    }
}

/// The ids `spec` lists, separated by commas (`None` for `all`).
///
/// # Errors
/// A list that names no theme.
pub fn listed<'a>(flag: &str, spec: &'a str) -> anyhow::Result<Option<Vec<&'a str>>> {
    if spec.trim() == "all" {
        return Ok(None);
    }
    let names: Vec<&str> = spec
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if names.is_empty() {
        bail!("{flag} \"{spec}\": names no theme (give `all` or ids separated by commas)");
    }
    Ok(Some(names))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(spec: &str, extra: &[Theme]) -> Vec<String> {
        let themes = themes_named("--theme", spec, extra).expect("named");
        themes.iter().map(|t| t.id().to_string()).collect()
    }

    #[test]
    fn all_lists_and_repeats_name_themes_in_order() {
        let den = Theme::from_json(
            r#"{"format": "bip-theme/1", "id": "den", "name": "Den", "world": "den"}"#,
        )
        .expect("valid");
        let extra = [den];
        let mut all: Vec<String> = themes::builtin_ids()
            .into_iter()
            .map(String::from)
            .collect();
        all.push("den".into());
        assert_eq!(ids(" all ", &extra), all);
        assert_eq!(ids("den, space,,den", &extra), ["den", "space", "den"]);
        let e = themes_named("--theme", " , ", &[]).expect_err("empty");
        assert!(e.to_string().contains("names no theme"), "{e}");
        let e = format!(
            "{:#}",
            themes_named("--theme", "den", &[]).expect_err("unknown")
        );
        assert!(
            e.starts_with("--theme: no theme \"den\" (known: apartment,"),
            "{e}"
        );
    }
}
