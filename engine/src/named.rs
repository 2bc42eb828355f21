//! Options whose values have names: each name and its line of help is written once, in
//! the enum's [`Named::VALUES`], and the command line's flags, Python's keywords and the
//! JSON files are all read and written through it.

use thiserror::Error;

/// An option whose values are named.
pub trait Named: Sized + Copy + PartialEq + 'static {
    /// What the option is, in messages ("score", "prompt style").
    const WHAT: &'static str;
    /// Every value with its name and a line of help, in the order listings show them.
    const VALUES: &'static [(Self, &'static str, &'static str)];

    /// The value's name.
    fn name(self) -> &'static str {
        Self::entry(self).1
    }

    /// The value's line of help.
    fn help(self) -> &'static str {
        Self::entry(self).2
    }

    /// The value named `name`.
    ///
    /// # Errors
    /// [`UnknownName`], listing every name, for any other text.
    fn from_name(name: &str) -> Result<Self, UnknownName> {
        Self::VALUES
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(value, _, _)| *value)
            .ok_or_else(|| UnknownName {
                what: Self::WHAT,
                name: name.to_string(),
                expected: Self::VALUES.iter().map(|(_, n, _)| *n).collect(),
            })
    }

    /// The value's row of [`Named::VALUES`]. Every value has one: an enum lists all its
    /// values (the tests of each check it).
    fn entry(self) -> &'static (Self, &'static str, &'static str) {
        Self::VALUES
            .iter()
            .find(|(value, _, _)| *value == self)
            .unwrap_or(&Self::VALUES[0])
    }
}

/// A name that is none of an option's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("\"{name}\" is not a {what} bip knows: expected {}", or_list(expected))]
pub struct UnknownName {
    /// What the option is.
    pub what: &'static str,
    /// The name given.
    pub name: String,
    /// Every name the option has.
    pub expected: Vec<&'static str>,
}

fn or_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// `Display`, `FromStr` and serde for a [`Named`] enum, by its names.
macro_rules! named_impls {
    ($t:ty) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::Named::name(*self))
            }
        }

        impl std::str::FromStr for $t {
            type Err = $crate::UnknownName;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                <$t as $crate::Named>::from_name(s)
            }
        }

        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($crate::Named::name(*self))
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                <$t as $crate::Named>::from_name(&name).map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use named_impls;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ActionLikelihood, PromptStyle, SearchSets, TokenReduction};

    /// Checks that every value of `T` has exactly one row, and every name one value.
    fn check_rows<T: Named + std::fmt::Debug>(all: &[T]) {
        assert_eq!(T::VALUES.len(), all.len(), "{}: a row per value", T::WHAT);
        for &value in all {
            let rows = T::VALUES.iter().filter(|(v, _, _)| *v == value).count();
            assert_eq!(rows, 1, "{}: {value:?} has {rows} rows", T::WHAT);
            assert_eq!(T::from_name(value.name()), Ok(value));
            assert!(!value.help().is_empty());
        }
    }

    #[test]
    fn every_value_of_the_engines_options_has_one_row_and_its_name_in_json() {
        check_rows(&[TokenReduction::Mean, TokenReduction::Sum]);
        check_rows(&[ActionLikelihood::Text, ActionLikelihood::Choice]);
        check_rows(&[PromptStyle::Bip, PromptStyle::BipAlm]);
        check_rows(&[SearchSets::Pushed, SearchSets::Episode, SearchSets::None]);
        let json = serde_json::to_string(&PromptStyle::BipAlm).expect("serialise");
        assert_eq!(json, "\"bip-alm\"");
        let back: PromptStyle = serde_json::from_str(&json).expect("read");
        assert_eq!(back, PromptStyle::BipAlm);
        let wrong = serde_json::from_str::<TokenReduction>("\"max\"").expect_err("refused");
        assert!(
            wrong.to_string().contains("expected mean or sum"),
            "{wrong}"
        );
        assert_eq!("choice".parse(), Ok(ActionLikelihood::Choice));
    }

    #[test]
    fn an_unknown_name_lists_every_name() {
        let e = UnknownName {
            what: "score",
            name: "max".into(),
            expected: vec!["mean", "sum", "first"],
        };
        assert_eq!(
            e.to_string(),
            "\"max\" is not a score bip knows: expected mean, sum or first"
        );
    }
}
