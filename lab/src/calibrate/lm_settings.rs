//! The language-model settings a hybrid's LM weight was fitted under.
//!
//! The weight is an inverse temperature of one particular log-likelihood: a mean per token
//! and a whole text's sum differ in scale by the action's length, a choice among the
//! step's actions is not a text's probability, and another model or adapter scores
//! differently again. A weight read under other settings would scale the wrong thing, so a
//! calibration records them and a run is checked against them.

use serde::{Deserialize, Serialize};

use bip_engine::{ActionLikelihood, PromptStyle, TokenReduction};

/// What defines the LM log-likelihood a hybrid's weight multiplies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LmSettings {
    /// The model's file or folder name (an alias resolved to its file; a served model's
    /// address as given). Only the name, so that a calibration still applies where the
    /// same model lies in another folder.
    pub model: String,
    /// The LoRA adapter folder's name, if one was merged.
    pub adapter: Option<String>,
    /// How token log-probabilities became an action's score.
    pub score: TokenReduction,
    /// What the score is a probability of.
    pub likelihood: ActionLikelihood,
    /// The prompts' wording.
    pub prompt_style: PromptStyle,
    /// Whether the prompts said what the agent had seen.
    pub prompt_observations: bool,
    /// Hypotheses kept per answer option (0: all).
    pub prune_to: usize,
    /// Weak-to-strong: the small models that steer `model` (then the large one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steering: Option<Steering>,
}

/// The small models of weak-to-strong steering, by name as [`LmSettings::model`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Steering {
    /// The expert's model.
    pub expert: String,
    /// The LoRA adapter folder's name that makes the expert, if any.
    pub expert_adapter: Option<String>,
    /// The naive model.
    pub naive: String,
}

/// One setting on which a run differs from a calibration: its name (as in the file) and
/// both values, the calibration's first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingDifference {
    /// The field of [`LmSettings`].
    pub setting: &'static str,
    /// The calibration's value.
    pub fitted: String,
    /// The run's value.
    pub run: String,
}

impl LmSettings {
    /// The settings on which `run` differs from these (fitted) ones, in field order; empty
    /// when the weight applies to `run`.
    pub fn differences(&self, run: &LmSettings) -> Vec<SettingDifference> {
        let adapter = |a: &Option<String>| a.clone().unwrap_or_else(|| "none".to_string());
        // The expert, its adapter and the naive model, "none" where there is none.
        let steering = |s: &LmSettings| {
            let none = || "none".to_string();
            s.steering.clone().map_or_else(
                || [none(), none(), none()],
                |st| [st.expert, st.expert_adapter.unwrap_or_else(none), st.naive],
            )
        };
        let ([expert, expert_adapter, naive], [run_expert, run_expert_adapter, run_naive]) =
            (steering(self), steering(run));
        let pairs = [
            ("model", self.model.clone(), run.model.clone()),
            ("adapter", adapter(&self.adapter), adapter(&run.adapter)),
            ("score", serde_name(self.score), serde_name(run.score)),
            (
                "likelihood",
                serde_name(self.likelihood),
                serde_name(run.likelihood),
            ),
            (
                "prompt_style",
                serde_name(self.prompt_style),
                serde_name(run.prompt_style),
            ),
            (
                "prompt_observations",
                self.prompt_observations.to_string(),
                run.prompt_observations.to_string(),
            ),
            (
                "prune_to",
                self.prune_to.to_string(),
                run.prune_to.to_string(),
            ),
            ("expert", expert, run_expert),
            ("expert_adapter", expert_adapter, run_expert_adapter),
            ("naive", naive, run_naive),
        ];
        pairs
            .into_iter()
            .filter(|(_, fitted, run)| fitted != run)
            .map(|(setting, fitted, run)| SettingDifference {
                setting,
                fitted,
                run,
            })
            .collect()
    }
}

/// A unit variant's name as the file spells it.
fn serde_name(value: impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> LmSettings {
        LmSettings {
            model: "SmolLM2-135M-Instruct.Q4_1.gguf".into(),
            adapter: None,
            score: TokenReduction::Mean,
            likelihood: ActionLikelihood::Text,
            prompt_style: PromptStyle::Bip,
            prompt_observations: false,
            prune_to: 2,
            steering: None,
        }
    }

    #[test]
    fn the_same_settings_differ_nowhere() {
        assert!(settings().differences(&settings()).is_empty());
    }

    #[test]
    fn every_setting_that_changes_the_likelihood_is_named_with_both_values() {
        let run = LmSettings {
            model: "other.gguf".into(),
            adapter: Some("expert".into()),
            score: TokenReduction::Sum,
            likelihood: ActionLikelihood::Choice,
            prompt_style: PromptStyle::BipAlm,
            prompt_observations: true,
            prune_to: 4,
            steering: Some(Steering {
                expert: "small.gguf".into(),
                expert_adapter: Some("expert-s1".into()),
                naive: "small.gguf".into(),
            }),
        };
        let found: Vec<(&str, String, String)> = settings()
            .differences(&run)
            .into_iter()
            .map(|d| (d.setting, d.fitted, d.run))
            .collect();
        let expected = [
            ("model", "SmolLM2-135M-Instruct.Q4_1.gguf", "other.gguf"),
            ("adapter", "none", "expert"),
            ("score", "mean", "sum"),
            ("likelihood", "text", "choice"),
            ("prompt_style", "bip", "bip-alm"),
            ("prompt_observations", "false", "true"),
            ("prune_to", "2", "4"),
            ("expert", "none", "small.gguf"),
            ("expert_adapter", "none", "expert-s1"),
            ("naive", "none", "small.gguf"),
        ];
        let expected: Vec<(&str, String, String)> = expected
            .iter()
            .map(|&(s, f, r)| (s, f.to_string(), r.to_string()))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn settings_round_trip_through_json_with_the_flags_values() {
        let text = serde_json::to_string(&settings()).expect("serialises");
        assert!(text.contains(r#""score":"mean""#), "{text}");
        assert!(text.contains(r#""likelihood":"text""#), "{text}");
        assert!(text.contains(r#""prompt_style":"bip""#), "{text}");
        let back: LmSettings = serde_json::from_str(&text).expect("reads");
        assert_eq!(back, settings());
    }
}
