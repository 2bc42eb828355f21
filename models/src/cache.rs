//! Per-layer key/value cache of a decoder.

use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

/// Keys and values of one layer.
///
/// # Shapes
///
/// Both `[batch, kv_heads, len, head_dim]`, keys after the rotary embedding.
#[derive(Clone, Debug)]
pub(crate) struct LayerKv<B: Backend> {
    pub(crate) kv: Option<(Tensor<B, 4>, Tensor<B, 4>)>,
}

impl<B: Backend> LayerKv<B> {
    /// Appends `k` and `v` along the sequence and returns the whole keys and values.
    ///
    /// # Shapes
    ///
    /// `k`, `v`: `[batch, kv_heads, new, head_dim]` → `[batch, kv_heads, len + new, head_dim]`.
    pub(crate) fn append(
        &mut self,
        k: Tensor<B, 4>,
        v: Tensor<B, 4>,
    ) -> (Tensor<B, 4>, Tensor<B, 4>) {
        let (k, v) = match self.kv.take() {
            None => (k, v),
            Some((pk, pv)) => (Tensor::cat(vec![pk, k], 2), Tensor::cat(vec![pv, v], 2)),
        };
        self.kv = Some((k.clone(), v.clone()));
        (k, v)
    }
}

/// The keys and values of every layer for the tokens run so far: the explicit decoding
/// state that [`crate::Transformer::forward`] extends.
///
/// Cloning is cheap (tensors are shared until written).
#[derive(Clone, Debug)]
pub struct KvCache<B: Backend> {
    layers: Vec<LayerKv<B>>,
    len: usize,
}

impl<B: Backend> KvCache<B> {
    /// An empty cache for a model of `num_layers` layers.
    pub fn new(num_layers: usize) -> Self {
        Self {
            layers: vec![LayerKv { kv: None }; num_layers],
            len: 0,
        }
    }

    /// Number of positions cached.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of sequences cached side by side (`None` while empty).
    pub fn batch_size(&self) -> Option<usize> {
        self.layers
            .first()
            .and_then(|l| l.kv.as_ref())
            .map(|(k, _)| k.dims()[0])
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        let n = self.layers.len();
        *self = Self::new(n);
    }

    /// The first `len` positions (views of the same data).
    ///
    /// # Panics
    ///
    /// When `len` exceeds [`KvCache::len`].
    pub(crate) fn truncated(&self, len: usize) -> Self {
        assert!(
            len <= self.len,
            "truncating a cache of {} to {len}",
            self.len
        );
        if len == 0 {
            return Self::new(self.layers.len());
        }
        let layers = self
            .layers
            .iter()
            .map(|l| LayerKv {
                kv: l
                    .kv
                    .as_ref()
                    .map(|(k, v)| (k.clone().narrow(2, 0, len), v.clone().narrow(2, 0, len))),
            })
            .collect();
        Self { layers, len }
    }

    /// A batch-1 cache broadcast to `batch` identical rows.
    ///
    /// # Panics
    ///
    /// When the cache holds more than one row.
    pub(crate) fn expanded(&self, batch: usize) -> Self {
        let layers = self
            .layers
            .iter()
            .map(|l| LayerKv {
                kv: l.kv.as_ref().map(|(k, v)| {
                    let [b, h, n, d] = k.dims();
                    assert_eq!(b, 1, "only a single-row cache can be broadcast");
                    (
                        k.clone().expand([batch, h, n, d]),
                        v.clone().expand([batch, h, n, d]),
                    )
                }),
            })
            .collect();
        Self {
            layers,
            len: self.len,
        }
    }

    /// The cache of layer `i`.
    pub(crate) fn layer_mut(&mut self, i: usize) -> &mut LayerKv<B> {
        &mut self.layers[i]
    }

    /// Records that `n` more positions were appended to every layer.
    pub(crate) fn advance(&mut self, n: usize) {
        self.len += n;
    }

    /// Number of layers.
    pub(crate) fn num_layers(&self) -> usize {
        self.layers.len()
    }
}
