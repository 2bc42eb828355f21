//! The Llama-family decoder: embedding, blocks of attention and SwiGLU, final norm, and a
//! contiguous LM head.

mod build;

use burn::module::{Module, Param};
use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor, TensorData};

use crate::cache::KvCache;
use crate::load::WeightStorage;
use crate::lora::LoraModule;
use crate::nn::attention::{
    group_mask, own_bias, tree_bias, tree_mask, Attention, OwnMask, Rotary, Step,
};
use crate::nn::linear::Linear;
use crate::nn::mlp::Mlp;
use crate::nn::norm::RmsNorm;
use crate::nn::rope::Rope;
use crate::tree::TokenTree;

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
/// Built from any [`crate::WeightSource`] by [`Transformer::from_weights`], or with random weights
/// by [`crate::LlamaConfig::init`]. [`Transformer::forward`] runs new tokens on top of a
/// [`KvCache`]; [`Transformer::logits`] applies the LM head to chosen hidden states only,
/// which is where scoring saves most of its time.
#[derive(Module, Debug)]
pub struct Transformer<B: Backend> {
    /// `[vocab, hidden]`: rows are gathered for the input. `None` when the head is tied
    /// to the embedding: the rows are then read from the head, and the matrix is held
    /// once (at 1.5B parameters a second copy would be 0.9 GB).
    embed: Option<Param<Tensor<B, 2>>>,
    blocks: Vec<Block<B>>,
    norm: RmsNorm<B>,
    /// `[hidden, vocab]`, contiguous (never a transposed view of `embed`: multiplying by
    /// such a view copies the whole matrix on every call), or f16 rows on the host.
    head: Linear<B>,
    #[module(skip)]
    rope: Rope,
    num_heads: usize,
    num_kv_heads: usize,
}

impl<B: Backend> Transformer<B> {
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
        let positions: Vec<usize> = (0..batch).flat_map(|_| offset..offset + seq).collect();
        let heads = (self.num_heads, self.num_kv_heads);
        let rotary = Rotary::at(&self.rope, &positions, heads, &device);
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
            rotary,
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
        let heads = (self.num_heads, self.num_kv_heads);
        let rotary = Rotary::at(&self.rope, &positions, heads, &device);
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
            rotary,
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
        let mut x = match &self.embed {
            Some(embed) => embed.val().select(0, tokens),
            None => self.head.embedding_rows(tokens),
        };
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
        self.head.forward(hidden)
    }

    /// How the weight matrices are held (the head tells: every matrix is held alike).
    pub fn weight_storage(&self) -> WeightStorage {
        self.head.storage()
    }

    /// Number of decoder blocks.
    pub fn num_layers(&self) -> usize {
        self.blocks.len()
    }

    /// Width of the residual stream.
    pub fn hidden_size(&self) -> usize {
        self.norm.width()
    }

    /// Number of tokens in the vocabulary.
    pub fn vocab_size(&self) -> usize {
        self.head.d_output()
    }

    /// Longest sequence the model accepts.
    pub fn max_len(&self) -> usize {
        self.rope.max_len()
    }

    /// The device the weights live on.
    pub fn device(&self) -> B::Device {
        self.norm.device()
    }

    /// An empty cache for this model.
    pub fn new_cache(&self) -> KvCache<B> {
        KvCache::new(self.num_layers())
    }

    /// The linear layer a LoRA adapter's `module` of block `layer` updates; `None` when
    /// there is no such block.
    pub(crate) fn linear_mut(
        &mut self,
        layer: usize,
        module: LoraModule,
    ) -> Option<&mut Linear<B>> {
        let block = self.blocks.get_mut(layer)?;
        match block.attn.linear_mut(module) {
            Some(linear) => Some(linear),
            None => block.mlp.linear_mut(module),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LlamaConfig;
    use crate::tests::{assert_close, TestBackend};
    use crate::weights::MemoryWeights;

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

    /// A full pass over `prefix`, then a two-branch tree over its cache: both outputs as
    /// host values, on backend `B`.
    fn prefix_then_tree<B: Backend>(prefix: &[i32]) -> (Vec<f32>, Vec<f32>) {
        let dev = Default::default();
        let model = tiny().init_with_seed::<B>(7, &dev);
        let t =
            Tensor::<B, 1, Int>::from_data(TensorData::new(prefix.to_vec(), [prefix.len()]), &dev);
        let mut cache = model.new_cache();
        let full = model.forward(t.reshape([1, prefix.len()]), &mut cache);
        let mut tree = TokenTree::default();
        tree.push(&[5, 9, 2]);
        tree.push(&[5, 11]);
        let nodes = model.forward_tree(&tree, cache.into_shared());
        let values = |d: TensorData| d.convert::<f32>().to_vec::<f32>().unwrap();
        (values(full.into_data()), values(nodes.into_data()))
    }

    #[test]
    fn the_cpu_host_path_computes_what_the_tensor_path_does() {
        // Autodiff over the CPU backend takes the tensor path: rotate-half twin
        // projections, softmax and SiLU as tensor operations.
        let prefix = [3, 17, 5, 39, 0, 8, 21];
        let (host_full, host_tree) = prefix_then_tree::<TestBackend>(&prefix);
        let (tensor_full, tensor_tree) =
            prefix_then_tree::<burn_autodiff::Autodiff<TestBackend>>(&prefix);
        for (host, tensor) in [(host_full, tensor_full), (host_tree, tensor_tree)] {
            assert_eq!(host.len(), tensor.len());
            for (a, b) in host.iter().zip(&tensor) {
                assert!((a - b).abs() < 1e-5, "{a} vs {b}");
            }
        }
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
