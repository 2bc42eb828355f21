//! Rewriting ids (`kitchen_cabinet_3`, `bedroom_coffee_table`, `wine_1`): the parts
//! between underscores are matched, longest first, against room ids and classes; numbers
//! and unknown parts are kept.

use std::collections::HashMap;

/// Room ids and classes (parts joined by `_`) and what each becomes.
#[derive(Debug, Clone, Default)]
pub(crate) struct IdTable {
    entries: HashMap<String, String>,
    longest: usize,
}

impl IdTable {
    /// Adds `from → to` unless `from` is there already; returns the one there.
    pub(crate) fn insert(&mut self, from: &str, to: &str) -> Option<&str> {
        self.longest = self.longest.max(from.split('_').count());
        match self.entries.entry(from.to_string()) {
            std::collections::hash_map::Entry::Occupied(e) => Some(e.into_mut().as_str()),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(to.to_string());
                None
            }
        }
    }

    /// `id` with every room id and class in it replaced.
    pub(crate) fn rewrite(&self, id: &str) -> String {
        let parts: Vec<&str> = id.split('_').collect();
        let mut out: Vec<String> = Vec::with_capacity(parts.len());
        let mut i = 0;
        while i < parts.len() {
            let max = self.longest.min(parts.len() - i);
            let hit = (1..=max).rev().find_map(|len| {
                self.entries
                    .get(&parts[i..i + len].join("_"))
                    .map(|to| (len, to))
            });
            match hit {
                Some((len, to)) => {
                    out.push(to.clone());
                    i += len;
                }
                None => {
                    out.push(parts[i].to_string());
                    i += 1;
                }
            }
        }
        out.join("_")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_inside_ids_are_replaced_longest_first() {
        let mut t = IdTable::default();
        t.insert("kitchen", "hearth");
        t.insert("kitchen_cabinet", "larder");
        t.insert("coffee_table", "tea_table");
        t.insert("bedroom", "sleeping_chamber");
        assert_eq!(t.rewrite("kitchen_cabinet_3"), "larder_3");
        assert_eq!(
            t.rewrite("bedroom_coffee_table"),
            "sleeping_chamber_tea_table"
        );
        assert_eq!(t.rewrite("my_kitchen_2b"), "my_hearth_2b");
        assert_eq!(t.rewrite("coffee"), "coffee");
    }
}
