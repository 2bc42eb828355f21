//! Thematic variants of the bip vocabulary: the same episodes told in other worlds
//! (Apartment, Andersen Fairy Tales, Ancient Egyptian, Outer Space, Wild West, Medieval
//! Castle), to test whether a model of the agent depends on the words rather than on
//! what the agent does.
//!
//! A [`Theme`] maps every room, furniture class and object class of the MMToM-QA reader's
//! vocabulary (and the world noun, "apartment") to a themed noun with its plural and
//! article. Themes are `bip-theme/1` JSON files: the six above are built in
//! ([`builtins`], [`Theme::builtin`]; the files are in `themes/data/`), and users write
//! their own ([`Theme::from_json`]). Loading checks that a theme is one-to-one, that no
//! themed noun is a base noun of another class, and that none starts or ends with a word
//! the question grammar reads.
//!
//! A theme rewrites running text ([`Theme::apply_text`]), MMToM-QA records
//! ([`apply_record`]) and `bip-episode/1` files ([`Theme::apply_episode`]), and undoes
//! each ([`Theme::invert_text`], [`Theme::invert_episode`]); applying refuses input it
//! could not undo exactly. Themed MMToM-QA text is read by [`read_themed_record`], and
//! [`detect`] tells which theme a text is written in.
//!
//! ```
//! use bip_themes::Theme;
//!
//! let space = Theme::builtin("space").expect("built in");
//! let text = "Mark opens the fridge in the kitchen and takes an apple.";
//! let themed = space.apply_text(text)?;
//! assert_eq!(
//!     themed,
//!     "Mark opens the cold storage in the replicator station and takes a hydro apple."
//! );
//! assert_eq!(space.invert_text(&themed), text);
//! assert_eq!(space.apply_id("kitchen_cabinet_2"), "galley_locker_2");
//! # Ok::<(), bip_themes::ThemeError>(())
//! ```
#![deny(missing_docs)]

mod builtin;
mod episode;
mod error;
mod file;
mod ident;
mod mmtom;
mod rewrite;
mod text;
mod theme;
mod word;

pub use bip_episodes::import::mmtom::vocabulary::NounKind;
pub use builtin::{builtin_ids, builtins, check_extra, find, BASELINE};
pub use error::ThemeError;
pub use file::THEME_FORMAT;
pub use mmtom::{apply_record, detect, invert_record, read_themed_record};
pub use theme::{Entry, Theme};
pub use word::Word;
