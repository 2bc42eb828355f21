//! The Llama-family decoder: embedding, blocks of attention and SwiGLU, final norm, and a
//! contiguous LM head.

use burn::module::{Module, Param};
use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor, TensorData};

use crate::cache::KvCache;
use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};
use crate::nn::attention::{
    group_mask, own_bias, tree_bias, tree_mask, Attention, AttentionWeights, OwnMask, Step,
};
use crate::nn::linear::Linear;
use crate::nn::mlp::Mlp;
use crate::nn::norm::RmsNorm;
use crate::nn::rope::{rotate_half_columns, Rope};
use crate::tree::TokenTree;
use crate::weights::{transpose, MemoryWeights, WeightSource};

/// One decoder block: pre-norm attention and pre-norm SwiGLU, each with a residual.
#[derive(Module, Debug)]
struct Block<B: Backend> {
    attn_norm: RmsNorm<B>,
    attn: Attention<B>,
    mlp_norm: RmsNorm<B>,
    mlp: Mlp<B>,
}

/// A Llama-family causal decoder (RMSNorm, RoPE, grouped-query attention, SwiGLU, tied or
/// separate LM head), generic over the burn backend.
///
/// Built from any [`WeightSource`] by [`Transformer::from_weights`], or with random weights
/// by [`LlamaConfig::init`]. [`Transformer::forward`] runs new tokens on top of a
/// [`KvCache`]; [`Transformer::logits`] applies the LM head to chosen hidden states only,
/// which is where scoring saves most of its time.
#[derive(Module, Debug)]
pub struct Transformer<B: Backend> {
    /// `[vocab, hidden]`: rows are gathered for the input.
    embed: Param<Tensor<B, 2>>,
    blocks: Vec<Block<B>>,
    norm: RmsNorm<B>,
    /// `[hidden, vocab]`, contiguous (never a transposed view of `embed`: multiplying by
    /// such a view copies the whole matrix on every call).
    head: Param<Tensor<B, 2>>,
    #[module(skip)]
    rope: Rope,
    num_heads: usize,
    num_kv_heads: usize,
}

impl<B: Backend> Transformer<B> {
    /// Builds the decoder described by `config` from `source`.
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] for an inconsistent configuration, and
    /// [`ModelError::MissingTensor`] or [`ModelError::BadTensor`] (naming the tensor in the
    /// source's own naming) when a tensor is absent, misshapen or unreadable.
    pub fn from_weights(
        config: &LlamaConfig,
        source: &mut dyn WeightSource,
        device: &B::Device,
    ) -> Result<Self> {
        config.validate()?;
        let (h, f, v) = (
            config.hidden_size,
            config.intermediate_size,
            config.vocab_size,
        );
        let d = config.head_dim();
        let (q, kv) = (config.num_heads * d, config.num_kv_heads * d);
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
        for i in 0..config.num_layers {
            let p = format!("model.layers.{i}");
            let attn_norm = get(format!("{p}.input_layernorm.weight"), &[h])?;
            let wq = get(format!("{p}.self_attn.q_proj.weight"), &[q, h])?;
            let wk = get(format!("{p}.self_attn.k_proj.weight"), &[kv, h])?;
            let wv = get(format!("{p}.self_attn.v_proj.weight"), &[kv, h])?;
            let bias = if config.attention_bias {
                Some((
                    get(format!("{p}.self_attn.q_proj.bias"), &[q])?,
                    get(format!("{p}.self_attn.k_proj.bias"), &[kv])?,
                    get(format!("{p}.self_attn.v_proj.bias"), &[kv])?,
                ))
            } else {
                None
            };
            let wo = get(format!("{p}.self_attn.o_proj.weight"), &[h, q])?;
            let mlp_norm = get(format!("{p}.post_attention_layernorm.weight"), &[h])?;
            let wg = get(format!("{p}.mlp.gate_proj.weight"), &[f, h])?;
            let wu = get(format!("{p}.mlp.up_proj.weight"), &[f, h])?;
            let wd = get(format!("{p}.mlp.down_proj.weight"), &[h, f])?;
            let (wq, wk) = (transpose(&wq, q, h), transpose(&wk, kv, h));
            let (bq, bk, bv) = match bias {
                Some((bq, bk, bv)) => (Some(bq), Some(bk), Some(bv)),
                None => (None, None, None),
            };
            let rot = |w: &[f32], heads: usize| rotate_half_columns(w, heads, d);
            let attn = Attention::new(
                AttentionWeights {
                    q_rot: linear(
                        rot(&wq, config.num_heads),
                        [h, q],
                        bq.as_deref().map(|b| rot(b, config.num_heads)),
                        device,
                    ),
                    q: linear(wq, [h, q], bq, device),
                    k_rot: linear(
                        rot(&wk, config.num_kv_heads),
                        [h, kv],
                        bk.as_deref().map(|b| rot(b, config.num_kv_heads)),
                        device,
                    ),
                    k: linear(wk, [h, kv], bk, device),
                    v: linear(transpose(&wv, kv, h), [h, kv], bv, device),
                    out: linear(transpose(&wo, h, q), [q, h], None, device),
                },
                config.num_heads,
                config.num_kv_heads,
                d,
            );
            let mlp = Mlp::new(
                linear(transpose(&wg, f, h), [h, f], None, device),
                linear(transpose(&wu, f, h), [h, f], None, device),
                linear(transpose(&wd, h, f), [f, h], None, device),
            );
            blocks.push(Block {
                attn_norm: RmsNorm::new(vector(attn_norm, device), config.rms_norm_eps),
                attn,
                mlp_norm: RmsNorm::new(vector(mlp_norm, device), config.rms_norm_eps),
                mlp,
            });
        }
        let norm = get("model.norm.weight".into(), &[h])?;
        let head = if config.tie_embeddings {
            matrix_in_out(&embed, v, h, device)
        } else {
            matrix_in_out(&get("lm_head.weight".into(), &[v, h])?, v, h, device)
        };
        Ok(Self {
            embed: Param::from_tensor(Tensor::from_data(TensorData::new(embed, [v, h]), device)),
            blocks,
            norm: RmsNorm::new(vector(norm, device), config.rms_norm_eps),
            head: Param::from_tensor(head),
            rope: Rope::new(d, config.max_seq_len, config.rope_theta),
            num_heads: config.num_heads,
            num_kv_heads: config.num_kv_heads,
        })
    }

    /// Runs `tokens` on top of `cache` (which they extend) and returns the final-normed
    /// hidden state of every new position; [`Transformer::logits`] turns chosen rows into
    /// logits.
    ///
    /// # Shapes
    ///
    /// `tokens`: `[batch, seq]` → `[batch, seq, hidden]`. The cache must hold `batch` rows
    /// of its own, or none (empty, or only shared positions).
    ///
    /// # Panics
    ///
    /// When a token is outside the vocabulary or the cached plus new length exceeds
    /// [`Transformer::max_len`]; [`crate::LanguageModel`] checks both before calling.
    pub fn forward(&self, tokens: Tensor<B, 2, Int>, cache: &mut KvCache<B>) -> Tensor<B, 3> {
        let [batch, seq] = tokens.dims();
        let hidden = self.hidden_size();
        let offset = cache.len();
        assert!(
            offset + seq <= self.max_len(),
            "{} positions exceed the context of {}",
            offset + seq,
            self.max_len()
        );
        assert_eq!(
            cache.num_layers(),
            self.blocks.len(),
            "cache of another model"
        );
        let device = self.device();
        let d = self.hidden_size() / self.num_heads;
        let scale = 1.0 / (d as f32).sqrt();
        let (cos_q, sin_q) = self
            .rope
            .tables(batch, seq, offset, self.num_heads, scale, &device);
        let (cos_k, sin_k) = self
            .rope
            .tables(batch, seq, offset, self.num_kv_heads, 1.0, &device);
        let groups = self.num_heads / self.num_kv_heads;
        let own_offset = offset - cache.shared_len();
        let own_mask = if cache.shared_len() > 0 {
            OwnMask::Bias(own_bias(batch, groups, seq, own_offset, &device))
        } else {
            let (mask, causal) = group_mask(groups, seq, own_offset, &device);
            OwnMask::Fused(mask, causal)
        };
        let step = Step {
            batch,
            seq,
            cos_q,
            sin_q,
            cos_k,
            sin_k,
            own_mask,
        };
        let x = self.run_blocks(tokens.reshape([batch * seq]), &step, cache);
        x.reshape([batch, seq, hidden])
    }

    /// Runs the nodes of `tree` on top of `cache`'s positions, each node at position
    /// `cache.len() + depth`, seeing its ancestors and the cached positions, and returns
    /// every node's final-normed hidden state.
    ///
    /// The cache is consumed: its new positions are laid out as a tree, which no later
    /// pass can extend.
    ///
    /// # Shapes
    ///
    /// → `[tree.len(), hidden]`.
    ///
    /// # Panics
    ///
    /// When the cache has positions of its own (rows), a token is outside the vocabulary,
    /// or the deepest node lies beyond [`Transformer::max_len`].
    pub(crate) fn forward_tree(&self, tree: &TokenTree, mut cache: KvCache<B>) -> Tensor<B, 2> {
        let nodes = tree.len();
        let offset = cache.len();
        assert_eq!(
            offset,
            cache.shared_len(),
            "a tree runs on shared positions only"
        );
        let device = self.device();
        let positions: Vec<usize> = tree.depths().iter().map(|&d| offset + d).collect();
        assert!(
            positions.iter().all(|&p| p < self.max_len()),
            "tree deeper than the context of {}",
            self.max_len()
        );
        let d = self.hidden_size() / self.num_heads;
        let scale = 1.0 / (d as f32).sqrt();
        let (cos_q, sin_q) = self
            .rope
            .tables_at(&positions, self.num_heads, scale, &device);
        let (cos_k, sin_k) = self
            .rope
            .tables_at(&positions, self.num_kv_heads, 1.0, &device);
        let groups = self.num_heads / self.num_kv_heads;
        let visible = tree.visibility();
        let own_mask = if offset > 0 {
            OwnMask::Bias(tree_bias(groups, &visible, nodes, &device))
        } else {
            OwnMask::Fused(Some(tree_mask(groups, &visible, nodes, &device)), false)
        };
        let step = Step {
            batch: 1,
            seq: nodes,
            cos_q,
            sin_q,
            cos_k,
            sin_k,
            own_mask,
        };
        let ids: Vec<i32> = tree.tokens().iter().map(|&t| t as i32).collect();
        let tokens = Tensor::<B, 1, Int>::from_data(TensorData::new(ids, [nodes]), &device);
        self.run_blocks(tokens, &step, &mut cache)
    }

    /// Embeds `tokens` and runs every block over them, extending `cache`: the final-normed
    /// hidden states, `[tokens, hidden]`.
    fn run_blocks(
        &self,
        tokens: Tensor<B, 1, Int>,
        step: &Step<B>,
        cache: &mut KvCache<B>,
    ) -> Tensor<B, 2> {
        let mut x = self.embed.val().select(0, tokens);
        for (i, block) in self.blocks.iter().enumerate() {
            let kv = cache.layer_mut(i);
            x = x.clone() + block.attn.forward(block.attn_norm.forward(x), step, kv);
            x = x.clone() + block.mlp.forward(block.mlp_norm.forward(x));
        }
        cache.advance(step.seq);
        self.norm.forward(x)
    }

    /// Logits of the next token for each hidden state.
    ///
    /// # Shapes
    ///
    /// `hidden`: `[rows, hidden]` → `[rows, vocab]`.
    pub fn logits(&self, hidden: Tensor<B, 2>) -> Tensor<B, 2> {
        hidden.matmul(self.head.val())
    }

    /// Number of decoder blocks.
    pub fn num_layers(&self) -> usize {
        self.blocks.len()
    }

    /// Width of the residual stream.
    pub fn hidden_size(&self) -> usize {
        self.embed.dims()[1]
    }

    /// Number of tokens in the vocabulary.
    pub fn vocab_size(&self) -> usize {
        self.embed.dims()[0]
    }

    /// Longest sequence the model accepts.
    pub fn max_len(&self) -> usize {
        self.rope.max_len()
    }

    /// The device the weights live on.
    pub fn device(&self) -> B::Device {
        self.embed.val().device()
    }

    /// An empty cache for this model.
    pub fn new_cache(&self) -> KvCache<B> {
        KvCache::new(self.num_layers())
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

/// A linear layer from an `[in, out]` row-major weight and an optional bias.
fn linear<B: Backend>(
    w: Vec<f32>,
    shape: [usize; 2],
    bias: Option<Vec<f32>>,
    device: &B::Device,
) -> Linear<B> {
    Linear::new(
        Tensor::from_data(TensorData::new(w, shape), device),
        bias.map(|b| vector(b, device)),
    )
}

/// A `[rows, cols]` (out, in) matrix as a contiguous `[cols, rows]` (in, out) tensor.
fn matrix_in_out<B: Backend>(
    data: &[f32],
    rows: usize,
    cols: usize,
    device: &B::Device,
) -> Tensor<B, 2> {
    Tensor::from_data(
        TensorData::new(transpose(data, rows, cols), [cols, rows]),
        device,
    )
}

fn vector<B: Backend>(data: Vec<f32>, device: &B::Device) -> Tensor<B, 1> {
    let n = data.len();
    Tensor::from_data(TensorData::new(data, [n]), device)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{assert_close, TestBackend};

    fn tiny() -> LlamaConfig {
        LlamaConfig::new(40, 16, 24, 2, 4, 2).with_max_seq_len(32)
    }

    fn run(
        model: &Transformer<TestBackend>,
        ids: &[i32],
        cache: &mut KvCache<TestBackend>,
    ) -> Tensor<TestBackend, 3> {
        let t = Tensor::<TestBackend, 1, Int>::from_data(
            TensorData::new(ids.to_vec(), [ids.len()]),
            &Default::default(),
        );
        model.forward(t.reshape([1, ids.len()]), cache)
    }

    #[test]
    fn incremental_decoding_equals_a_full_pass() {
        let model = tiny().init::<TestBackend>(&Default::default());
        let ids = [3, 17, 5, 39, 0, 8];
        let full = run(&model, &ids, &mut model.new_cache());
        let mut cache = model.new_cache();
        let mut parts = vec![run(&model, &ids[..4], &mut cache)];
        for &t in &ids[4..] {
            parts.push(run(&model, &[t], &mut cache));
        }
        assert_eq!(cache.len(), 6);
        assert_close(Tensor::cat(parts, 1).into_data(), full.into_data(), 1e-5);
    }

    #[test]
    fn missing_tensor_is_named() {
        let cfg = tiny();
        let mut w = MemoryWeights::random(&cfg, 1);
        let mut partial = MemoryWeights::new("partial");
        for name in w
            .names()
            .into_iter()
            .filter(|n| !n.contains("layers.1.mlp.up"))
        {
            let (s, d) = w.get(name).unwrap();
            partial.insert(name, s, d.to_vec());
        }
        let err = Transformer::<TestBackend>::from_weights(&cfg, &mut partial, &Default::default())
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "partial: missing tensor `model.layers.1.mlp.up_proj.weight`"
        );
        assert!(
            Transformer::<TestBackend>::from_weights(&cfg, &mut w, &Default::default()).is_ok()
        );
    }

    #[test]
    fn untied_head_and_biases_load() {
        let cfg = tiny().with_tie_embeddings(false).with_attention_bias(true);
        let model = cfg.init::<TestBackend>(&Default::default());
        let h = run(&model, &[1, 2, 3], &mut model.new_cache());
        let logits = model.logits(h.reshape([3, 16]));
        assert_eq!(logits.dims(), [3, 40]);
    }
}
