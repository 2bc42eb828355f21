//! The built-in themes, embedded from `themes/data/`.

use crate::error::ThemeError;
use crate::theme::Theme;

/// Ids and files of the built-in themes; Apartment, the identity, first.
const BUILTIN: [(&str, &str); 6] = [
    ("apartment", include_str!("../data/apartment.json")),
    ("andersen", include_str!("../data/andersen.json")),
    ("egypt", include_str!("../data/egypt.json")),
    ("space", include_str!("../data/space.json")),
    ("wild-west", include_str!("../data/wild-west.json")),
    ("castle", include_str!("../data/castle.json")),
];

/// The id of the base theme, against which the others are compared.
pub const BASELINE: &str = "apartment";

/// The ids of the built-in themes, Apartment first.
pub fn builtin_ids() -> Vec<&'static str> {
    BUILTIN.iter().map(|(id, _)| *id).collect()
}

impl Theme {
    /// The built-in theme with this id (`apartment`, `andersen`, `egypt`, `space`,
    /// `wild-west`, `castle`).
    pub fn builtin(id: &str) -> Option<Theme> {
        BUILTIN
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, text)| parse_builtin(text))
    }
}

/// Every built-in theme, Apartment first.
pub fn builtins() -> Vec<Theme> {
    BUILTIN
        .iter()
        .map(|(_, text)| parse_builtin(text))
        .collect()
}

/// The theme `name`: a built-in, or one of `extra` (read from files) by id.
///
/// # Errors
/// [`ThemeError::Unknown`] listing the themes there are.
pub fn find(name: &str, extra: &[Theme]) -> Result<Theme, ThemeError> {
    if let Some(t) = extra.iter().find(|t| t.id() == name) {
        return Ok(t.clone());
    }
    Theme::builtin(name).ok_or_else(|| {
        let mut known = builtin_ids().join(", ");
        for t in extra {
            known.push_str(", ");
            known.push_str(t.id());
        }
        ThemeError::Unknown {
            name: bip_episodes::limits::quoted(name),
            known,
        }
    })
}

/// Checks themes read from files: none may take a built-in theme's id, or another's
/// (which would silently replace it).
///
/// # Errors
/// [`ThemeError::TakenId`] naming the id and what has it.
pub fn check_extra(extra: &[Theme]) -> Result<(), ThemeError> {
    for (i, theme) in extra.iter().enumerate() {
        let id = theme.id();
        if builtin_ids().contains(&id) {
            return Err(ThemeError::TakenId {
                id: id.to_string(),
                by: "a built-in theme".into(),
            });
        }
        if extra[..i].iter().any(|t| t.id() == id) {
            return Err(ThemeError::TakenId {
                id: id.to_string(),
                by: "another theme file".into(),
            });
        }
    }
    Ok(())
}

#[allow(clippy::expect_used)]
fn parse_builtin(text: &str) -> Theme {
    // The built-in files are checked by the tests below; a failure here is a build bug.
    Theme::from_json(text).expect("built-in themes are valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_loads_under_its_own_id() {
        for (id, text) in BUILTIN {
            let theme = Theme::from_json(text).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(theme.id(), id);
        }
        assert!(builtins()[0].is_identity());
    }

    #[test]
    fn every_themed_builtin_maps_every_class_and_changes_the_world() {
        for theme in builtins().iter().skip(1) {
            let unmapped: Vec<&str> = theme
                .entries()
                .iter()
                .filter(|e| !e.mapped)
                .map(|e| e.class)
                .collect();
            assert!(unmapped.is_empty(), "{}: unmapped {unmapped:?}", theme.id());
            assert_ne!(theme.world().singular, "apartment");
        }
    }

    #[test]
    fn builtin_mappings_are_one_to_one() {
        // Every themed noun and id goes back to exactly one base noun and id.
        for theme in builtins() {
            for e in theme.entries() {
                assert_eq!(
                    theme.invert_id(&theme.apply_id(e.class)),
                    e.class,
                    "{}",
                    theme.id()
                );
                for name in e.base_names {
                    let w = e.themed(name);
                    let back = theme.invert_text(&w.singular);
                    let expected = if e.forms.iter().any(|(b, _)| b == name) {
                        name.to_string()
                    } else {
                        e.usual_name().to_string()
                    };
                    assert_eq!(back, expected, "{}: {name}", theme.id());
                    assert_eq!(
                        theme.invert_text(&w.plural),
                        crate::Word::regular(&expected).plural
                    );
                }
            }
        }
    }

    #[test]
    fn the_issue_examples_hold() {
        let pairs = [
            ("andersen", "kitchen", "hearth"),
            ("andersen", "fridge", "cooling box"),
            ("andersen", "remote control", "magic wand"),
            ("andersen", "wine", "mead"),
            ("egypt", "book", "papyrus scroll"),
            ("egypt", "cabinet", "treasure chest"),
            ("space", "kitchen", "replicator station"),
            ("space", "fridge", "cold storage"),
            ("wild-west", "wine", "whiskey"),
            ("wild-west", "wine glass", "shot glass"),
        ];
        for (id, base, themed) in pairs {
            let theme = Theme::builtin(id).expect("built in");
            assert_eq!(theme.apply_text(base).ok().as_deref(), Some(themed), "{id}");
        }
    }

    #[test]
    fn unknown_names_list_the_known_themes() {
        let e = find("atlantis", &[]).unwrap_err().to_string();
        assert!(e.contains("atlantis") && e.contains("wild-west"), "{e}");
    }

    #[test]
    fn a_theme_that_is_not_one_to_one_is_refused() {
        let two = r#"{"format": "bip-theme/1", "id": "x", "name": "X", "world": "den",
            "furniture": {"fridge": "chest", "cabinet": "chest"}}"#;
        assert!(matches!(
            Theme::from_json(two),
            Err(ThemeError::NotOneToOne { .. })
        ));
        let base = r#"{"format": "bip-theme/1", "id": "x", "name": "X", "world": "den",
            "furniture": {"desk": "table"}}"#;
        assert!(matches!(
            Theme::from_json(base),
            Err(ThemeError::Collision { .. })
        ));
        let grammar = r#"{"format": "bip-theme/1", "id": "x", "name": "X", "world": "den",
            "objects": {"book": "open scroll"}}"#;
        assert!(matches!(
            Theme::from_json(grammar),
            Err(ThemeError::Reserved { .. })
        ));
        let unknown = r#"{"format": "bip-theme/1", "id": "x", "name": "X", "world": "den",
            "objects": {"unicorn": "horn"}}"#;
        let e = Theme::from_json(unknown).unwrap_err().to_string();
        assert!(e.starts_with("objects.unicorn: unknown"), "{e}");
    }
}
