//! Generated episodes told in themes ([`bip_themes`]): the same stream of episodes, each
//! renamed into one theme's words, so that a model can be trained or tested on a mixture
//! of themes, or on one.
//!
//! Episode `i` of a themed stream is episode `i` of the plain stream told in theme
//! number [`theme_index`]`(i, …)`, a fixed rule rather than a draw: the same seed gives
//! the same corpus, every theme gets an equal share, and every question type meets every
//! theme. A theme only renames, so the simulated agent's truth ([`AgentTruth`]) is the
//! plain episode's: the themed world keeps every room, piece of furniture, object and
//! class at its index, and the truth's ids index it unchanged.

use bip_episodes::Episode;
use bip_themes::Theme;
use rayon::prelude::*;

use super::{generate_with_truth, AgentTruth, GenerateOptions};
use crate::LabError;

/// Which of `themes` themes episode `index` of a stream with `types` question types is
/// told in: round robin, `(index + ⌊index / c⌋) mod themes` with
/// `c = lcm(themes, types)`.
///
/// Plain round robin (`index mod themes`) would pair types with themes for ever when
/// their counts share a factor (types `i mod 2`, themes `i mod 6`: Apartment would only
/// ever ask the first type); moving on by one theme every `c` episodes gives each
/// (type, theme) pair the same share, and leaves the first `c` episodes plain round
/// robin (42 with the seven types and six built-in themes). Each theme's share of any
/// prefix differs from the others' by at most one.
///
/// # Panics
/// If `themes` is 0.
///
/// # Example
/// ```
/// use bip_lab::generate::theme_index;
///
/// let six_of_seven: Vec<usize> = (0..8).map(|i| theme_index(i, 6, 7)).collect();
/// assert_eq!(six_of_seven, [0, 1, 2, 3, 4, 5, 0, 1]);
/// // Two types and two themes: the second lap swaps which type each theme asks.
/// let two_of_two: Vec<usize> = (0..4).map(|i| theme_index(i, 2, 2)).collect();
/// assert_eq!(two_of_two, [0, 1, 1, 0]);
/// ```
pub fn theme_index(index: usize, themes: usize, types: usize) -> usize {
    let lap = lcm(themes, types.max(1));
    (index % themes + (index / lap) % themes) % themes
}

fn lcm(a: usize, b: usize) -> usize {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

/// Like [`generate_with_truth`], the episode told in its theme of `themes`
/// ([`theme_index`]); `themes` empty, or an identity theme (Apartment), leaves the episode
/// as the generator made it.
///
/// # Errors
/// As [`generate_with_truth`]; [`LabError::GeneratedUnthemed`] if the theme refuses
/// the episode (it could not be given back exactly), and [`LabError::GeneratedInvalid`]
/// if the themed episode is not valid.
pub fn themed_with_truth(
    options: &GenerateOptions,
    themes: &[Theme],
    index: usize,
) -> Result<(Episode, AgentTruth), LabError> {
    let (episode, truth) = generate_with_truth(options, index)?;
    if themes.is_empty() {
        return Ok((episode, truth));
    }
    let theme = &themes[theme_index(index, themes.len(), options.types.len())];
    if theme.is_identity() {
        return Ok((episode, truth));
    }
    let themed =
        theme
            .apply_episode(&episode.to_file())
            .map_err(|source| LabError::GeneratedUnthemed {
                index,
                theme: theme.id().to_string(),
                source: Box::new(source),
            })?;
    let themed =
        Episode::from_file(themed, episode.id()).map_err(|source| LabError::GeneratedInvalid {
            index,
            what: "themed episode",
            source,
        })?;
    Ok((themed, truth))
}

/// Generates episodes `0..count` told in `themes` ([`themed_with_truth`]), in parallel,
/// identical to generating them one by one.
///
/// # Errors
/// The first failing episode's error.
///
/// # Example
/// ```
/// use bip_lab::generate::{generate, generate_themed, GenerateOptions};
/// use bip_themes::Theme;
///
/// let options = GenerateOptions::default();
/// let themes = ["apartment", "space"].map(|id| Theme::builtin(id).expect("built in"));
/// let themed = generate_themed(&options, &themes, 2)?;
/// let plain = generate(&options, 2)?;
/// // Apartment leaves episode 0 as it was; episode 1 is on a spaceship.
/// assert_eq!(themed[0].to_json(), plain[0].to_json());
/// assert_eq!(plain[1].world().rooms[0].name, "kitchen");
/// assert_eq!(themed[1].world().rooms[0].name, "replicator_station");
/// # Ok::<(), bip_lab::LabError>(())
/// ```
pub fn generate_themed(
    options: &GenerateOptions,
    themes: &[Theme],
    count: usize,
) -> Result<Vec<Episode>, LabError> {
    (0..count)
        .into_par_iter()
        .map(|i| themed_with_truth(options, themes, i).map(|(episode, _)| episode))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, QuestionType};
    use bip_episodes::World;

    /// Every (type, theme) pair occurs equally often in `types × themes` episodes.
    #[test]
    fn every_type_meets_every_theme_equally() {
        for (themes, types) in [(6, 7), (6, 2), (6, 3), (4, 6), (1, 7), (3, 1)] {
            let mut seen = vec![0usize; themes * types];
            for i in 0..themes * types * 3 {
                seen[(i % types) * themes + theme_index(i, themes, types)] += 1;
            }
            assert!(seen.iter().all(|&n| n == 3), "{themes}×{types}: {seen:?}");
        }
    }

    /// The themed world names, index by index, what the theme calls the plain world's.
    fn same_layout(plain: &World, themed: &World, theme: &Theme) -> bool {
        let names = |w: &World| -> Vec<String> {
            let rooms = w.rooms.iter().map(|r| r.name.clone());
            let furniture = w.furniture.iter().map(|f| f.name.clone());
            let objects = w.objects.iter().map(|o| o.name.clone());
            let classes = w.classes.iter().chain(&w.furniture_classes).cloned();
            rooms
                .chain(furniture)
                .chain(objects)
                .chain(classes)
                .collect()
        };
        let renamed: Vec<String> = names(plain).iter().map(|n| theme.apply_id(n)).collect();
        renamed == names(themed)
    }

    #[test]
    fn themed_episodes_keep_every_index_so_the_truth_still_fits() {
        let options = GenerateOptions::default();
        let themes = bip_themes::builtins();
        let plain = generate(&options, 24).expect("generate");
        for (i, base) in plain.iter().enumerate() {
            let (episode, truth) = themed_with_truth(&options, &themes, i).expect("themed");
            let theme = &themes[theme_index(i, 6, 7)];
            assert!(same_layout(base.world(), episode.world(), theme), "{i}");
            assert_eq!(episode.actions().len(), base.actions().len());
            assert_eq!(truth.states.len(), base.actions().len() + 1);
            assert_eq!(
                episode.world().class_name(truth.goal),
                theme.apply_id(base.world().class_name(truth.goal))
            );
            let back = theme.invert_episode(&episode.to_file());
            assert_eq!(
                Episode::from_file(back, "b").expect("valid").to_json(),
                base.to_json()
            );
        }
    }

    #[test]
    fn no_themes_or_apartment_alone_is_the_plain_stream() {
        let options = GenerateOptions {
            types: vec![QuestionType::ALL[0], QuestionType::ALL[4]],
            ..GenerateOptions::default()
        };
        let plain: Vec<String> = generate(&options, 5)
            .expect("generate")
            .iter()
            .map(Episode::to_json)
            .collect();
        let apartment = [Theme::builtin("apartment").expect("built in")];
        for themes in [&[][..], &apartment[..]] {
            let themed = generate_themed(&options, themes, 5).expect("generate");
            let themed: Vec<String> = themed.iter().map(Episode::to_json).collect();
            assert_eq!(themed, plain);
        }
    }
}
