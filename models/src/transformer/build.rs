//! Building a [`Transformer`] from weights in the canonical naming, or from random ones.

use burn::tensor::backend::Backend;
use burn::tensor::{Tensor, TensorData};

use super::{Block, Transformer};
use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};
use crate::load::{WeightStorage, MAX_CONTEXT_LIMIT};
use crate::lora::LoraModule;
use crate::nn::attention::{Attention, AttentionWeights};
use crate::nn::host::backend_on_host;
use crate::nn::host_matrix::HostMatrix;
use crate::nn::linear::{frozen, Linear};
use crate::nn::mlp::Mlp;
use crate::nn::norm::RmsNorm;
use crate::nn::rope::{rotate_half_columns, Rope};
use crate::weights::{transpose, MemoryWeights, WeightSource};

impl<B: Backend> Transformer<B> {
    /// Builds the decoder described by `config` from `source`.
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] for an inconsistent configuration or a `max_seq_len` beyond
    /// [`MAX_CONTEXT_LIMIT`], and
    /// [`ModelError::MissingTensor`] or [`ModelError::BadTensor`] (naming the tensor in the
    /// source's own naming) when a tensor is absent, misshapen or unreadable.
    pub fn from_weights(
        config: &LlamaConfig,
        source: &mut dyn WeightSource,
        device: &B::Device,
    ) -> Result<Self> {
        Self::from_weights_stored(config, source, WeightStorage::F32, device)
    }

    /// Like [`Transformer::from_weights`], holding the weight matrices as `storage` says.
    ///
    /// # Errors
    ///
    /// As [`Transformer::from_weights`].
    pub fn from_weights_stored(
        config: &LlamaConfig,
        source: &mut dyn WeightSource,
        storage: WeightStorage,
        device: &B::Device,
    ) -> Result<Self> {
        config.validate()?;
        if config.max_seq_len > MAX_CONTEXT_LIMIT {
            return Err(ModelError::Config(format!(
                "max_seq_len {} exceeds {MAX_CONTEXT_LIMIT} positions, the most bip builds \
                 rotary tables for (load with a smaller LoadOptions::max_context)",
                config.max_seq_len
            )));
        }
        let (h, v) = (config.hidden_size, config.vocab_size);
        let mut build = Builder {
            source,
            config,
            device,
            storage: if backend_on_host::<B>() {
                storage
            } else {
                WeightStorage::F32
            },
        };
        let embed = build.get("model.embed_tokens.weight".into(), &[v, h])?;
        // A tied embedding is read from the head rather than held twice.
        let (tied, embed) = if config.tie_embeddings {
            (Some(embed), None)
        } else {
            (None, Some(frozen(matrix(embed, [v, h], device))))
        };
        let blocks = (0..config.num_layers)
            .map(|layer| build.block(layer))
            .collect::<Result<_>>()?;
        let norm = build.norm("model.norm.weight".into())?;
        let head = match tied {
            Some(head) => head,
            None => build.get("lm_head.weight".into(), &[v, h])?,
        };
        let head = build.linear_from(head, [v, h], None);
        Ok(Self {
            embed,
            blocks,
            norm,
            head,
            rope: Rope::new(config.head_dim(), config.max_seq_len, config.rope_theta),
            num_heads: config.num_heads,
            num_kv_heads: config.num_kv_heads,
        })
    }
}

/// Reads the tensors of one model from a source and builds its layers on a device.
struct Builder<'a, B: Backend> {
    source: &'a mut dyn WeightSource,
    config: &'a LlamaConfig,
    device: &'a B::Device,
    /// How matrices are held: as asked on the CPU backend, f32 on any other.
    storage: WeightStorage,
}

impl<B: Backend> Builder<'_, B> {
    /// Tensor `name` of `shape`, which must be there.
    fn get(&mut self, name: String, shape: &[usize]) -> Result<Vec<f32>> {
        self.source
            .tensor(&name, shape)?
            .ok_or_else(|| ModelError::MissingTensor {
                path: self.source.origin().to_path_buf(),
                name,
            })
    }

    /// Decoder block `layer`.
    fn block(&mut self, layer: usize) -> Result<Block<B>> {
        let p = format!("model.layers.{layer}");
        let attn_norm = self.norm(format!("{p}.input_layernorm.weight"))?;
        let attn = self.attention(layer)?;
        let mlp_norm = self.norm(format!("{p}.post_attention_layernorm.weight"))?;
        let mlp = Mlp::new(
            self.linear(layer, LoraModule::Gate)?,
            self.linear(layer, LoraModule::Up)?,
            self.linear(layer, LoraModule::Down)?,
        );
        Ok(Block {
            attn_norm,
            attn,
            mlp_norm,
            mlp,
        })
    }

    /// The attention of block `layer`, the query and key projections with their
    /// rotate-half twins.
    fn attention(&mut self, layer: usize) -> Result<Attention<B>> {
        let c = self.config;
        let (q, q_rot) = self.rotary_pair(layer, LoraModule::Q, c.num_heads)?;
        let (k, k_rot) = self.rotary_pair(layer, LoraModule::K, c.num_kv_heads)?;
        let weights = AttentionWeights {
            q,
            q_rot,
            k,
            k_rot,
            v: self.linear(layer, LoraModule::V)?,
            out: self.linear(layer, LoraModule::O)?,
        };
        Ok(Attention::new(
            weights,
            c.num_heads,
            c.num_kv_heads,
            c.head_dim(),
        ))
    }

    /// The linear layer `module` of block `layer`, `[in, out]`, with its bias when the
    /// configuration has one there.
    fn linear(&mut self, layer: usize, module: LoraModule) -> Result<Linear<B>> {
        let (w, bias) = self.weight_and_bias(layer, module)?;
        Ok(self.linear_from(w, module.shape(self.config), bias))
    }

    /// The query or key projection `module` of block `layer` and, on backends that rotate
    /// through products, its rotate-half twin (the CPU rotates on the host and never
    /// multiplies it, so it is not built there).
    fn rotary_pair(
        &mut self,
        layer: usize,
        module: LoraModule,
        heads: usize,
    ) -> Result<(Linear<B>, Option<Linear<B>>)> {
        let (w, bias) = self.weight_and_bias(layer, module)?;
        let [out, inp] = module.shape(self.config);
        if backend_on_host::<B>() {
            return Ok((self.linear_from(w, [out, inp], bias), None));
        }
        // Off the host the weight is f32 `[in, out]`: transposed once for both layers.
        let d = self.config.head_dim();
        let rot = |x: &[f32]| rotate_half_columns(x, heads, d);
        let w = transpose(&w, out, inp);
        let twin = Linear::new(
            matrix(rot(&w), [inp, out], self.device),
            bias.as_deref().map(|b| vector(rot(b), self.device)),
        );
        let bias = bias.map(|b| vector(b, self.device));
        Ok((
            Linear::new(matrix(w, [inp, out], self.device), bias),
            Some(twin),
        ))
    }

    /// The weight of `module` in block `layer` (`[out, in]`, as stored) and its bias.
    fn weight_and_bias(
        &mut self,
        layer: usize,
        module: LoraModule,
    ) -> Result<(Vec<f32>, Option<Vec<f32>>)> {
        let shape = module.shape(self.config);
        let w = self.get(module.weight_name(layer), &shape)?;
        let biased = matches!(module, LoraModule::Q | LoraModule::K | LoraModule::V);
        let bias = if self.config.attention_bias && biased {
            Some(self.get(module.bias_name(layer), &shape[..1])?)
        } else {
            None
        };
        Ok((w, bias))
    }

    /// A linear layer from an `[out, in]` row-major weight (as sources give it) and an
    /// optional bias: transposed to `[in, out]`, or held on the host as `storage` says.
    fn linear_from(
        &mut self,
        w: Vec<f32>,
        [out, inp]: [usize; 2],
        bias: Option<Vec<f32>>,
    ) -> Linear<B> {
        let bias = bias.map(|b| vector(b, self.device));
        let linear = match HostMatrix::new(self.storage, &w, out, inp) {
            Some(host) => Linear::on_host(host, bias),
            None => Linear::new(
                matrix(transpose(&w, out, inp), [inp, out], self.device),
                bias,
            ),
        };
        self.source.recycle(w);
        linear
    }

    /// The RMSNorm whose gain is tensor `name`.
    fn norm(&mut self, name: String) -> Result<RmsNorm<B>> {
        let w = self.get(name, &[self.config.hidden_size])?;
        Ok(RmsNorm::new(
            vector(w, self.device),
            self.config.rms_norm_eps,
        ))
    }
}

impl LlamaConfig {
    /// A decoder of these sizes with deterministic pseudo-random weights (seed 0); see
    /// [`MemoryWeights::random`].
    ///
    /// # Panics
    ///
    /// When the configuration is inconsistent ([`LlamaConfig::validate`]).
    pub fn init<B: Backend>(&self, device: &B::Device) -> Transformer<B> {
        self.init_with_seed(0, device)
    }

    /// Like [`LlamaConfig::init`], from weights drawn with `seed`.
    ///
    /// # Panics
    ///
    /// When the configuration is inconsistent ([`LlamaConfig::validate`]).
    pub fn init_with_seed<B: Backend>(&self, seed: u64, device: &B::Device) -> Transformer<B> {
        let mut weights = MemoryWeights::random(self, seed);
        match Transformer::from_weights(self, &mut weights, device) {
            Ok(t) => t,
            Err(e) => panic!("cannot initialise the model: {e}"),
        }
    }
}

fn matrix<B: Backend>(data: Vec<f32>, shape: [usize; 2], device: &B::Device) -> Tensor<B, 2> {
    Tensor::from_data(TensorData::new(data, shape), device)
}

fn vector<B: Backend>(data: Vec<f32>, device: &B::Device) -> Tensor<B, 1> {
    let n = data.len();
    Tensor::from_data(TensorData::new(data, [n]), device)
}
