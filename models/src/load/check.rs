//! Checks that a model file holds exactly the tensors its configuration declares, in the
//! shapes it declares, before anything sized by that configuration is allocated.
//!
//! A count in the metadata (layers, vocabulary, widths) is believed only when the tensors
//! bear it out: a file that declares fewer layers than it holds would run a truncated
//! model, one that declares more would size tables for layers that are not there.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};
use crate::weights::expected_tensors;

/// One tensor of a file's directory.
pub(crate) struct Entry {
    /// Its name in the file.
    pub(crate) name: String,
    /// Its canonical name, when the format's naming has one for it.
    pub(crate) canonical: Option<String>,
    /// Its row-major shape.
    pub(crate) shape: Vec<usize>,
}

/// How a format names what it declares, for errors.
pub(crate) struct Naming<'a> {
    /// The file or folder holding the tensors.
    pub(crate) path: &'a Path,
    /// The file that declares the sizes (the GGUF file itself, or `config.json`).
    pub(crate) config: &'a Path,
    /// The key that declares the number of layers (`llama.block_count`,
    /// `num_hidden_layers`).
    pub(crate) layers_key: &'a str,
    /// The file's own name of a canonical tensor.
    pub(crate) own_name: &'a dyn Fn(&str) -> String,
    /// Tensors bip does not use that a file may hold all the same (Hugging Face's cached
    /// rotary frequencies, a head saved beside the embedding it is tied to).
    pub(crate) ignorable: &'a dyn Fn(&str) -> bool,
}

/// Checks that `entries` are exactly the tensors `config` needs, each in its shape.
///
/// # Errors
///
/// [`ModelError::BadKey`] naming the layer count when tensors of more or fewer layers are
/// present, [`ModelError::MissingTensor`] for another tensor the model needs, and
/// [`ModelError::BadTensor`] for a tensor of the wrong shape, one present twice, or one
/// the model does not use.
pub(crate) fn check_tensors(
    config: &LlamaConfig,
    entries: &[Entry],
    naming: &Naming<'_>,
) -> Result<()> {
    let path = naming.path;
    let unused = |name: &str| {
        ModelError::tensor(
            path,
            name,
            "is not a tensor of the model the file describes (bip would ignore it)",
        )
    };
    let mut present: HashMap<&str, &Entry> = HashMap::new();
    for e in entries.iter().filter(|e| !(naming.ignorable)(&e.name)) {
        let canonical = e.canonical.as_deref().ok_or_else(|| unused(&e.name))?;
        if present.insert(canonical, e).is_some() {
            return Err(ModelError::tensor(
                path,
                &e.name,
                format!("is a second copy of `{canonical}`"),
            ));
        }
    }
    let layers_held = present
        .keys()
        .filter_map(|n| layer_of(n))
        .max()
        .map_or(0, |l| l + 1);
    let layers_error = |detail: String| {
        ModelError::key(
            naming.config,
            naming.layers_key,
            format!(
                "{} layers declared, but the weights hold tensors for {layers_held}{detail}",
                config.num_layers
            ),
        )
    };
    if layers_held > config.num_layers {
        return Err(layers_error(String::new()));
    }
    let mut expected = HashSet::new();
    // Stops at the first tensor missing, so that a layer count far beyond the file's
    // tensors costs nothing.
    for (name, shape) in expected_tensors(config) {
        let Some(entry) = present.get(name.as_str()) else {
            let own = (naming.own_name)(&name);
            return Err(match layer_of(&name).filter(|&l| l >= layers_held) {
                Some(_) => layers_error(format!(" (`{own}` is missing)")),
                None => ModelError::MissingTensor {
                    path: path.to_path_buf(),
                    name: own,
                },
            });
        };
        if !same_shape(&entry.shape, &shape) {
            return Err(ModelError::tensor(
                path,
                &entry.name,
                format!("shape {:?}, expected {shape:?}", entry.shape),
            ));
        }
        expected.insert(name);
    }
    match entries
        .iter()
        .filter(|e| !(naming.ignorable)(&e.name))
        .find(|e| !e.canonical.as_ref().is_some_and(|c| expected.contains(c)))
    {
        Some(extra) => Err(unused(&extra.name)),
        None => Ok(()),
    }
}

/// Whether a tensor stored as `found` holds one of `shape` (a vector may be stored with
/// unit dimensions around it).
pub(crate) fn same_shape(found: &[usize], shape: &[usize]) -> bool {
    found == shape
        || found
            .iter()
            .copied()
            .filter(|&d| d != 1)
            .eq(shape.iter().copied())
}

/// The layer of canonical tensor `name` (`model.layers.N....`), if it belongs to one.
fn layer_of(name: &str) -> Option<usize> {
    let rest = name.strip_prefix("model.layers.")?;
    rest.split_once('.')?.0.parse().ok()
}

/// The index of the first NaN or infinity in `values`, if any. Every weight of a model
/// passes here at load: the magnitudes' bits are compared a chunk at a time, which the
/// compiler vectorizes, and only a chunk that holds one is searched element by element.
pub(crate) fn first_non_finite(values: &[f32]) -> Option<usize> {
    const CHUNK: usize = 1024;
    let infinity = f32::INFINITY.to_bits();
    values.chunks(CHUNK).enumerate().find_map(|(c, chunk)| {
        let largest = chunk
            .iter()
            .map(|v| v.to_bits() & 0x7fff_ffff)
            .fold(0, u32::max);
        (largest >= infinity)
            .then(|| c * CHUNK + chunk.iter().position(|v| !v.is_finite()).unwrap_or(0))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::weights::canonical_tensors;

    fn entries(config: &LlamaConfig) -> Vec<Entry> {
        canonical_tensors(config)
            .into_iter()
            .map(|(name, shape)| Entry {
                canonical: Some(name.clone()),
                name,
                shape,
            })
            .collect()
    }

    fn check(config: &LlamaConfig, entries: &[Entry]) -> Result<()> {
        let naming = Naming {
            path: Path::new("m"),
            config: Path::new("m"),
            layers_key: "layers",
            own_name: &|n| n.to_string(),
            ignorable: &|n| n.ends_with("inv_freq"),
        };
        check_tensors(config, entries, &naming)
    }

    #[test]
    fn exactly_the_declared_tensors_pass() {
        let config = LlamaConfig::new(16, 8, 12, 3, 2, 1);
        let mut all = entries(&config);
        check(&config, &all).unwrap();
        all.push(Entry {
            name: "model.layers.0.self_attn.rotary_emb.inv_freq".into(),
            canonical: None,
            shape: vec![2],
        });
        check(&config, &all).unwrap();
    }

    #[test]
    fn layer_counts_must_match_the_tensors() {
        let held = LlamaConfig::new(16, 8, 12, 3, 2, 1);
        let layers = |n: usize| LlamaConfig {
            num_layers: n,
            ..held.clone()
        };
        let err = check(&layers(2), &entries(&held)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "m: metadata key `layers`: 2 layers declared, but the weights hold tensors for 3"
        );
        let err = check(&layers(1_000_000_000_000), &entries(&held)).unwrap_err();
        assert!(
            err.to_string()
                .contains("1000000000000 layers declared, but the weights hold tensors for 3"),
            "{err}"
        );
    }

    #[test]
    fn extra_missing_and_misshapen_tensors_are_named() {
        let config = LlamaConfig::new(16, 8, 12, 2, 2, 1);
        let mut all = entries(&config);
        all.push(Entry {
            name: "mystery.weight".into(),
            canonical: Some("mystery.weight".into()),
            shape: vec![4],
        });
        let err = check(&config, &all).unwrap_err().to_string();
        assert!(
            err.contains("tensor `mystery.weight`: is not a tensor"),
            "{err}"
        );
        all.pop();
        all.remove(3);
        let err = check(&config, &all).unwrap_err().to_string();
        assert!(err.contains("missing tensor `model.layers.0."), "{err}");
        let mut all = entries(&config);
        all[0].shape = vec![17, 8];
        let err = check(&config, &all).unwrap_err().to_string();
        assert!(err.contains("shape [17, 8], expected [16, 8]"), "{err}");
    }

    #[test]
    fn the_first_non_finite_value_is_found_wherever_it_lies() {
        let mut values = vec![1.0f32; 3000];
        assert_eq!(first_non_finite(&values), None);
        values[2049] = f32::NEG_INFINITY;
        values[2500] = f32::NAN;
        assert_eq!(first_non_finite(&values), Some(2049));
        values[7] = f32::NAN;
        assert_eq!(first_non_finite(&values), Some(7));
        values[0] = f32::MAX;
        assert_eq!(first_non_finite(&values[..7]), None);
    }
}
