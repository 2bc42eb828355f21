//! A stratified fixed subset of questions: the same few questions of every type in every
//! theme and policy, chosen by a seeded rule that does not depend on the input's order.

use std::collections::{BTreeMap, BTreeSet};

/// How many questions of each type a study keeps, and the seed of the choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subset {
    /// Questions kept per type (all of a type that has fewer).
    pub per_type: usize,
    /// Seed of the order the questions are taken in.
    pub seed: u64,
}

/// A question the subset may keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Its key, the same in every theme (`episode/question`).
    pub key: String,
    /// Its type (the label's text, or [`UNLABELLED`](crate::evaluation::UNLABELLED)).
    pub kind: String,
}

/// The keys `subset` keeps of `candidates`: within each type, the candidates ordered by
/// a hash of (seed, key), the first `per_type` taken. A candidate's fate depends on its
/// key, type and the seed alone, never on the input's order or the options' order.
///
/// # Example
/// ```
/// use bip_lab::study::{stratified, Candidate, Subset};
///
/// let candidates: Vec<Candidate> = (0..10)
///     .map(|i| Candidate { key: format!("e{i}/q1"), kind: if i < 6 { "1.1" } else { "2.1" }.into() })
///     .collect();
/// let kept = stratified(&candidates, Subset { per_type: 2, seed: 7 });
/// assert_eq!(kept.len(), 4);
/// assert_eq!(kept, stratified(&candidates, Subset { per_type: 2, seed: 7 }));
/// ```
pub fn stratified(candidates: &[Candidate], subset: Subset) -> BTreeSet<String> {
    let mut by_kind: BTreeMap<&str, Vec<(u64, &str)>> = BTreeMap::new();
    for c in candidates {
        by_kind
            .entry(c.kind.as_str())
            .or_default()
            .push((rank(subset.seed, &c.key), c.key.as_str()));
    }
    by_kind
        .into_values()
        .flat_map(|mut ranked| {
            // Ties in the hash (vanishingly rare) fall back to the key: still order-free.
            ranked.sort_unstable();
            ranked.truncate(subset.per_type);
            ranked.into_iter().map(|(_, key)| key.to_string())
        })
        .collect()
}

/// The rank of `key` under `seed`: FNV-1a over both, then a SplitMix64 finish so that
/// keys differing in one character spread over the whole range. Stable across Rust
/// versions and platforms (the standard hasher is not promised to be).
fn rank(seed: u64, key: &str) -> u64 {
    let fnv = seed
        .to_le_bytes()
        .iter()
        .chain(key.as_bytes())
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    let mut z = fnv.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidates(n: usize) -> Vec<Candidate> {
        (0..n)
            .map(|i| Candidate {
                key: format!("e{i}/q1"),
                kind: ["1.1", "1.2", "2.1"][i % 3].to_string(),
            })
            .collect()
    }

    #[test]
    fn each_type_keeps_its_quota_whatever_the_order() {
        let all = candidates(30);
        let kept = stratified(
            &all,
            Subset {
                per_type: 4,
                seed: 1,
            },
        );
        assert_eq!(kept.len(), 12);
        for kind in ["1.1", "1.2", "2.1"] {
            let of_kind = all
                .iter()
                .filter(|c| c.kind == kind && kept.contains(&c.key));
            assert_eq!(of_kind.count(), 4, "{kind}");
        }
        let mut reversed = all.clone();
        reversed.reverse();
        assert_eq!(
            stratified(
                &reversed,
                Subset {
                    per_type: 4,
                    seed: 1
                }
            ),
            kept
        );
    }

    #[test]
    fn the_seed_changes_the_choice_and_small_types_are_kept_whole() {
        let all = candidates(60);
        let one = stratified(
            &all,
            Subset {
                per_type: 3,
                seed: 1,
            },
        );
        let two = stratified(
            &all,
            Subset {
                per_type: 3,
                seed: 2,
            },
        );
        assert_ne!(one, two);
        assert_eq!(
            stratified(
                &all[..4],
                Subset {
                    per_type: 3,
                    seed: 1
                }
            )
            .len(),
            4
        );
        assert!(stratified(
            &all,
            Subset {
                per_type: 0,
                seed: 1
            }
        )
        .is_empty());
    }
}
