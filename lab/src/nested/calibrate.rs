//! Fitting the trust to stories with known answers: the τ that maximises the mean log
//! probability of the correct options.

use bip_episodes::Story;

use crate::calibrate::{golden_section_max, mean_log_correct, CalibrationFile};
use crate::LabError;

use bip_nested::infer_stories;
use bip_nested::{Trust, TRUST_RANGE};

/// Mean log probability (normalised over the options) of the correct options of every
/// answerable question in `stories` under trust `trust`, and how many there are.
///
/// # Errors
/// [`EngineError::InvalidParameter`](bip_engine::EngineError::InvalidParameter) for a trust outside [0, 1] or when no question has
/// an expected option.
pub fn trust_log_likelihood(stories: &[Story], trust: f64) -> Result<(f64, usize), LabError> {
    let trust = Trust::new(trust)?;
    let inferences = infer_stories(stories, trust);
    let answered = stories
        .iter()
        .zip(&inferences)
        .flat_map(|(story, inference)| {
            let expected = story.questions().iter().map(|q| q.expected);
            expected.zip(inference.answers.iter().map(|a| a.posterior.as_slice()))
        });
    mean_log_correct(answered)
}

/// Fits τ by golden-section search over [`TRUST_RANGE`] (the log-likelihood is a sum of
/// terms in log τ and log(1 − τ), single-peaked), to within 0.001.
///
/// # Errors
/// As [`trust_log_likelihood`].
pub fn fit_trust(stories: &[Story]) -> Result<CalibrationFile, LabError> {
    let score = |t: f64| trust_log_likelihood(stories, t).map(|(ll, _)| ll);
    let trust = golden_section_max(score, TRUST_RANGE, 0.001)?;
    let (mean_log_likelihood, questions) = trust_log_likelihood(stories, trust)?;
    Ok(CalibrationFile {
        trust: Some(trust),
        ..CalibrationFile::fitted("nested", mean_log_likelihood, questions)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nested::generate::{generate_stories, NestedOptions};
    use bip_nested::DEFAULT_TRUST;

    #[test]
    fn the_fit_finds_the_simulated_trust_and_saves_it() {
        let options = NestedOptions {
            trust: 0.7,
            seed: 4,
            ..NestedOptions::default()
        };
        let stories = generate_stories(&options, 600).expect("generate");
        let fit = fit_trust(&stories).expect("fit");
        let trust = fit.trust.expect("a nested calibration has a trust");
        assert!((trust - 0.7).abs() < 0.06, "{trust}");
        for other in [0.5, 0.9, 0.99] {
            let (ll, _) = trust_log_likelihood(&stories, other).expect("score");
            assert!(fit.mean_log_likelihood >= ll - 1e-6, "{other}");
        }
        let text = serde_json::to_string(&fit).expect("serialise");
        assert_eq!(CalibrationFile::from_json(&text).expect("reads"), fit);
        let no_trust = text.replace("\"trust\"", "\"mistrust\"");
        assert!(CalibrationFile::from_json(&no_trust).is_err());
    }

    #[test]
    fn the_default_trust_is_the_fit_the_readme_reports() {
        let options = NestedOptions {
            seed: 1,
            ..NestedOptions::default()
        };
        let stories = generate_stories(&options, 2000).expect("generate");
        let trust = fit_trust(&stories).expect("fit").trust.expect("trust");
        assert!((trust - DEFAULT_TRUST).abs() < 0.005, "{trust}");
    }
}
