//! β, the hybrid's LM weight, α and the planner's search spread and world prior read from
//! `--calibration`, under the LM settings they were fitted with.

use anyhow::{anyhow, bail, Context};

use bip::engine::{check_beta, HypothesisConfig, DEFAULT_BETA};
use bip::episodes::limits::number;
use bip::lab::calibrate::{CalibrationFile, LmSettings};
use bip::policy::PolicyKind;

use super::PolicyArgs;

/// What the flags, --calibration or the defaults set.
pub(super) struct Calibrated {
    pub(super) beta: f64,
    pub(super) lm_weight: f64,
    pub(super) alpha: f64,
    /// The planner's search spread, when the file fitted one.
    pub(super) search_spread: Option<f64>,
}

impl PolicyArgs {
    /// β, the hybrid's LM weight and α from the flags, --calibration or the defaults, and
    /// the search spread if --calibration fitted one; β checked to be in range (the
    /// weight, α and the spread are checked with the other options). A fitted weight or α
    /// is only read under the LM settings it was fitted with (`lm`).
    pub(super) fn calibrated(&self, lm: &LmSettings) -> anyhow::Result<Calibrated> {
        let file = match &self.calibration {
            Some(path) => Some((path, self.read_calibration(path, lm)?)),
            None => None,
        };
        let beta = match (&file, self.beta) {
            (Some((_, file)), _) => file.beta.context("the calibration has no β")?,
            (None, Some(beta)) => beta,
            (None, None) => DEFAULT_BETA,
        };
        check_beta(beta).map_err(|_| anyhow!("--beta {}: must be in [0, 1e6]", number(beta)))?;
        // A value the file sets, else the flag's, else 1; not both.
        let fitted =
            |value: fn(&CalibrationFile) -> Option<f64>, given: Option<f64>, flag, what| match (
                file.as_ref().and_then(|(p, f)| Some((p, value(f)?))),
                given,
            ) {
                (Some((path, _)), Some(_)) => bail!(
                    "{flag}: the calibration {} sets {what}; give one or the other",
                    path.display()
                ),
                (Some((_, v)), None) | (None, Some(v)) => Ok(v),
                (None, None) => Ok(1.0),
            };
        let lm_weight = fitted(
            |f| f.lm_weight,
            self.lm_weight,
            "--lm-weight",
            "the LM weight",
        )?;
        let alpha = fitted(|f| f.alpha, self.alpha, "--alpha", "α")?;
        let search_spread = file.as_ref().and_then(|(_, f)| f.search_spread);
        Ok(Calibrated {
            beta,
            lm_weight,
            alpha,
            search_spread,
        })
    }

    /// `hypotheses` with what --calibration says of the hypothesis space, where it says
    /// it: the world-aware prior's weights (goal weight of a class the house lacks,
    /// open-view weight; `bip calibrate --world-prior`) and whether beliefs grow.
    pub fn hypotheses(&self, hypotheses: HypothesisConfig) -> anyhow::Result<HypothesisConfig> {
        let Some(path) = &self.calibration else {
            return Ok(hypotheses);
        };
        let lm = self.options()?.lm_settings();
        let file = self.read_calibration(path, &lm)?;
        let (absent, open) = file
            .absent_goal_weight
            .zip(file.open_view_weight)
            .unwrap_or((hypotheses.absent_goal_weight, hypotheses.open_view_weight));
        Ok(HypothesisConfig {
            absent_goal_weight: absent,
            open_view_weight: open,
            beliefs_grow: file.beliefs_grow.unwrap_or(hypotheses.beliefs_grow),
            ..hypotheses
        })
    }

    /// Reads a calibration for this policy: a planner's (β) for any, a hybrid's (β and
    /// the LM weight) for the hybrid only, under the LM settings `lm` it was fitted with.
    fn read_calibration(
        &self,
        path: &std::path::Path,
        lm: &LmSettings,
    ) -> anyhow::Result<CalibrationFile> {
        let text = bip::io::read_input(path)?;
        let file =
            CalibrationFile::from_json(&text).with_context(|| format!("{}", path.display()))?;
        let steered = self.policy == PolicyKind::W2s
            || (self.policy == PolicyKind::Hybrid && self.large.is_some());
        match file.policy.as_str() {
            "planner" => Ok(file),
            "hybrid" if self.policy == PolicyKind::Hybrid => {
                check_lm_settings(path, file.lm.as_ref(), lm)?;
                Ok(file)
            }
            // α (and the β it was fitted at) for a steered language model, alone or in
            // the hybrid.
            "w2s" if steered => {
                check_lm_settings(path, file.lm.as_ref(), lm)?;
                Ok(file)
            }
            "hybrid" | "w2s" => bail!(
                "{}: calibrated for the {} policy, not --policy {}{}",
                path.display(),
                file.policy,
                self.kind(),
                if file.policy == "w2s" {
                    " (a hybrid reads α when its language model is steered: --large)"
                } else {
                    ""
                }
            ),
            other => bail!(
                "{}: calibrated for policy \"{other}\", not the planner",
                path.display()
            ),
        }
    }
}

/// Refuses a calibration fitted under other LM settings than the run's, naming
/// each difference as the flag that sets it. A file from before the settings were
/// recorded is read with a warning.
fn check_lm_settings(
    path: &std::path::Path,
    fitted: Option<&LmSettings>,
    run: &LmSettings,
) -> anyhow::Result<()> {
    let Some(fitted) = fitted else {
        note!(
            "bip: warning: {} does not record the LM settings its weight was fitted under; \
             it is read as fitted under this run's",
            path.display()
        );
        return Ok(());
    };
    let differences: Vec<String> = fitted
        .differences(run)
        .into_iter()
        .map(|d| {
            let flag = match d.setting {
                // The steered model is L.
                "model" if run.steering.is_some() => "--large".to_string(),
                "score" => "--lm-score".to_string(),
                "likelihood" => "--lm-likelihood".to_string(),
                other => format!("--{}", other.replace('_', "-")),
            };
            format!("{flag} {} (this run: {})", d.fitted, d.run)
        })
        .collect();
    if differences.is_empty() {
        return Ok(());
    }
    bail!(
        "{}: its LM weight was fitted with {}; run with the same LM settings, or fit again \
         with bip calibrate",
        path.display(),
        differences.join(", ")
    )
}
