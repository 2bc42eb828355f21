//! Merging an adapter into weights as they are loaded.

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;

use super::adapter::{pair_names, LoraAdapter, LoraPair};
use super::config::LoraModule;
use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};
use crate::load::check::first_non_finite;
use crate::weights::WeightSource;

/// A [`WeightSource`] that adds an adapter's updates, `scale · B · A`, to the weights of
/// another.
///
/// The update is added in the canonical layout (Hugging Face row order, `[out, in]`),
/// which is what every source returns, GGUF's un-permuted query/key rows included; so a
/// PEFT adapter, trained on Hugging Face weights, lands on the same rows whatever the
/// model's file format.
pub struct AdaptedWeights<'a> {
    base: &'a mut dyn WeightSource,
    scale: f32,
    updates: HashMap<String, (usize, LoraModule, &'a LoraPair)>,
    adapter: &'a Path,
}

impl<'a> AdaptedWeights<'a> {
    /// `base` with `adapter`'s updates, after checking that they fit `model`.
    ///
    /// # Errors
    ///
    /// What [`LoraAdapter::check`] returns. Reading a weight through it returns
    /// [`ModelError::BadTensor`] naming the adapter's tensor when the merged weight is not
    /// finite.
    pub fn new(
        base: &'a mut dyn WeightSource,
        adapter: &'a LoraAdapter,
        model: &LlamaConfig,
    ) -> Result<Self> {
        adapter.check(model)?;
        let updates = adapter
            .pairs()
            .map(|(layer, module, pair)| (module.weight_name(layer), (layer, module, pair)))
            .collect();
        Ok(Self {
            base,
            scale: adapter.config().scale() as f32,
            updates,
            adapter: adapter.origin(),
        })
    }
}

impl WeightSource for AdaptedWeights<'_> {
    fn origin(&self) -> &Path {
        self.base.origin()
    }

    fn tensor(&mut self, name: &str, shape: &[usize]) -> Result<Option<Vec<f32>>> {
        let mut data = self.base.tensor(name, shape)?;
        if let (Some(w), Some(&(layer, module, pair))) = (data.as_mut(), self.updates.get(name)) {
            add_update(w, pair, self.scale);
            // Finite factors can still overflow `f32` once multiplied: refused here, not
            // scored as NaN later.
            if let Some(i) = first_non_finite(w) {
                return Err(ModelError::tensor(
                    self.adapter,
                    pair_names(layer, module, 1),
                    format!(
                        "merged into `{name}`, the update makes element {i} {}: its values are too large",
                        w[i]
                    ),
                ));
            }
        }
        Ok(data)
    }

    fn recycle(&mut self, spare: Vec<f32>) {
        self.base.recycle(spare);
    }
}

/// `w += scale · B · A`, with `w` `[d_out, d_in]` row-major (the caller checked shapes).
/// Rows are independent, so the parallel sum is deterministic.
pub(crate) fn add_update(w: &mut [f32], pair: &LoraPair, scale: f32) {
    let (r, d_in) = (pair.rank(), pair.d_in());
    let (a, b) = (pair.a(), pair.b());
    w.par_chunks_mut(d_in).enumerate().for_each(|(o, row)| {
        for k in 0..r {
            let coef = scale * b[o * r + k];
            if coef != 0.0 {
                for (x, &y) in row.iter_mut().zip(&a[k * d_in..(k + 1) * d_in]) {
                    *x += coef * y;
                }
            }
        }
    });
}
