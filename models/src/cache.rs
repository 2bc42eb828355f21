//! Per-layer key/value cache of a decoder.

use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

/// Keys and values of one layer: those shared by every row (a common prompt prefix,
/// stored once) and each row's own.
///
/// # Shapes
///
/// Shared: `[kv_heads, shared_len, head_dim]`. Own: `[kv_heads, batch, own_len, head_dim]`.
/// Keys are stored after the rotary embedding.
#[derive(Clone, Debug)]
pub(crate) struct LayerKv<B: Backend> {
    pub(crate) shared: Option<(Tensor<B, 3>, Tensor<B, 3>)>,
    pub(crate) own: Option<(Tensor<B, 4>, Tensor<B, 4>)>,
}

impl<B: Backend> LayerKv<B> {
    fn empty() -> Self {
        Self {
            shared: None,
            own: None,
        }
    }

    /// Appends `k` and `v` to the rows' own keys and values and returns all of them.
    ///
    /// # Shapes
    ///
    /// `k`, `v`: `[kv_heads, batch, new, head_dim]` → `[kv_heads, batch, own_len + new, head_dim]`.
    pub(crate) fn append(
        &mut self,
        k: Tensor<B, 4>,
        v: Tensor<B, 4>,
    ) -> (Tensor<B, 4>, Tensor<B, 4>) {
        let (k, v) = match self.own.take() {
            None => (k, v),
            Some((pk, pv)) => (Tensor::cat(vec![pk, k], 2), Tensor::cat(vec![pv, v], 2)),
        };
        self.own = Some((k.clone(), v.clone()));
        (k, v)
    }
}

/// The keys and values of every layer for the tokens run so far: the explicit decoding
/// state that [`crate::Transformer::forward`] extends.
///
/// A cache holds one or more rows (sequences side by side). Its first positions may be
/// *shared*: stored once and seen by every row, which is how a prompt prefix serves a
/// batch of continuations without being copied per row. Cloning is cheap (tensors are
/// shared until written).
#[derive(Clone, Debug)]
pub struct KvCache<B: Backend> {
    layers: Vec<LayerKv<B>>,
    len: usize,
    shared_len: usize,
}

impl<B: Backend> KvCache<B> {
    /// An empty cache for a model of `num_layers` layers.
    pub fn new(num_layers: usize) -> Self {
        Self {
            layers: vec![LayerKv::empty(); num_layers],
            len: 0,
            shared_len: 0,
        }
    }

    /// Number of positions cached (shared and own).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of leading positions shared by every row.
    pub fn shared_len(&self) -> usize {
        self.shared_len
    }

    /// Number of rows with positions of their own (`None` when there are none).
    pub fn batch_size(&self) -> Option<usize> {
        self.layers
            .first()
            .and_then(|l| l.own.as_ref())
            .map(|(k, _)| k.dims()[1])
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = Self::new(self.layers.len());
    }

    /// The first `len` positions of a single-row cache without shared positions (views of
    /// the same data).
    ///
    /// # Panics
    ///
    /// When `len` exceeds [`KvCache::len`] or the cache has shared positions or several
    /// rows.
    pub(crate) fn truncated(&self, len: usize) -> Self {
        assert!(
            len <= self.len,
            "truncating a cache of {} to {len}",
            self.len
        );
        assert_eq!(
            self.shared_len, 0,
            "truncating a cache with shared positions"
        );
        if len == 0 {
            return Self::new(self.layers.len());
        }
        let layers = self
            .layers
            .iter()
            .map(|l| LayerKv {
                shared: None,
                own: l.own.as_ref().map(|(k, v)| {
                    assert_eq!(k.dims()[1], 1, "truncating a cache of several rows");
                    (k.clone().narrow(2, 0, len), v.clone().narrow(2, 0, len))
                }),
            })
            .collect();
        Self {
            layers,
            len,
            shared_len: 0,
        }
    }

    /// This single-row cache as the shared beginning of any number of rows: new tokens
    /// run on the result, in a batch of any size, see all of its positions.
    ///
    /// # Panics
    ///
    /// When the cache has shared positions already or several rows.
    pub(crate) fn into_shared(self) -> Self {
        assert_eq!(self.shared_len, 0, "the cache already has shared positions");
        let layers = self
            .layers
            .into_iter()
            .map(|l| LayerKv {
                shared: l.own.map(|(k, v)| {
                    let [kvh, b, n, d] = k.dims();
                    assert_eq!(b, 1, "only a single-row cache can be shared");
                    (k.reshape([kvh, n, d]), v.reshape([kvh, n, d]))
                }),
                own: None,
            })
            .collect();
        Self {
            layers,
            len: self.len,
            shared_len: self.len,
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
