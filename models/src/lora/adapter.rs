//! A LoRA adapter's weights: one `(A, B)` pair per layer and targeted module, read from
//! and written to a PEFT folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::config::{LoraConfig, LoraModule};
use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};
use crate::io::write_replacing;
use crate::load::safetensors::{safetensors_bytes, SafetensorsFile, StDtype};
use crate::weights::SplitMix64;

/// The configuration file of a PEFT adapter folder.
pub const ADAPTER_CONFIG: &str = "adapter_config.json";
/// The weights file of a PEFT adapter folder.
pub const ADAPTER_WEIGHTS: &str = "adapter_model.safetensors";

/// Prefix PEFT puts before the base model's own tensor names.
const PEFT_PREFIX: &str = "base_model.model.";

/// What an in-memory adapter is called in errors.
const IN_MEMORY: &str = "in-memory LoRA adapter";

/// The low-rank update of one weight: `ΔW = scale · B · A`.
///
/// # Shapes
///
/// `A`: `[rank, d_in]`, `B`: `[d_out, rank]`, both row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct LoraPair {
    a: Vec<f32>,
    b: Vec<f32>,
    rank: usize,
    d_in: usize,
    d_out: usize,
}

impl LoraPair {
    /// A pair from `A` (`a_shape = [rank, d_in]`) and `B` (`b_shape = [d_out, rank]`).
    ///
    /// # Errors
    ///
    /// [`ModelError::BadTensor`] when the data do not fill the shapes, the ranks differ, or
    /// a value is not finite.
    pub fn new(a: Vec<f32>, a_shape: [usize; 2], b: Vec<f32>, b_shape: [usize; 2]) -> Result<Self> {
        Self::checked(
            Path::new(IN_MEMORY),
            ("lora_A", "lora_B"),
            a,
            a_shape,
            b,
            b_shape,
        )
    }

    /// Like [`LoraPair::new`], with errors naming `origin` and the tensors.
    fn checked(
        origin: &Path,
        (a_name, b_name): (&str, &str),
        a: Vec<f32>,
        a_shape: [usize; 2],
        b: Vec<f32>,
        b_shape: [usize; 2],
    ) -> Result<Self> {
        for (name, data, shape) in [(a_name, &a, a_shape), (b_name, &b, b_shape)] {
            if data.len() != shape[0] * shape[1] {
                return Err(ModelError::tensor(
                    origin,
                    name,
                    format!("{} values do not fill shape {shape:?}", data.len()),
                ));
            }
            if let Some(i) = data.iter().position(|v| !v.is_finite()) {
                return Err(ModelError::tensor(
                    origin,
                    name,
                    format!("element {i} is {}", data[i]),
                ));
            }
        }
        if a_shape[0] != b_shape[1] {
            return Err(ModelError::tensor(
                origin,
                b_name,
                format!(
                    "shape {b_shape:?} does not match {a_name} {a_shape:?}: ranks {} and {}",
                    b_shape[1], a_shape[0]
                ),
            ));
        }
        Ok(Self {
            a,
            b,
            rank: a_shape[0],
            d_in: a_shape[1],
            d_out: b_shape[0],
        })
    }

    /// `A`, `[rank, d_in]` row-major.
    pub fn a(&self) -> &[f32] {
        &self.a
    }

    /// `B`, `[d_out, rank]` row-major.
    pub fn b(&self) -> &[f32] {
        &self.b
    }

    /// `A`, mutable (for training).
    pub fn a_mut(&mut self) -> &mut [f32] {
        &mut self.a
    }

    /// `B`, mutable (for training).
    pub fn b_mut(&mut self) -> &mut [f32] {
        &mut self.b
    }

    /// `A` and `B`, mutable together (for an optimiser step).
    pub(crate) fn factors_mut(&mut self) -> (&mut [f32], &mut [f32]) {
        (&mut self.a, &mut self.b)
    }

    /// The update's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Input width of the weight updated.
    pub fn d_in(&self) -> usize {
        self.d_in
    }

    /// Output width of the weight updated.
    pub fn d_out(&self) -> usize {
        self.d_out
    }

    /// Whether `B · A` is zero because `B` is (a freshly initialised adapter).
    pub fn is_zero(&self) -> bool {
        self.b.iter().all(|&v| v == 0.0)
    }
}

/// A PEFT LoRA adapter: its configuration and one [`LoraPair`] per (layer, module).
///
/// Read one with [`LoraAdapter::load`] and apply it with
/// [`crate::LanguageModel::load_with_adapter`]; build one in memory with
/// [`LoraAdapter::new`] and [`LoraAdapter::insert`] (or [`LoraAdapter::init`]) and write it
/// with [`LoraAdapter::save`].
#[derive(Clone, Debug, PartialEq)]
pub struct LoraAdapter {
    config: LoraConfig,
    origin: PathBuf,
    pairs: BTreeMap<(usize, LoraModule), LoraPair>,
}

impl LoraAdapter {
    /// An adapter with no updates yet.
    pub fn new(config: LoraConfig) -> Self {
        Self {
            config,
            origin: PathBuf::from(IN_MEMORY),
            pairs: BTreeMap::new(),
        }
    }

    /// PEFT's initialisation for a model of `model`'s sizes: for every layer and targeted
    /// module, `A` uniform on `±1/sqrt(d_in)` (Kaiming-uniform with `a = sqrt(5)`) drawn
    /// from `seed`, and `B` zero, so that the adapted model equals the base model.
    pub fn init(model: &LlamaConfig, config: LoraConfig, seed: u64) -> Self {
        Self::filled(model, config, seed, 0.0)
    }

    /// Like [`LoraAdapter::init`] but with `B` uniform on `±b_bound` too: an adapter that
    /// changes the model (for tests).
    pub fn random(model: &LlamaConfig, config: LoraConfig, seed: u64, b_bound: f32) -> Self {
        Self::filled(model, config, seed, b_bound)
    }

    fn filled(model: &LlamaConfig, config: LoraConfig, seed: u64, b_bound: f32) -> Self {
        let mut rng = SplitMix64::new(seed);
        let r = config.r;
        let mut adapter = Self::new(config);
        for layer in 0..model.num_layers {
            for &module in &adapter.config.target_modules {
                let [d_out, d_in] = module.shape(model);
                let a_bound = 1.0 / (d_in as f32).sqrt();
                let a = (0..r * d_in).map(|_| a_bound * rng.uniform()).collect();
                let b = (0..d_out * r).map(|_| b_bound * rng.uniform()).collect();
                let pair = LoraPair {
                    a,
                    b,
                    rank: r,
                    d_in,
                    d_out,
                };
                adapter.pairs.insert((layer, module), pair);
            }
        }
        adapter
    }

    /// Reads the PEFT adapter folder `dir` ([`ADAPTER_CONFIG`] and [`ADAPTER_WEIGHTS`]).
    ///
    /// # Errors
    ///
    /// [`ModelError::NotFound`] naming the missing folder or file; what
    /// [`LoraConfig::read`] and [`SafetensorsFile::open`] return; [`ModelError::Format`]
    /// for a weights file with no LoRA tensor; and
    /// [`ModelError::BadTensor`] or [`ModelError::MissingTensor`] naming the tensor for a
    /// name that is not a LoRA weight of a decoder block, a module not among the targets,
    /// an `A` without its `B`, or ranks that differ from `r`.
    pub fn load(dir: &Path) -> Result<Self> {
        if !dir.is_dir() {
            return Err(ModelError::NotFound(format!(
                "{}: no such LoRA adapter folder",
                dir.display()
            )));
        }
        let config = LoraConfig::read(&adapter_file(dir, ADAPTER_CONFIG)?)?;
        let path = adapter_file(dir, ADAPTER_WEIGHTS)?;
        let file = SafetensorsFile::open(&path)?;
        let halves = halves(&file, &config)?;
        if halves.is_empty() {
            return Err(ModelError::format(
                &path,
                "holds no LoRA weights: an adapter changes nothing without them",
            ));
        }
        let mut adapter = Self::new(config);
        adapter.origin = path;
        for ((layer, module), names) in halves {
            let pair = read_pair(&file, layer, module, names, adapter.config.r)?;
            adapter.pairs.insert((layer, module), pair);
        }
        Ok(adapter)
    }

    /// Writes the adapter as a PEFT folder `dir` (created if needed): [`ADAPTER_CONFIG`]
    /// and [`ADAPTER_WEIGHTS`] (`f32`, PEFT's tensor names), which PEFT and
    /// [`LoraAdapter::load`] read.
    ///
    /// # Errors
    ///
    /// [`ModelError::Io`] naming the file that cannot be written.
    pub fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| ModelError::io(dir, e))?;
        write_replacing(&dir.join(ADAPTER_CONFIG), self.config.to_json().as_bytes())?;
        let names: Vec<[String; 2]> = self
            .pairs
            .keys()
            .map(|&(l, m)| [pair_names(l, m, 0), pair_names(l, m, 1)])
            .collect();
        let mut tensors: Vec<(&str, [usize; 2], &[f32])> = Vec::new();
        for ([a, b], p) in names.iter().zip(self.pairs.values()) {
            tensors.push((a, [p.rank, p.d_in], &p.a));
            tensors.push((b, [p.d_out, p.rank], &p.b));
        }
        let refs: Vec<(&str, &[usize], &[f32])> =
            tensors.iter().map(|(n, s, d)| (*n, &s[..], *d)).collect();
        write_replacing(
            &dir.join(ADAPTER_WEIGHTS),
            &safetensors_bytes(StDtype::F32, &refs),
        )
    }

    /// The configuration.
    pub fn config(&self) -> &LoraConfig {
        &self.config
    }

    /// The weights file read, or a description of an in-memory adapter (for errors).
    pub fn origin(&self) -> &Path {
        &self.origin
    }

    /// Adds (or replaces) the update of `module` in layer `layer`.
    ///
    /// # Errors
    ///
    /// [`ModelError::BadTensor`] when `module` is not targeted or the pair's rank is not
    /// the config's `r`.
    pub fn insert(&mut self, layer: usize, module: LoraModule, pair: LoraPair) -> Result<()> {
        let name = pair_names(layer, module, 0);
        if !self.config.targets(module) {
            return Err(ModelError::tensor(
                &self.origin,
                name,
                format!("module {module} is not among the config's target_modules"),
            ));
        }
        if pair.rank != self.config.r {
            return Err(ModelError::tensor(
                &self.origin,
                name,
                format!("rank {}, the config says r = {}", pair.rank, self.config.r),
            ));
        }
        self.pairs.insert((layer, module), pair);
        Ok(())
    }

    /// The update of `module` in layer `layer`, if any.
    pub fn get(&self, layer: usize, module: LoraModule) -> Option<&LoraPair> {
        self.pairs.get(&(layer, module))
    }

    /// The update of `module` in layer `layer`, mutable, if any.
    pub fn get_mut(&mut self, layer: usize, module: LoraModule) -> Option<&mut LoraPair> {
        self.pairs.get_mut(&(layer, module))
    }

    /// Every update, by layer then module.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, LoraModule, &LoraPair)> {
        self.pairs.iter().map(|(&(l, m), p)| (l, m, p))
    }

    /// Every update, mutable, by layer then module.
    pub fn pairs_mut(&mut self) -> impl Iterator<Item = (usize, LoraModule, &mut LoraPair)> {
        self.pairs.iter_mut().map(|(&(l, m), p)| (l, m, p))
    }

    /// Whether every update is zero (the adapted model equals the base model).
    pub fn is_zero(&self) -> bool {
        self.pairs.values().all(LoraPair::is_zero)
    }

    /// Checks that every update fits a model of `model`'s sizes.
    ///
    /// # Errors
    ///
    /// [`ModelError::BadTensor`] naming the adapter's tensor: a layer out of range, or a
    /// shape that does not fit the weight (both shapes given); what [`LoraConfig::check`]
    /// returns for a scale out of range.
    pub fn check(&self, model: &LlamaConfig) -> Result<()> {
        self.config.check(&self.origin)?;
        for (&(layer, module), p) in &self.pairs {
            let (a_name, b_name) = (pair_names(layer, module, 0), pair_names(layer, module, 1));
            if layer >= model.num_layers {
                return Err(ModelError::tensor(
                    &self.origin,
                    a_name,
                    format!(
                        "layer {layer} is out of range: the model has {} layers",
                        model.num_layers
                    ),
                ));
            }
            let [d_out, d_in] = module.shape(model);
            let weight = module.weight_name(layer);
            let misfit = |name: String, factor: &str, shape: [usize; 2], fit: [usize; 2]| {
                ModelError::tensor(
                    &self.origin,
                    name,
                    format!(
                        "shape {shape:?} does not fit the model: `{weight}` is [{d_out}, {d_in}], so {factor} must be {fit:?}"
                    ),
                )
            };
            if p.d_in != d_in {
                return Err(misfit(a_name, "lora_A", [p.rank, p.d_in], [p.rank, d_in]));
            }
            if p.d_out != d_out {
                return Err(misfit(b_name, "lora_B", [p.d_out, p.rank], [d_out, p.rank]));
            }
        }
        Ok(())
    }
}

/// The file `name` of adapter folder `dir`, which must be there.
fn adapter_file(dir: &Path, name: &str) -> Result<PathBuf> {
    let path = dir.join(name);
    if path.is_file() {
        return Ok(path);
    }
    let hint = if name == ADAPTER_WEIGHTS && dir.join("adapter_model.bin").is_file() {
        " (adapter_model.bin, a PyTorch pickle, is not read: save the adapter with safetensors)"
    } else {
        ""
    };
    Err(ModelError::NotFound(format!(
        "{}: missing adapter file; a PEFT LoRA adapter folder holds {ADAPTER_CONFIG} and {ADAPTER_WEIGHTS}{hint}",
        path.display()
    )))
}

/// The names of the `A` and `B` tensors of each (layer, module), as far as found.
type Halves = BTreeMap<(usize, LoraModule), [Option<String>; 2]>;

/// The [`Halves`] `file` holds, each a LoRA weight of a module `config` targets.
fn halves(file: &SafetensorsFile, config: &LoraConfig) -> Result<Halves> {
    let mut halves = Halves::new();
    for name in file.tensors().keys() {
        let (layer, module, half) = parse_name(name).ok_or_else(|| {
            ModelError::tensor(
                file.path(),
                name,
                "not a LoRA weight of a decoder block's q, k, v, o, gate, up or down projection",
            )
        })?;
        if !config.targets(module) {
            return Err(ModelError::tensor(
                file.path(),
                name,
                format!("module {module} is not among the config's target_modules"),
            ));
        }
        halves.entry((layer, module)).or_default()[half] = Some(name.clone());
    }
    Ok(halves)
}

/// The pair of `module` in layer `layer` from its tensors `[a, b]` in `file`, both
/// present, matrices, and of rank `r`.
fn read_pair(
    file: &SafetensorsFile,
    layer: usize,
    module: LoraModule,
    [a, b]: [Option<String>; 2],
    r: usize,
) -> Result<LoraPair> {
    let path = file.path();
    let missing = |name: String| ModelError::MissingTensor {
        path: path.to_path_buf(),
        name,
    };
    let a = a.ok_or_else(|| missing(pair_names(layer, module, 0)))?;
    let b = b.ok_or_else(|| missing(pair_names(layer, module, 1)))?;
    let shape = |n: &str| -> Result<[usize; 2]> {
        match file.tensors()[n].shape.as_slice() {
            &[x, y] => Ok([x, y]),
            s => Err(ModelError::tensor(
                path,
                n,
                format!("shape {s:?} is not a matrix"),
            )),
        }
    };
    let (a_shape, b_shape) = (shape(&a)?, shape(&b)?);
    let (a_data, b_data) = (file.read_f32(&a)?, file.read_f32(&b)?);
    let pair = LoraPair::checked(path, (&a, &b), a_data, a_shape, b_data, b_shape)?;
    if pair.rank != r {
        return Err(ModelError::tensor(
            path,
            &a,
            format!(
                "shape {a_shape:?} has rank {}, the config says r = {r}",
                pair.rank
            ),
        ));
    }
    Ok(pair)
}

/// PEFT's name of `A` (`half` 0) or `B` (`half` 1) of `module` in layer `layer`.
pub(crate) fn pair_names(layer: usize, module: LoraModule, half: usize) -> String {
    let ab = if half == 0 { "lora_A" } else { "lora_B" };
    format!(
        "{PEFT_PREFIX}model.layers.{layer}.{}.{ab}.weight",
        module.block_path()
    )
}

/// The layer, module and half (0 for `A`, 1 for `B`) of a PEFT tensor name such as
/// `base_model.model.model.layers.3.self_attn.q_proj.lora_A.weight` (also with the adapter
/// name, `lora_A.default.weight`).
fn parse_name(name: &str) -> Option<(usize, LoraModule, usize)> {
    let rest = name.strip_prefix(PEFT_PREFIX).unwrap_or(name);
    let rest = rest.strip_prefix("model.layers.")?;
    let (layer, rest) = rest.split_once('.')?;
    let layer = layer.parse().ok()?;
    let rest = rest.strip_suffix(".weight")?;
    let rest = rest.strip_suffix(".default").unwrap_or(rest);
    let (path, half) = if let Some(p) = rest.strip_suffix(".lora_A") {
        (p, 0)
    } else {
        (rest.strip_suffix(".lora_B")?, 1)
    };
    let module = LoraModule::ALL
        .into_iter()
        .find(|m| m.block_path() == path)?;
    Some((layer, module, half))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peft_names_parse_both_ways() {
        let n = pair_names(12, LoraModule::Down, 1);
        assert_eq!(
            n,
            "base_model.model.model.layers.12.mlp.down_proj.lora_B.weight"
        );
        assert_eq!(parse_name(&n), Some((12, LoraModule::Down, 1)));
        assert_eq!(
            parse_name("base_model.model.model.layers.0.self_attn.k_proj.lora_A.default.weight"),
            Some((0, LoraModule::K, 0))
        );
        assert_eq!(
            parse_name("base_model.model.model.layers.0.self_attn.k_proj.weight"),
            None
        );
        assert_eq!(parse_name("base_model.model.lm_head.lora_A.weight"), None);
        assert_eq!(
            parse_name("base_model.model.model.layers.x.mlp.up_proj.lora_A.weight"),
            None
        );
    }

    #[test]
    fn pairs_check_their_shapes() {
        assert!(LoraPair::new(vec![0.0; 6], [2, 3], vec![0.0; 8], [4, 2]).is_ok());
        let err = LoraPair::new(vec![0.0; 6], [2, 3], vec![0.0; 12], [4, 3]).unwrap_err();
        assert!(err.to_string().contains("lora_B"), "{err}");
        assert!(err.to_string().contains("ranks 3 and 2"), "{err}");
        let err = LoraPair::new(vec![0.0; 5], [2, 3], vec![0.0; 8], [4, 2]).unwrap_err();
        assert!(
            err.to_string()
                .contains("5 values do not fill shape [2, 3]"),
            "{err}"
        );
        let err = LoraPair::new(vec![f32::NAN; 6], [2, 3], vec![0.0; 8], [4, 2]).unwrap_err();
        assert!(err.to_string().contains("element 0 is NaN"), "{err}");
    }
}
