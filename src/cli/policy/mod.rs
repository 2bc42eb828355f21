//! The policy options shared by `infer`, `eval`, `calibrate` and `variance`.

mod calibrated;
pub(super) mod error;
pub(super) mod load;
pub(super) mod named;
pub(super) mod scoring;

use std::path::PathBuf;

use clap::Args;

use bip::engine::{ActionLikelihood, HybridPolicy, Policy, PromptStyle, Pruning, TokenReduction};
use bip::models::Device;
use bip::policy::{PolicyKind, PolicyOptions};

use crate::cli::policy::error::flag_error;
use crate::cli::policy::load::LoadArgs;
use crate::cli::policy::named::NamedParser;

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
    /// LM policies: how models are loaded, scores kept and served models reached.
    #[command(flatten)]
    load: LoadArgs,
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
            max_context: self.load.max_context,
            weights: self.load.lm_weights,
            serving: self.load.scoring.options(),
            ..PolicyOptions::default()
        };
        let fitted = self.calibrated(&options.lm_settings())?;
        (options.beta, options.lm_weight, options.alpha) =
            (fitted.beta, fitted.lm_weight, fitted.alpha);
        if let Some(spread) = fitted.search_spread {
            options.search_spread = spread;
        }
        Ok(options)
    }

    /// Builds the policy the flags describe (loading language models as needed).
    pub fn build(&self) -> anyhow::Result<Box<dyn Policy>> {
        // --max-context is checked as `bip lm` checks it, with the same message.
        load::max_context(self.load.max_context)?;
        let options = self.options()?;
        let built = options.build_with_caches().map_err(flag_error)?;
        self.load.scoring.opened(built.caches, built.top_k_bound);
        Ok(built.policy)
    }

    /// The weak-to-strong policy the flags describe at each α of `alphas` (`bip
    /// calibrate` fits α), over one run of the models, with the options it was built from.
    pub fn build_alpha_sweep(
        &self,
        alphas: &[f64],
    ) -> anyhow::Result<(Vec<Box<dyn Policy>>, PolicyOptions)> {
        load::max_context(self.load.max_context)?;
        let options = self.options()?;
        let built = options.build_alpha_sweep(alphas).map_err(flag_error)?;
        let policies = built
            .into_iter()
            .map(|b| {
                self.load.scoring.opened(b.caches, None);
                b.policy
            })
            .collect();
        Ok((policies, options))
    }

    /// The hybrid policy the flags describe, whatever --policy says (`bip calibrate`
    /// fits its LM weight), with the options it was built from (β, pruning).
    pub fn build_hybrid(&self) -> anyhow::Result<(HybridPolicy, PolicyOptions)> {
        load::max_context(self.load.max_context)?;
        let options = self.options()?;
        let (hybrid, caches) = options.build_hybrid().map_err(flag_error)?;
        self.load.scoring.opened(caches, None);
        Ok((hybrid, options))
    }

    /// One line per score cache used and per top-k bound, for the end of the run.
    pub fn cache_report(&self) -> Vec<String> {
        self.load.scoring.report()
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
}
