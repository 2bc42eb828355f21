//! Either kind of `bip-episode/1` document: one acting agent ([`Episode`]) or several
//! agents in a story ([`Story`]).

use serde::Deserialize;

use crate::episode::Episode;
use crate::error::EpisodeError;
use crate::story::Story;

/// A `bip-episode/1` document of either kind. A file with `agents` is a story; any other
/// is a single-agent episode, read exactly as [`Episode::from_json`] reads it.
#[derive(Debug, Clone)]
pub enum AnyEpisode {
    /// One agent and its actions.
    Single(Episode),
    /// Several agents and what happens between them.
    Story(Story),
}

/// Just enough of a document to tell its kind.
#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    agents: Option<serde::de::IgnoredAny>,
}

impl AnyEpisode {
    /// Reads either kind of document from JSON text; `fallback_id` names it when the file
    /// has no `id`.
    ///
    /// # Errors
    /// As [`Episode::from_json`] or [`Story::from_json`].
    pub fn from_json(text: &str, fallback_id: &str) -> Result<AnyEpisode, EpisodeError> {
        match serde_json::from_str::<Probe>(text) {
            Ok(Probe { agents: Some(_) }) => Story::from_json(text, fallback_id).map(Self::Story),
            _ => Episode::from_json(text, fallback_id).map(Self::Single),
        }
    }

    /// The document's identifier.
    pub fn id(&self) -> &str {
        match self {
            Self::Single(e) => e.id(),
            Self::Story(s) => s.id(),
        }
    }

    /// The document as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        match self {
            Self::Single(e) => e.to_json(),
            Self::Story(s) => s.to_json(),
        }
    }
}
