//! A weight matrix held on the host in a compact form and multiplied there: f16
//! ([`HalfMatrix`]) or 8-bit blocks ([`Int8Matrix`]).

use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor, TensorData};

use super::half::HalfMatrix;
use super::int8::Int8Matrix;
use crate::load::WeightStorage;

/// A `rows × cols` matrix `M`, the weight of `x ↦ x Mᵀ`, held compactly on the host.
#[derive(Debug)]
pub(crate) enum HostMatrix {
    Half(HalfMatrix),
    Int8(Int8Matrix),
}

impl HostMatrix {
    /// `values`, `rows × cols` row-major, held as `storage` says; `None` for
    /// [`WeightStorage::F32`], which the backend holds itself.
    pub(crate) fn new(
        storage: WeightStorage,
        values: &[f32],
        rows: usize,
        cols: usize,
    ) -> Option<Self> {
        match storage {
            WeightStorage::F32 => None,
            WeightStorage::F16 => Some(Self::Half(HalfMatrix::from_f32(values, rows, cols))),
            WeightStorage::Int8 => Some(Self::Int8(Int8Matrix::from_f32(values, rows, cols))),
        }
    }

    /// How the matrix is held.
    pub(crate) fn storage(&self) -> WeightStorage {
        match self {
            Self::Half(_) => WeightStorage::F16,
            Self::Int8(_) => WeightStorage::Int8,
        }
    }

    /// Number of rows (outputs of the product).
    pub(crate) fn rows(&self) -> usize {
        match self {
            Self::Half(m) => m.rows(),
            Self::Int8(m) => m.rows(),
        }
    }

    /// `x Mᵀ`: `[n, cols]` → `[n, rows]`.
    pub(crate) fn product<B: Backend>(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        match self {
            Self::Half(m) => m.product(x),
            Self::Int8(m) => m.product(x),
        }
    }

    /// The rows named by `ids`, in f32: `[ids, cols]`.
    pub(crate) fn gather<B: Backend>(&self, ids: Tensor<B, 1, Int>) -> Tensor<B, 2> {
        match self {
            Self::Half(m) => m.gather(ids),
            Self::Int8(m) => m.gather(ids),
        }
    }
}

/// The rows named by `ids` of a `rows × cols` matrix whose row `i` `row_into` writes out in
/// f32: `[ids, cols]`. Token ids are checked against the vocabulary before any pass; an id
/// out of range, were one to reach here, leaves its row zeros rather than panicking.
pub(super) fn gather_rows<B: Backend>(
    ids: Tensor<B, 1, Int>,
    rows: usize,
    cols: usize,
    row_into: impl Fn(usize, &mut [f32]),
) -> Tensor<B, 2> {
    let device = ids.device();
    let ids: Vec<i64> = ids
        .into_data()
        .convert::<i64>()
        .to_vec()
        .unwrap_or_default();
    let mut out = vec![0.0f32; ids.len() * cols];
    for (&id, row) in ids.iter().zip(out.chunks_exact_mut(cols)) {
        if let Ok(i) = usize::try_from(id) {
            if i < rows {
                row_into(i, row);
            }
        }
    }
    Tensor::from_data(TensorData::new(out, [ids.len(), cols]), &device)
}
