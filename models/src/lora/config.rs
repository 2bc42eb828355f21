//! A LoRA adapter's configuration (`adapter_config.json`) and the modules it may target.

use std::path::Path;

use serde::Deserialize;

use crate::config::LlamaConfig;
use crate::error::{number, ModelError, Result};

/// A linear layer of a decoder block that a LoRA adapter may target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LoraModule {
    /// The query projection (`self_attn.q_proj`).
    Q,
    /// The key projection (`self_attn.k_proj`).
    K,
    /// The value projection (`self_attn.v_proj`).
    V,
    /// The attention output projection (`self_attn.o_proj`).
    O,
    /// The SwiGLU gate projection (`mlp.gate_proj`).
    Gate,
    /// The SwiGLU up projection (`mlp.up_proj`).
    Up,
    /// The SwiGLU down projection (`mlp.down_proj`).
    Down,
}

impl LoraModule {
    /// Every module, in PEFT's usual order.
    pub const ALL: [Self; 7] = [
        Self::Q,
        Self::K,
        Self::V,
        Self::O,
        Self::Gate,
        Self::Up,
        Self::Down,
    ];

    /// The name PEFT's `target_modules` uses (`q_proj`, ...).
    pub fn peft_name(self) -> &'static str {
        match self {
            Self::Q => "q_proj",
            Self::K => "k_proj",
            Self::V => "v_proj",
            Self::O => "o_proj",
            Self::Gate => "gate_proj",
            Self::Up => "up_proj",
            Self::Down => "down_proj",
        }
    }

    /// The module's path within a decoder block (`self_attn.q_proj`, `mlp.up_proj`).
    pub fn block_path(self) -> &'static str {
        match self {
            Self::Q => "self_attn.q_proj",
            Self::K => "self_attn.k_proj",
            Self::V => "self_attn.v_proj",
            Self::O => "self_attn.o_proj",
            Self::Gate => "mlp.gate_proj",
            Self::Up => "mlp.up_proj",
            Self::Down => "mlp.down_proj",
        }
    }

    /// The module named `name` in PEFT's `target_modules` (`q_proj`, or a dotted path
    /// ending in it).
    pub fn from_peft_name(name: &str) -> Option<Self> {
        let last = name.rsplit('.').next().unwrap_or(name);
        Self::ALL.into_iter().find(|m| m.peft_name() == last)
    }

    /// The canonical weight this module's update adds to, in layer `layer`.
    pub fn weight_name(self, layer: usize) -> String {
        format!("model.layers.{layer}.{}.weight", self.block_path())
    }

    /// The canonical bias of this module in layer `layer` (query, key and value
    /// projections have one when the model has attention biases).
    pub fn bias_name(self, layer: usize) -> String {
        format!("model.layers.{layer}.{}.bias", self.block_path())
    }

    /// The weight's `[out, in]` shape in a model of `config`.
    pub fn shape(self, config: &LlamaConfig) -> [usize; 2] {
        let (h, f) = (config.hidden_size, config.intermediate_size);
        let d = config.head_dim();
        let (q, kv) = (config.num_heads * d, config.num_kv_heads * d);
        match self {
            Self::Q => [q, h],
            Self::K | Self::V => [kv, h],
            Self::O => [h, q],
            Self::Gate | Self::Up => [f, h],
            Self::Down => [h, f],
        }
    }
}

impl std::fmt::Display for LoraModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.peft_name())
    }
}

/// The largest factor of `B · A` an adapter may apply (`lora_alpha / r`, or
/// `lora_alpha / sqrt(r)`), either sign: usual adapters scale by 0.5 to 4; one scaled by
/// more than this is corrupt, and would overflow `f32` arithmetic long before it.
pub const MAX_LORA_SCALE: f64 = 1000.0;

/// What `adapter_config.json` says about a LoRA adapter (the fields bip uses).
#[derive(Clone, Debug, PartialEq)]
pub struct LoraConfig {
    /// Rank of every update (`r`).
    pub r: usize,
    /// Numerator of the update's scale (`lora_alpha`).
    pub lora_alpha: f64,
    /// Rank-stabilised scaling: `lora_alpha / sqrt(r)` instead of `lora_alpha / r`.
    pub use_rslora: bool,
    /// The modules updated, sorted.
    pub target_modules: Vec<LoraModule>,
    /// The base model the adapter was trained on, when recorded.
    pub base_model: Option<String>,
}

impl LoraConfig {
    /// Rank `r` and `lora_alpha`, every module targeted, plain scaling.
    pub fn new(r: usize, lora_alpha: f64) -> Self {
        Self {
            r,
            lora_alpha,
            use_rslora: false,
            target_modules: LoraModule::ALL.to_vec(),
            base_model: None,
        }
    }

    /// The same with these target modules.
    pub fn with_targets(mut self, modules: &[LoraModule]) -> Self {
        let mut m = modules.to_vec();
        m.sort_unstable();
        m.dedup();
        self.target_modules = m;
        self
    }

    /// The same with rank-stabilised scaling on or off.
    pub fn with_rslora(mut self, on: bool) -> Self {
        self.use_rslora = on;
        self
    }

    /// The factor of `B · A` in each update: `lora_alpha / r`, or `lora_alpha / sqrt(r)`
    /// with rank-stabilised scaling.
    pub fn scale(&self) -> f64 {
        let r = self.r.max(1) as f64;
        if self.use_rslora {
            self.lora_alpha / r.sqrt()
        } else {
            self.lora_alpha / r
        }
    }

    /// Whether `module` is targeted.
    pub fn targets(&self, module: LoraModule) -> bool {
        self.target_modules.contains(&module)
    }

    /// Reads `adapter_config.json` at `path`.
    ///
    /// # Errors
    ///
    /// [`ModelError::Io`] when unreadable, [`ModelError::Format`] when not JSON,
    /// [`ModelError::MissingKey`] for a missing `r`, `lora_alpha` or `target_modules`, and
    /// [`ModelError::BadKey`] for what bip cannot apply: another PEFT type,
    /// `fan_in_fan_out`, DoRA, per-module rank or alpha patterns, `layers_to_transform`,
    /// `layers_pattern`, `modules_to_save`, a zero rank, a target
    /// module other than q, k, v, o, gate, up and down projections, a scale
    /// ([`LoraConfig::check`]) that is not finite or beyond [`MAX_LORA_SCALE`].
    pub fn read(path: &Path) -> Result<Self> {
        let text = crate::io::read_text(path)?;
        let raw: RawConfig = serde_json::from_str(&text)
            .map_err(|e| ModelError::format(path, format!("not an adapter config: {e}")))?;
        raw.check_supported(path)?;
        let missing = |key: &str| ModelError::MissingKey {
            path: path.to_path_buf(),
            key: key.into(),
        };
        let r = raw.r.ok_or_else(|| missing("r"))?;
        if r == 0 {
            return Err(ModelError::key(path, "r", "rank 0"));
        }
        let lora_alpha = raw.lora_alpha.ok_or_else(|| missing("lora_alpha"))?;
        let targets = raw
            .target_modules
            .ok_or_else(|| missing("target_modules"))?;
        let config = Self::new(r, lora_alpha)
            .with_targets(&target_modules(path, targets)?)
            .with_rslora(raw.use_rslora.unwrap_or(false))
            .with_base_model(raw.base_model_name_or_path);
        config.check(path)?;
        Ok(config)
    }

    /// Checks that the configuration scales updates by a finite factor of at most
    /// [`MAX_LORA_SCALE`]; `origin` names the adapter in the error.
    ///
    /// # Errors
    ///
    /// [`ModelError::BadKey`] naming `lora_alpha` (and `r`) with the scale they make.
    pub fn check(&self, origin: &Path) -> Result<()> {
        let scale = self.scale();
        if scale.is_finite() && scale.abs() <= MAX_LORA_SCALE {
            return Ok(());
        }
        let over = if self.use_rslora { "sqrt(r)" } else { "r" };
        Err(ModelError::key(
            origin,
            "lora_alpha",
            format!(
                "{} over {over} (r = {}) scales updates by {}, beyond ±{MAX_LORA_SCALE}",
                number(self.lora_alpha),
                self.r,
                number(scale)
            ),
        ))
    }

    fn with_base_model(mut self, base: Option<String>) -> Self {
        self.base_model = base;
        self
    }

    /// The PEFT-compatible `adapter_config.json` text of this configuration.
    pub fn to_json(&self) -> String {
        let targets: Vec<_> = self.target_modules.iter().map(|m| m.peft_name()).collect();
        let json = serde_json::json!({
            "peft_type": "LORA",
            "task_type": "CAUSAL_LM",
            "base_model_name_or_path": self.base_model,
            "r": self.r,
            "lora_alpha": self.lora_alpha,
            "use_rslora": self.use_rslora,
            "target_modules": targets,
            "lora_dropout": 0.0,
            "fan_in_fan_out": false,
            "bias": "none",
            "use_dora": false,
            "init_lora_weights": true,
            "inference_mode": true,
            "rank_pattern": {},
            "alpha_pattern": {},
        });
        // Serializing a `Value` cannot fail.
        serde_json::to_string_pretty(&json).unwrap_or_default()
    }
}

fn non_empty(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Null => false,
        serde_json::Value::Object(o) => !o.is_empty(),
        serde_json::Value::Array(a) => !a.is_empty(),
        _ => true,
    }
}

/// The fields of `adapter_config.json` that bip reads.
#[derive(Deserialize)]
struct RawConfig {
    peft_type: Option<String>,
    r: Option<usize>,
    lora_alpha: Option<f64>,
    use_rslora: Option<bool>,
    target_modules: Option<serde_json::Value>,
    fan_in_fan_out: Option<bool>,
    use_dora: Option<bool>,
    rank_pattern: Option<serde_json::Value>,
    alpha_pattern: Option<serde_json::Value>,
    bias: Option<String>,
    layers_to_transform: Option<serde_json::Value>,
    layers_pattern: Option<serde_json::Value>,
    modules_to_save: Option<serde_json::Value>,
    base_model_name_or_path: Option<String>,
}

impl RawConfig {
    /// Refuses the PEFT features bip does not apply.
    fn check_supported(&self, path: &Path) -> Result<()> {
        let bad = |key: &str, problem: String| Err(ModelError::key(path, key, problem));
        if let Some(t) = self.peft_type.as_deref().filter(|t| *t != "LORA") {
            return bad("peft_type", format!("`{t}` is not a LoRA adapter (LORA)"));
        }
        if self.fan_in_fan_out == Some(true) {
            return bad(
                "fan_in_fan_out",
                "true (Conv1D-style [in, out] weights) is not supported".into(),
            );
        }
        if self.use_dora == Some(true) {
            return bad("use_dora", "DoRA adapters are not supported".into());
        }
        for (key, v) in [
            ("rank_pattern", &self.rank_pattern),
            ("alpha_pattern", &self.alpha_pattern),
        ] {
            if v.as_ref().is_some_and(non_empty) {
                return bad(key, "per-module patterns are not supported".into());
            }
        }
        // What an adapter applies only to some layers, or trains outside LoRA, would be
        // applied everywhere or dropped: refused, not misread.
        for (key, v, what) in [
            (
                "layers_to_transform",
                &self.layers_to_transform,
                "updates to some layers only",
            ),
            (
                "layers_pattern",
                &self.layers_pattern,
                "updates to some layers only",
            ),
            (
                "modules_to_save",
                &self.modules_to_save,
                "fully trained modules",
            ),
        ] {
            if v.as_ref().is_some_and(non_empty) {
                return bad(key, format!("{what} are not supported"));
            }
        }
        match self.bias.as_deref().filter(|b| *b != "none") {
            Some(b) => bad(
                "bias",
                format!("`{b}`: adapters with biases are not supported"),
            ),
            None => Ok(()),
        }
    }
}

/// The modules `target_modules` names: a list of PEFT names, or `all-linear`.
fn target_modules(path: &Path, targets: serde_json::Value) -> Result<Vec<LoraModule>> {
    let bad = |problem: String| ModelError::key(path, "target_modules", problem);
    let names: Vec<String> = match targets {
        serde_json::Value::String(s) if s == "all-linear" => LoraModule::ALL
            .iter()
            .map(|m| m.peft_name().to_string())
            .collect(),
        serde_json::Value::String(s) => {
            return Err(bad(format!(
                "`{s}`: a regular expression is not supported; list the modules"
            )))
        }
        serde_json::Value::Array(a) => a
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(|| bad("not a list of names".into()))?,
        other => return Err(bad(format!("{other} is not a list of names"))),
    };
    names
        .iter()
        .map(|name| {
            LoraModule::from_peft_name(name).ok_or_else(|| {
                let known: Vec<_> = LoraModule::ALL.iter().map(|m| m.peft_name()).collect();
                bad(format!(
                    "unknown target module `{name}` (bip applies {})",
                    known.join(", ")
                ))
            })
        })
        .collect()
}
