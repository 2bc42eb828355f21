//! A served model's top k at each scored position: what weak-to-strong steering of a
//! served large model works from ([`crate::steered_top_k`]).

use std::collections::HashMap;

use super::align::Alignment;
use super::model::{RemoteModel, RemoteRequest};
use super::pool::run_bounded;
use crate::error::Result;

/// The large model's view of one scored token.
#[derive(Clone, Debug, PartialEq)]
pub struct TopK {
    /// Its top k at that position, `(token id, log-probability)`, likeliest first.
    /// Entries whose text names no single token of bip's vocabulary are left out (the
    /// engine keys them by text; partial UTF-8 bytes all read alike).
    pub top: Vec<(u32, f64)>,
    /// The scored token's own log-probability.
    pub logprob: f64,
}

/// Each token's text (as engines key `top_logprobs`) to its id; `None` for a text that
/// more than one token has.
pub(super) fn reverse_vocabulary(
    texts: impl Iterator<Item = (u32, String)>,
) -> HashMap<String, Option<u32>> {
    let mut map = HashMap::new();
    for (id, text) in texts {
        map.entry(text)
            .and_modify(|e: &mut Option<u32>| *e = None)
            .or_insert(Some(id));
    }
    map
}

impl RemoteModel {
    /// Scores `requests` as [`RemoteModel::score`] does, handing `done` the top
    /// [`super::RemoteOptions::top_k`] of every continuation position as well.
    ///
    /// # Errors
    ///
    /// As [`RemoteModel::score`].
    pub fn score_top_k(
        &self,
        requests: &[RemoteRequest<'_>],
        done: &mut dyn FnMut(usize, Vec<TopK>) -> Result<()>,
    ) -> Result<()> {
        let options = self.options();
        run_bounded(
            requests.len(),
            options.concurrency,
            |i| self.top_k_one(&requests[i], options.top_k),
            done,
        )
    }

    fn top_k_one(&self, request: &RemoteRequest<'_>, k: usize) -> Result<Vec<TopK>> {
        let scored = self.scored_echo(request, k)?;
        let vocabulary = self.reverse_vocabulary();
        let alignment = self.alignment().unwrap_or(Alignment::Own);
        scored
            .positions
            .iter()
            .zip(&scored.logprobs)
            .map(|(&at, &logprob)| {
                let at = match alignment {
                    Alignment::Own => at,
                    Alignment::Previous => at.saturating_sub(1),
                };
                let map = scored.echo.top.get(at).and_then(Option::as_ref);
                let mut top: Vec<(u32, f64)> = map
                    .into_iter()
                    .flatten()
                    .filter_map(|(text, &l)| Some(((*vocabulary.get(text)?)?, l)))
                    .filter(|(_, l)| l.is_finite())
                    .collect();
                top.sort_by(|a, b| b.1.total_cmp(&a.1));
                // llama.cpp adds the echoed token's own entry beyond its top k.
                top.truncate(scored.top_k);
                Ok(TopK { top, logprob })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_that_several_tokens_share_name_none() {
        let map = reverse_vocabulary(
            [
                (0, "a".to_string()),
                (1, "".into()),
                (2, "".into()),
                (3, " b".into()),
            ]
            .into_iter(),
        );
        assert_eq!(map.get("a"), Some(&Some(0)));
        assert_eq!(map.get(""), Some(&None));
        assert_eq!(map.get(" b"), Some(&Some(3)));
    }
}
