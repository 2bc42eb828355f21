//! The policy options shared by `infer`, `eval`, `calibrate` and `variance`.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context};
use clap::Args;

use bip::engine::{
    check_beta, ActionLikelihood, HybridPolicy, Policy, PromptStyle, Pruning, TokenReduction,
    DEFAULT_BETA,
};
use bip::episodes::limits::number;
use bip::lab::calibrate::{CalibrationFile, LmSettings};
use bip::models::{Device, WeightStorage, DEFAULT_MAX_CONTEXT};
use bip::policy::{PolicyKind, PolicyOptions};

use super::lm;
use super::named::NamedParser;
use super::policy_error::flag_error;
use super::scoring::ScoringArgs;

/// Policy flags.
#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// Model of the agent.
    #[arg(long, value_parser = NamedParser::<PolicyKind>::new(), default_value_t = PolicyKind::Planner)]
    policy: PolicyKind,
    /// Rationality of the planner: 0 acts at random, larger is closer to optimal
    /// (default 3, or the calibrated value).
    #[arg(long, allow_negative_numbers = true)]
    beta: Option<f64>,
    /// A calibration file written by `bip calibrate`: its β; with --policy hybrid its
    /// fitted LM weight; with --policy w2s (or a steered hybrid) its fitted α.
    #[arg(long, conflicts_with = "beta")]
    calibration: Option<PathBuf>,
    /// Language model of the lm and hybrid policies: a GGUF file, a Hugging Face folder,
    /// an alias (smollm2-135m, qwen2.5-coder-0.5b, qwen2.5-coder-1.5b, fetched by
    /// scripts/fetch-models.sh), or a served model
    /// (`http://HOST:PORT/v1` or `URL#NAME`, with --tokenizer).
    #[arg(long, default_value = "smollm2-135m")]
    model: String,
    /// A PEFT LoRA adapter folder applied to --model.
    #[arg(long)]
    adapter: Option<PathBuf>,
    /// Weak-to-strong: the large model L (a served one too: `http://HOST:PORT/v1`, with
    /// --tokenizer; then steered from its top log-probabilities). With --policy hybrid,
    /// the hybrid's language model is L steered by --expert and --naive (not --model).
    #[arg(long, required_if_eq("policy", "w2s"))]
    large: Option<String>,
    /// Weak-to-strong: the small expert E (post-trained).
    #[arg(long, required_if_eq("policy", "w2s"))]
    expert: Option<String>,
    /// Weak-to-strong: a PEFT LoRA adapter that makes the expert from its base model.
    #[arg(long)]
    expert_adapter: Option<PathBuf>,
    /// Weak-to-strong: the small naive model N (the expert before post-training).
    #[arg(long, required_if_eq("policy", "w2s"))]
    naive: Option<String>,
    /// Weak-to-strong steering strength α in s_L + α (s_E − s_N) (default 1, or the
    /// calibrated value).
    #[arg(long, allow_negative_numbers = true)]
    alpha: Option<f64>,
    /// Where language models run: `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value_t = Device::Cpu)]
    device: Device,
    /// How token log-probabilities become an action's score.
    #[arg(long, value_parser = NamedParser::<TokenReduction>::new(), default_value_t = TokenReduction::Mean)]
    lm_score: TokenReduction,
    /// What an action's LM score is a probability of: `text` (its text after the prompt,
    /// BIP-ALM's) or `choice` (normalised over every action possible at the step).
    #[arg(long, value_parser = NamedParser::<ActionLikelihood>::new(), default_value_t = ActionLikelihood::Text)]
    lm_likelihood: ActionLikelihood,
    /// Wording of the LM prompts.
    #[arg(long, value_parser = NamedParser::<PromptStyle>::new(), default_value_t = PromptStyle::Bip)]
    prompt_style: PromptStyle,
    /// LM prompts also say what the agent has seen so far (containers looked into and
    /// what was inside, surfaces holding something).
    #[arg(long)]
    prompt_observations: bool,
    /// Hybrid: weight of the planner's log-likelihood.
    #[arg(long, default_value_t = 1.0)]
    planner_weight: f64,
    /// Hybrid: weight of the LM's log-likelihood (default 1, or the calibrated value).
    #[arg(long)]
    lm_weight: Option<f64>,
    /// LM policies: score only the N hypotheses the planner finds most probable for each
    /// answer option (0: score every hypothesis, which is far slower).
    #[arg(long, default_value_t = 2)]
    prune_to: usize,
    /// LM policies: longest sequence a model runs on (its own context when shorter; at
    /// most 1048576).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONTEXT)]
    max_context: usize,
    /// LM policies: how loaded models hold their weights: `f32`; `f16` (on the CPU, half
    /// the memory, each weight rounded once, the arithmetic f32); `int8` (on the CPU, a
    /// quarter of the memory, weights and activations in 8-bit blocks, integer dot
    /// products).
    #[arg(long, value_name = "STORAGE", default_value_t = WeightStorage::F32)]
    lm_weights: WeightStorage,
    #[command(flatten)]
    scoring: ScoringArgs,
}

impl PolicyArgs {
    /// The library's options for the flags (β and the LM weight read from --calibration
    /// when given).
    pub fn options(&self) -> anyhow::Result<PolicyOptions> {
        let mut options = PolicyOptions {
            kind: self.kind(),
            model: self.model.clone(),
            adapter: self.adapter.clone(),
            large: self.large.clone(),
            expert: self.expert.clone(),
            expert_adapter: self.expert_adapter.clone(),
            naive: self.naive.clone(),
            device: self.device,
            reduction: self.lm_score,
            likelihood: self.lm_likelihood,
            style: self.prompt_style,
            prompt_observations: self.prompt_observations,
            planner_weight: self.planner_weight,
            prune_to: self.prune_to,
            max_context: self.max_context,
            weights: self.lm_weights,
            serving: self.scoring.options(),
            ..PolicyOptions::default()
        };
        let fitted = self.calibrated(&options.lm_settings())?;
        (options.beta, options.lm_weight, options.alpha) = fitted;
        Ok(options)
    }

    /// Builds the policy the flags describe (loading language models as needed).
    pub fn build(&self) -> anyhow::Result<Box<dyn Policy>> {
        // --max-context is checked as `bip lm` checks it, with the same message.
        lm::max_context(self.max_context)?;
        let options = self.options()?;
        let built = options.build_with_caches().map_err(flag_error)?;
        self.scoring.opened(built.caches, built.top_k_bound);
        Ok(built.policy)
    }

    /// The weak-to-strong policy the flags describe at each α of `alphas` (`bip
    /// calibrate` fits α), over one run of the models, with the options it was built from.
    pub fn build_alpha_sweep(
        &self,
        alphas: &[f64],
    ) -> anyhow::Result<(Vec<Box<dyn Policy>>, PolicyOptions)> {
        lm::max_context(self.max_context)?;
        let options = self.options()?;
        let built = options.build_alpha_sweep(alphas).map_err(flag_error)?;
        let policies = built
            .into_iter()
            .map(|b| {
                self.scoring.opened(b.caches, None);
                b.policy
            })
            .collect();
        Ok((policies, options))
    }

    /// The hybrid policy the flags describe, whatever --policy says (`bip calibrate`
    /// fits its LM weight), with the options it was built from (β, pruning).
    pub fn build_hybrid(&self) -> anyhow::Result<(HybridPolicy, PolicyOptions)> {
        lm::max_context(self.max_context)?;
        let options = self.options()?;
        let (hybrid, caches) = options.build_hybrid().map_err(flag_error)?;
        self.scoring.opened(caches, None);
        Ok((hybrid, options))
    }

    /// One line per score cache used and per top-k bound, for the end of the run.
    pub fn cache_report(&self) -> Vec<String> {
        self.scoring.report()
    }

    /// The hypothesis pruning the flags ask for: none for the planner, whose every
    /// hypothesis costs microseconds.
    pub fn pruning(&self) -> anyhow::Result<Option<Pruning>> {
        Ok(self.options()?.pruning())
    }

    /// Whether --alpha was given.
    pub fn alpha_given(&self) -> bool {
        self.alpha.is_some()
    }

    /// The calibration file given, if any.
    pub fn calibration(&self) -> Option<&std::path::Path> {
        self.calibration.as_deref()
    }

    /// The kind of policy asked for.
    pub fn kind(&self) -> PolicyKind {
        self.policy
    }

    /// β, the hybrid's LM weight and α from the flags, --calibration or the defaults; β
    /// checked to be in range (the weight and α are checked with the other options). A
    /// fitted weight or α is only read under the LM settings it was fitted with (`lm`).
    fn calibrated(&self, lm: &LmSettings) -> anyhow::Result<(f64, f64, f64)> {
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
        Ok((beta, lm_weight, alpha))
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
