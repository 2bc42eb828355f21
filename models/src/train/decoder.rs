//! The decoder as training sees it: frozen base weights, a LoRA branch on chosen linear
//! layers, one whole sequence per pass (no cache), written with plain tensor operations
//! so that burn's autodiff differentiates it.
//!
//! It computes what [`crate::Transformer`] computes (a test holds the two to the same
//! log-probabilities), in the canonical (Hugging Face) weight layout: the layout a PEFT
//! adapter's updates are expressed in, so that a trained adapter merges into GGUF and
//! Hugging Face models alike.

use burn::tensor::activation::{log_softmax, silu, softmax};
use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor, TensorData};

use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};
use crate::lora::LoraModule;
use crate::nn::rope::Rope;
use crate::weights::{transpose, WeightSource};

/// A frozen linear layer, `y = x W + b`.
#[derive(Debug, Clone)]
struct Frozen<B: Backend> {
    /// `[in, out]`.
    weight: Tensor<B, 2>,
    /// `[out]`.
    bias: Option<Tensor<B, 1>>,
}

/// One decoder block's frozen weights; linear layers in [`LoraModule::ALL`] order.
#[derive(Debug, Clone)]
struct Block<B: Backend> {
    attn_norm: Tensor<B, 1>,
    mlp_norm: Tensor<B, 1>,
    linear: [Frozen<B>; 7],
}

/// The LoRA factors in use for one pass: per layer and module, `A` (`[rank, in]`) and `B`
/// (`[out, rank]`), and the scale of `B · A`.
#[derive(Debug, Clone)]
pub(crate) struct LoraBranch<B: Backend> {
    /// Indexed by `layer * 7 + module index`.
    factors: Vec<Option<(Tensor<B, 2>, Tensor<B, 2>)>>,
    scale: f32,
}

impl<B: Backend> LoraBranch<B> {
    /// No updates on `num_layers` layers.
    pub(crate) fn new(num_layers: usize, scale: f32) -> Self {
        Self {
            factors: vec![None; num_layers * 7],
            scale,
        }
    }

    /// Sets the factors of `module` in `layer`.
    pub(crate) fn set(
        &mut self,
        layer: usize,
        module: LoraModule,
        a: Tensor<B, 2>,
        b: Tensor<B, 2>,
    ) {
        self.factors[layer * 7 + module_index(module)] = Some((a, b));
    }

    fn get(&self, layer: usize, module: LoraModule) -> Option<&(Tensor<B, 2>, Tensor<B, 2>)> {
        self.factors
            .get(layer * 7 + module_index(module))
            .and_then(Option::as_ref)
    }
}

fn module_index(module: LoraModule) -> usize {
    LoraModule::ALL
        .iter()
        .position(|&m| m == module)
        .unwrap_or_default()
}

/// A Llama-family decoder with frozen weights and a LoRA branch, for training.
#[derive(Debug, Clone)]
pub(crate) struct TrainDecoder<B: Backend> {
    /// `[vocab, hidden]`.
    embed: Tensor<B, 2>,
    blocks: Vec<Block<B>>,
    norm: Tensor<B, 1>,
    /// `[hidden, vocab]`.
    head: Tensor<B, 2>,
    rope: Rope,
    config: LlamaConfig,
}

impl<B: Backend> TrainDecoder<B> {
    /// Builds the decoder described by `config` from `source` (canonical naming).
    ///
    /// # Errors
    ///
    /// As [`crate::Transformer::from_weights`].
    pub(crate) fn from_weights(
        config: &LlamaConfig,
        source: &mut dyn WeightSource,
        device: &B::Device,
    ) -> Result<Self> {
        config.validate()?;
        let (h, v) = (config.hidden_size, config.vocab_size);
        let mut get = |name: String, shape: &[usize]| -> Result<Vec<f32>> {
            source
                .tensor(&name, shape)?
                .ok_or_else(|| ModelError::MissingTensor {
                    path: source.origin().to_path_buf(),
                    name,
                })
        };
        let embed = get("model.embed_tokens.weight".into(), &[v, h])?;
        let mut blocks = Vec::with_capacity(config.num_layers);
        for layer in 0..config.num_layers {
            let p = format!("model.layers.{layer}");
            let attn_norm = vector(get(format!("{p}.input_layernorm.weight"), &[h])?, device);
            let mlp_norm = vector(
                get(format!("{p}.post_attention_layernorm.weight"), &[h])?,
                device,
            );
            let mut linear = Vec::with_capacity(7);
            for module in LoraModule::ALL {
                let [out, inp] = module.shape(config);
                let w = get(module.weight_name(layer), &[out, inp])?;
                let has_bias = config.attention_bias
                    && matches!(module, LoraModule::Q | LoraModule::K | LoraModule::V);
                let bias = if has_bias {
                    let name = format!("{p}.{}.bias", module.block_path());
                    Some(vector(get(name, &[out])?, device))
                } else {
                    None
                };
                linear.push(Frozen {
                    weight: matrix(transpose(&w, out, inp), [inp, out], device),
                    bias,
                });
            }
            let linear: [Frozen<B>; 7] = linear
                .try_into()
                .map_err(|_| ModelError::Config("seven linear layers per block".into()))?;
            blocks.push(Block {
                attn_norm,
                mlp_norm,
                linear,
            });
        }
        let norm = vector(get("model.norm.weight".into(), &[h])?, device);
        let head = if config.tie_embeddings {
            matrix(transpose(&embed, v, h), [h, v], device)
        } else {
            let w = get("lm_head.weight".into(), &[v, h])?;
            matrix(transpose(&w, v, h), [h, v], device)
        };
        Ok(Self {
            embed: matrix(embed, [v, h], device),
            blocks,
            norm,
            head,
            rope: Rope::new(config.head_dim(), config.max_seq_len, config.rope_theta),
            config: config.clone(),
        })
    }

    /// The decoder's sizes.
    pub(crate) fn config(&self) -> &LlamaConfig {
        &self.config
    }

    /// The device the weights live on.
    pub(crate) fn device(&self) -> B::Device {
        self.embed.device()
    }

    /// Log-probabilities of `tokens[from..]`, each given the tokens before it, with the
    /// LoRA branch `lora` added.
    ///
    /// # Shapes
    ///
    /// → `[tokens.len() - from]`.
    ///
    /// # Errors
    ///
    /// [`ModelError::BadRequest`] (request 0) when `from` is 0 or not below the length, the
    /// sequence exceeds the context, or a token is outside the vocabulary.
    pub(crate) fn logprobs(
        &self,
        tokens: &[u32],
        from: usize,
        lora: &LoraBranch<B>,
    ) -> Result<Tensor<B, 1>> {
        let bad = |problem: String| ModelError::BadRequest { index: 0, problem };
        if from == 0 || from >= tokens.len() {
            return Err(bad(format!(
                "scoring tokens {from}.. of {} needs at least one before and one after",
                tokens.len()
            )));
        }
        if tokens.len() > self.rope.max_len() {
            return Err(bad(format!(
                "{} tokens exceed the context of {}",
                tokens.len(),
                self.rope.max_len()
            )));
        }
        if let Some(t) = tokens
            .iter()
            .find(|&&t| t as usize >= self.config.vocab_size)
        {
            return Err(bad(format!(
                "token {t} is outside the vocabulary of {}",
                self.config.vocab_size
            )));
        }
        // The last token predicts nothing scored: run the rest.
        let input = &tokens[..tokens.len() - 1];
        let hidden = self.forward(input, lora);
        let n = tokens.len() - from;
        let rows = hidden.slice([from - 1..input.len(), 0..self.config.hidden_size]);
        let logp = log_softmax(rows.matmul(self.head.clone()), 1);
        let device = self.device();
        let targets: Vec<i32> = tokens[from..].iter().map(|&t| t as i32).collect();
        let targets = Tensor::<B, 2, Int>::from_data(TensorData::new(targets, [n, 1]), &device);
        Ok(logp.gather(1, targets).reshape([n]))
    }

    /// Final-normed hidden states of every position of `tokens`.
    ///
    /// # Shapes
    ///
    /// → `[tokens.len(), hidden]`.
    fn forward(&self, tokens: &[u32], lora: &LoraBranch<B>) -> Tensor<B, 2> {
        let device = self.device();
        let seq = tokens.len();
        let c = &self.config;
        let ids: Vec<i32> = tokens.iter().map(|&t| t as i32).collect();
        let ids = Tensor::<B, 1, Int>::from_data(TensorData::new(ids, [seq]), &device);
        let (cos_q, sin_q) = self.rope.tables::<B>(1, seq, 0, c.num_heads, 1.0, &device);
        let (cos_k, sin_k) = self
            .rope
            .tables::<B>(1, seq, 0, c.num_kv_heads, 1.0, &device);
        let mut causal = Vec::with_capacity(seq * seq);
        for r in 0..seq {
            causal.extend((0..seq).map(|col| if col > r { f32::NEG_INFINITY } else { 0.0 }));
        }
        let causal = Tensor::<B, 3>::from_data(TensorData::new(causal, [1, seq, seq]), &device);
        let mut x = self.embed.clone().select(0, ids);
        for (layer, block) in self.blocks.iter().enumerate() {
            let lin = |m: LoraModule, x: Tensor<B, 2>| self.linear(block, layer, m, x, lora);
            let a = rms_norm(x.clone(), &block.attn_norm, c.rms_norm_eps);
            let q = rotary(lin(LoraModule::Q, a.clone()), &cos_q, &sin_q, c.num_heads);
            let k = rotary(
                lin(LoraModule::K, a.clone()),
                &cos_k,
                &sin_k,
                c.num_kv_heads,
            );
            let v = lin(LoraModule::V, a);
            let att = self.attention(q, k, v, &causal);
            x = x + lin(LoraModule::O, att);
            let m = rms_norm(x.clone(), &block.mlp_norm, c.rms_norm_eps);
            let gate = silu(lin(LoraModule::Gate, m.clone()));
            let up = lin(LoraModule::Up, m);
            x = x + lin(LoraModule::Down, gate * up);
        }
        rms_norm(x, &self.norm, c.rms_norm_eps)
    }

    /// `x W + b`, plus `scale · (x Aᵀ) Bᵀ` when `module` of `layer` is adapted.
    fn linear(
        &self,
        block: &Block<B>,
        layer: usize,
        module: LoraModule,
        x: Tensor<B, 2>,
        lora: &LoraBranch<B>,
    ) -> Tensor<B, 2> {
        let frozen = &block.linear[module_index(module)];
        let mut y = x.clone().matmul(frozen.weight.clone());
        if let Some(b) = &frozen.bias {
            y = y + b.clone().unsqueeze::<2>();
        }
        match lora.get(layer, module) {
            Some((a, b)) => {
                let low = x.matmul(a.clone().transpose());
                y + low.matmul(b.clone().transpose()).mul_scalar(lora.scale)
            }
            None => y,
        }
    }

    /// Causal grouped-query attention over one sequence.
    ///
    /// # Shapes
    ///
    /// `q`: `[seq, heads * d]`, `k`, `v`: `[seq, kv_heads * d]`, `causal`:
    /// `[1, seq, seq]` → `[seq, heads * d]`.
    fn attention(
        &self,
        q: Tensor<B, 2>,
        k: Tensor<B, 2>,
        v: Tensor<B, 2>,
        causal: &Tensor<B, 3>,
    ) -> Tensor<B, 2> {
        let c = &self.config;
        let (heads, kv_heads, d) = (c.num_heads, c.num_kv_heads, c.head_dim());
        let seq = q.dims()[0];
        let groups = heads / kv_heads;
        // Query head `h` reads key/value head `h / groups` (Hugging Face's repeat_kv).
        let spread = |t: Tensor<B, 2>| {
            t.reshape([seq, kv_heads, 1, d])
                .repeat_dim(2, groups)
                .reshape([seq, heads, d])
                .swap_dims(0, 1)
        };
        let q = q.reshape([seq, heads, d]).swap_dims(0, 1);
        let (k, v) = (spread(k), spread(v));
        let scores = q
            .matmul(k.swap_dims(1, 2))
            .mul_scalar(1.0 / (d as f32).sqrt());
        let weights = softmax(scores + causal.clone(), 2);
        weights.matmul(v).swap_dims(0, 1).reshape([seq, heads * d])
    }
}

/// `x / sqrt(mean(x²) + eps) · w` over rows.
fn rms_norm<B: Backend>(x: Tensor<B, 2>, w: &Tensor<B, 1>, eps: f64) -> Tensor<B, 2> {
    let inv = (x.clone() * x.clone())
        .mean_dim(1)
        .add_scalar(eps)
        .sqrt()
        .recip();
    x * inv * w.clone().unsqueeze::<2>()
}

/// Rotary embedding in the rotate-half layout: `x ⊙ cos + rotate_half(x) ⊙ sin`.
///
/// # Shapes
///
/// `x`, `cos`, `sin`: `[seq, heads * d]` → same.
fn rotary<B: Backend>(
    x: Tensor<B, 2>,
    cos: &Tensor<B, 2>,
    sin: &Tensor<B, 2>,
    heads: usize,
) -> Tensor<B, 2> {
    let [seq, width] = x.dims();
    let half = width / heads / 2;
    let split = x.clone().reshape([seq, heads, 2, half]);
    let first = split.clone().slice([0..seq, 0..heads, 0..1, 0..half]);
    let second = split.slice([0..seq, 0..heads, 1..2, 0..half]);
    let rotated = Tensor::cat(vec![second.neg(), first], 2).reshape([seq, width]);
    x * cos.clone() + rotated * sin.clone()
}

fn matrix<B: Backend>(data: Vec<f32>, shape: [usize; 2], device: &B::Device) -> Tensor<B, 2> {
    Tensor::from_data(TensorData::new(data, shape), device)
}

fn vector<B: Backend>(data: Vec<f32>, device: &B::Device) -> Tensor<B, 1> {
    let n = data.len();
    Tensor::from_data(TensorData::new(data, [n]), device)
}
