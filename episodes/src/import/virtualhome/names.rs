//! Episode ids for imported nodes: the class name when one node has it (`fridge`,
//! `kitchen`), `class_1`, `class_2`, ... in node-id order when several do (`plate_1`), so
//! that the episode's default class (the id without its `_N`) is the VirtualHome class.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::graph::Graph;
use super::report::{NoteKind, Notes};

/// Names `nodes` (rooms, furniture, objects); duplicate classes are reported.
pub(crate) fn name_nodes(
    graph: &Graph,
    nodes: &[usize],
    notes: &mut Notes,
) -> HashMap<usize, String> {
    let mut by_class: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for &n in nodes {
        by_class
            .entry(graph.nodes[n].class.as_str())
            .or_default()
            .push(n);
    }
    let mut wanted: Vec<(usize, String)> = Vec::with_capacity(nodes.len());
    for (class, mut group) in by_class {
        group.sort_by_key(|&n| graph.nodes[n].id);
        if let [only] = group.as_slice() {
            wanted.push((*only, class.to_string()));
            continue;
        }
        for (k, &n) in group.iter().enumerate() {
            notes.group(
                NoteKind::Numbered,
                class,
                graph.nodes[n].id,
                &format!(
                    "{} nodes share the class: named {class}_1 ... {class}_{} in node-id order",
                    group.len(),
                    group.len()
                ),
            );
            wanted.push((n, format!("{class}_{}", k + 1)));
        }
    }
    wanted.sort_by_key(|&(n, _)| graph.nodes[n].id);
    let mut used: HashSet<String> = HashSet::with_capacity(wanted.len());
    let mut names = HashMap::with_capacity(wanted.len());
    for (n, name) in wanted {
        let mut unique = name.clone();
        let mut k = 2;
        while used.contains(&unique) {
            unique = format!("{name}_{k}");
            k += 1;
        }
        if unique != name {
            notes.group(
                NoteKind::Numbered,
                &graph.nodes[n].class,
                graph.nodes[n].id,
                &format!("{name} was taken: named {unique}"),
            );
        }
        used.insert(unique.clone());
        names.insert(n, unique);
    }
    names
}
