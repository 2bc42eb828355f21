//! Flags whose values are an option's names ([`Named`]): clap lists, checks and parses
//! them from the library's own table, so that no name is spelled again here.

use std::ffi::OsStr;
use std::marker::PhantomData;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;

use bip::engine::Named;

/// The value parser of a flag taking one of `T`'s names.
#[derive(Debug)]
pub struct NamedParser<T>(PhantomData<T>);

impl<T> NamedParser<T> {
    /// The parser.
    pub fn new() -> Self {
        Self(PhantomData)
    }
}

// Derived `Clone` would ask `T: Clone` of the marker.
impl<T> Clone for NamedParser<T> {
    fn clone(&self) -> Self {
        Self::new()
    }
}

impl<T: Named + Send + Sync> TypedValueParser for NamedParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        // clap's own check, for its message and its "a similar value exists" tip; the
        // name it lets through is one of `T`'s.
        let name = PossibleValuesParser::new(possible::<T>()).parse_ref(cmd, arg, value)?;
        T::from_name(&name).map_err(|e| clap::Error::raw(ErrorKind::InvalidValue, e).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(possible::<T>()))
    }
}

fn possible<T: Named>() -> impl Iterator<Item = PossibleValue> {
    T::VALUES
        .iter()
        .map(|(_, name, help)| PossibleValue::new(*name).help(*help))
}
