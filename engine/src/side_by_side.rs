//! Running many episodes of one serial policy side by side: the episodes that share a
//! layout go in sets, each set through its own fork of the policy ([`Policy::fork`]), the
//! sets in parallel.

use std::collections::HashMap;

use rayon::prelude::*;

use bip_episodes::{FurnitureKind, World};

use crate::policy::Policy;

/// Most items run through one fork in [`run_side_by_side`]. Each set computes its
/// layout's prompt beginning once (about 250 positions for an MMToM-QA apartment, against
/// some 550 per question after it), so larger sets share more, smaller ones spread better
/// over the cores. A constant, not a function of the thread count, so that the answers
/// are the same on any machine.
const SET_SIZE: usize = 8;

/// Runs `run` over every item, in sets of items whose worlds share a layout (rooms and
/// furniture, which a language model's prompts begin with), the sets side by side and
/// each set in input order through a fresh fork of `policy`. Results are in input order.
///
/// `worlds[i]` is item `i`'s world; an item without one (`None`, or past the end of
/// `worlds`) is a set of its own. An item's result depends only on the items before it
/// in its set, whatever the number of threads. `None` when `policy` cannot be forked:
/// then nothing has run.
pub fn run_side_by_side<T: Sync, R: Send>(
    items: &[T],
    worlds: &[Option<&World>],
    policy: &dyn Policy,
    run: &(dyn Fn(&T, &dyn Policy) -> R + Sync),
) -> Option<Vec<R>> {
    // A fork is made inside each set's task and dropped with it, so that only as many
    // prefix caches live at once as there are threads.
    policy.fork()?;
    let keys: Vec<Option<String>> = (0..items.len())
        .map(|i| worlds.get(i).copied().flatten().map(layout_key))
        .collect();
    let sets = layout_sets(&keys, SET_SIZE);
    let done: Vec<Vec<(usize, R)>> = sets
        .par_iter()
        .map(|set| {
            // A policy that forked once forks again; were it not to, the set shares it.
            let fork = policy.fork();
            let through = fork.as_deref().unwrap_or(policy);
            set.iter().map(|&i| (i, run(&items[i], through))).collect()
        })
        .collect();
    let mut results: Vec<Option<R>> = items.iter().map(|_| None).collect();
    for (i, result) in done.into_iter().flatten() {
        results[i] = Some(result);
    }
    results.into_iter().collect()
}

/// Indices of the items grouped by layout key (`None`: a group of its own), each group in
/// input order and cut into sets of at most `size`, the sets in order of their first item.
fn layout_sets(keys: &[Option<String>], size: usize) -> Vec<Vec<usize>> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut sets: Vec<Vec<usize>> = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        let set = match key {
            Some(key) => *index.entry(key).or_insert_with(|| {
                sets.push(Vec::new());
                sets.len() - 1
            }),
            None => {
                sets.push(Vec::new());
                sets.len() - 1
            }
        };
        sets[set].push(i);
    }
    let mut cut: Vec<Vec<usize>> = sets
        .iter()
        .flat_map(|set| set.chunks(size.max(1)).map(<[usize]>::to_vec))
        .collect();
    cut.sort_by_key(|set| set[0]);
    cut
}

/// What a layout is made of, as one text; names are length-prefixed, so two different
/// layouts never give the same text.
fn layout_key(world: &World) -> String {
    let mut key = String::new();
    for room in &world.rooms {
        key.push_str(&format!("{}:{}\n", room.name.len(), room.name));
    }
    for f in &world.furniture {
        let kind = match f.kind {
            FurnitureKind::Container => 'c',
            FurnitureKind::Surface => 's',
        };
        key.push_str(&format!(
            "{}:{}\t{}\t{kind}\n",
            f.name.len(),
            f.name,
            f.room.index()
        ));
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_follow_layouts_in_input_order_and_are_cut_at_the_set_size() {
        let key = |k: &str| Some(k.to_string());
        let keys = [key("a"), key("b"), key("a"), None, key("a"), key("b"), None];
        assert_eq!(
            layout_sets(&keys, 2),
            vec![vec![0, 2], vec![1, 5], vec![3], vec![4], vec![6]]
        );
        assert_eq!(layout_sets(&keys, 8)[0], vec![0, 2, 4]);
    }
}
