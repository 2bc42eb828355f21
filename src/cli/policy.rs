//! The policy options shared by `infer`, `eval`, `calibrate` and `variance`.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

use bip::engine::calibrate::CalibrationFile;
use bip::engine::{
    HybridPolicy, LmPolicy, PlannerPolicy, Policy, PromptStyle, PromptTemplate, Pruning,
    TextScorer, TokenReduction, DEFAULT_BETA,
};

use bip::models::{Device, DEFAULT_MAX_CONTEXT, MAX_W2S_ALPHA};

use super::scoring::ScoringArgs;
use super::{lm, lm_load};

/// The largest weight `--planner-weight` and `--lm-weight` take: a log-likelihood scaled
/// by more only overflows.
const MAX_HYBRID_WEIGHT: f64 = 1000.0;

/// Which model of the agent scores its actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PolicyKind {
    /// Symbolic Boltzmann-rational belief-space planner (no weights).
    Planner,
    /// A causal language model scores each action's text (BIP-ALM's way).
    Lm,
    /// Weak-to-strong: a large LM steered by a small expert against its naive twin.
    W2s,
    /// Product of the planner and a language model (weights --planner-weight, --lm-weight).
    Hybrid,
}

/// How the LM turns an action's token log-probabilities into one score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReductionArg {
    /// Mean per token (BIP-ALM).
    Mean,
    /// Sum: the whole text's log-probability.
    Sum,
}

/// Wording of the LM prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StyleArg {
    /// bip's plain-English lines.
    Bip,
    /// BIP-ALM's `state:` / `goal:` / `belief:` / `action:` fields.
    BipAlm,
}

/// Policy flags.
#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// Model of the agent.
    #[arg(long, value_enum, default_value_t = PolicyKind::Planner)]
    policy: PolicyKind,
    /// Rationality of the planner: 0 acts at random, larger is closer to optimal
    /// (default 3, or the calibrated value).
    #[arg(long, allow_negative_numbers = true)]
    beta: Option<f64>,
    /// A calibration file written by `bip calibrate`, whose β is used.
    #[arg(long, conflicts_with = "beta")]
    calibration: Option<PathBuf>,
    /// Language model of the lm and hybrid policies: a GGUF file, a Hugging Face folder,
    /// an alias (smollm2-135m, fetched by scripts/fetch-models.sh), or a served model
    /// (`http://HOST:PORT/v1` or `URL#NAME`, with --tokenizer).
    #[arg(long, default_value = "smollm2-135m")]
    model: String,
    /// A PEFT LoRA adapter folder applied to --model.
    #[arg(long)]
    adapter: Option<PathBuf>,
    /// Weak-to-strong: the large model L (a served one too: `http://HOST:PORT/v1`, with
    /// --tokenizer; then steered from its top log-probabilities).
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
    /// Weak-to-strong steering strength α in s_L + α (s_E − s_N).
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    alpha: f64,
    /// Where language models run: `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value_t = Device::Cpu)]
    device: Device,
    /// How token log-probabilities become an action's score.
    #[arg(long, value_enum, default_value_t = ReductionArg::Mean)]
    lm_score: ReductionArg,
    /// Wording of the LM prompts.
    #[arg(long, value_enum, default_value_t = StyleArg::Bip)]
    prompt_style: StyleArg,
    /// Hybrid: weight of the planner's log-likelihood.
    #[arg(long, default_value_t = 1.0)]
    planner_weight: f64,
    /// Hybrid: weight of the LM's log-likelihood.
    #[arg(long, default_value_t = 1.0)]
    lm_weight: f64,
    /// LM policies: score only the N hypotheses the planner finds most probable for each
    /// answer option (0: score every hypothesis, which is far slower).
    #[arg(long, default_value_t = 2)]
    prune_to: usize,
    /// LM policies: longest sequence a model runs on (its own context when shorter; at
    /// most 1048576).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONTEXT)]
    max_context: usize,
    #[command(flatten)]
    scoring: ScoringArgs,
}

impl PolicyArgs {
    /// Builds the policy the flags describe (loading language models as needed).
    pub fn build(&self) -> anyhow::Result<Box<dyn Policy>> {
        self.check_lm_flags()?;
        let beta = self.beta()?;
        let planner = || -> anyhow::Result<Box<dyn Policy>> {
            Ok(Box::new(
                PlannerPolicy::new(beta).context("invalid --beta")?,
            ))
        };
        match self.policy {
            PolicyKind::Planner => planner(),
            PolicyKind::Lm => Ok(Box::new(self.lm_policy(self.single_scorer()?))),
            PolicyKind::W2s => Ok(Box::new(self.lm_policy(self.w2s_scorer()?))),
            PolicyKind::Hybrid => {
                let lm = Box::new(self.lm_policy(self.single_scorer()?));
                Ok(Box::new(
                    HybridPolicy::new(planner()?, lm, self.planner_weight, self.lm_weight)
                        .context("invalid hybrid weights")?,
                ))
            }
        }
    }

    /// The hypothesis pruning the flags ask for: none for the planner, whose every
    /// hypothesis costs microseconds.
    pub fn pruning(&self) -> anyhow::Result<Option<Pruning>> {
        if self.policy == PolicyKind::Planner || self.prune_to == 0 {
            return Ok(None);
        }
        Ok(Some(Pruning {
            per_option: self.prune_to,
            proposal_beta: self.beta()?,
        }))
    }

    /// Checks the language-model flags, naming the one at fault, before any model is
    /// loaded: each finite and in its range.
    fn check_lm_flags(&self) -> anyhow::Result<()> {
        lm::max_context(self.max_context)?;
        if !(self.alpha.is_finite() && self.alpha.abs() <= MAX_W2S_ALPHA) {
            bail!(
                "--alpha: {} is not a number in [-{MAX_W2S_ALPHA}, {MAX_W2S_ALPHA}]",
                lm::number(self.alpha)
            );
        }
        for (flag, weight) in [
            ("--planner-weight", self.planner_weight),
            ("--lm-weight", self.lm_weight),
        ] {
            if !(weight.is_finite() && (0.0..=MAX_HYBRID_WEIGHT).contains(&weight)) {
                bail!(
                    "{flag}: {} is not a number in [0, {MAX_HYBRID_WEIGHT}]",
                    lm::number(weight)
                );
            }
        }
        Ok(())
    }

    fn lm_policy(&self, scorer: Box<dyn TextScorer>) -> LmPolicy {
        let template = PromptTemplate {
            style: match self.prompt_style {
                StyleArg::Bip => PromptStyle::Bip,
                StyleArg::BipAlm => PromptStyle::BipAlm,
            },
        };
        let reduction = match self.lm_score {
            ReductionArg::Mean => TokenReduction::Mean,
            ReductionArg::Sum => TokenReduction::Sum,
        };
        LmPolicy::with_options(scorer, template, reduction)
    }

    fn single_scorer(&self) -> anyhow::Result<Box<dyn TextScorer>> {
        let options = lm::max_context(self.max_context)?;
        if ScoringArgs::is_served(&self.model) {
            if self.adapter.is_some() {
                bail!("--adapter applies to a model bip loads, not to a served one");
            }
            return self
                .scoring
                .cached(Box::new(self.scoring.connect(&self.model)?));
        }
        let scorer = lm_load::scorer(self.device, &self.model, self.adapter.as_deref(), options)?;
        self.scoring.cached(scorer)
    }

    /// One line per score cache used, for the end of the run.
    pub fn cache_report(&self) -> Vec<String> {
        self.scoring.report()
    }

    fn w2s_scorer(&self) -> anyhow::Result<Box<dyn TextScorer>> {
        let (Some(large), Some(expert), Some(naive)) = (&self.large, &self.expert, &self.naive)
        else {
            bail!("--policy w2s needs --large, --expert and --naive");
        };
        if [expert, naive].iter().any(|m| ScoringArgs::is_served(m)) {
            bail!(
                "--policy w2s: --expert and --naive must be models bip loads (a served \
                 model only as --large)"
            );
        }
        if ScoringArgs::is_served(large) {
            let served = self.scoring.connect(large)?;
            let scorer = lm_load::w2s_remote_scorer(
                self.device,
                served,
                (expert, self.expert_adapter.as_deref()),
                naive,
                self.alpha,
                lm::max_context(self.max_context)?,
            )?;
            return self.scoring.cached(scorer);
        }
        let scorer = lm_load::w2s_scorer(
            self.device,
            large,
            expert,
            self.expert_adapter.as_deref(),
            naive,
            self.alpha,
            lm::max_context(self.max_context)?,
        )?;
        self.scoring.cached(scorer)
    }

    /// The calibration file given, if any.
    pub fn calibration(&self) -> Option<&std::path::Path> {
        self.calibration.as_deref()
    }

    /// β from --beta, --calibration or the default.
    fn beta(&self) -> anyhow::Result<f64> {
        Ok(match (&self.calibration, self.beta) {
            (Some(path), _) => {
                let text =
                    std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
                let file = CalibrationFile::from_json(&text)
                    .with_context(|| format!("{}", path.display()))?;
                if file.policy != "planner" {
                    bail!(
                        "{}: calibrated for policy \"{}\", not the planner",
                        path.display(),
                        file.policy
                    );
                }
                file.beta.context("the calibration has no β")?
            }
            (None, Some(beta)) => beta,
            (None, None) => DEFAULT_BETA,
        })
    }
}
