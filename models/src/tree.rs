//! Token trees: sequences that begin alike share their first positions, so a batch of
//! suffixes runs as one packed pass with no position computed twice and no padding.
//!
//! A position's hidden state depends only on the tokens before it, so two sequences that
//! agree on their first `k` tokens (after the same cached prefix) have equal states there.
//! A tree stores each distinct beginning once; attention lets every node see exactly its
//! ancestors and itself, and the rotary position of a node is its depth.

/// A forest of token nodes in insertion order; a parent always comes before its children.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TokenTree {
    tokens: Vec<u32>,
    parents: Vec<Option<usize>>,
    depths: Vec<usize>,
    /// The path of the last sequence added (its node per position).
    last: Vec<usize>,
    last_tokens: Vec<u32>,
}

impl TokenTree {
    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.tokens.len()
    }

    /// The node tokens.
    pub(crate) fn tokens(&self) -> &[u32] {
        &self.tokens
    }

    /// The depth of every node (0 for a root).
    pub(crate) fn depths(&self) -> &[usize] {
        &self.depths
    }

    /// How many nodes adding `seq` would create.
    ///
    /// Only the previously added sequence is searched for a shared beginning, so callers
    /// add sequences in sorted order, where the longest shared beginning with any earlier
    /// sequence is the one with its predecessor.
    pub(crate) fn cost(&self, seq: &[u32]) -> usize {
        seq.len() - common_len(&self.last_tokens, seq)
    }

    /// Adds `seq`, reusing the nodes of the previous sequence's shared beginning, and
    /// returns its node at every position.
    pub(crate) fn push(&mut self, seq: &[u32]) -> Vec<usize> {
        let shared = common_len(&self.last_tokens, seq);
        let mut path = self.last[..shared].to_vec();
        for (depth, &token) in seq.iter().enumerate().skip(shared) {
            self.tokens.push(token);
            self.parents.push(depth.checked_sub(1).map(|p| path[p]));
            self.depths.push(depth);
            path.push(self.tokens.len() - 1);
        }
        self.last = path.clone();
        self.last_tokens = seq.to_vec();
        path
    }

    /// Row-major `len × len` visibility: `[r * len + c]` is whether node `r` may attend to
    /// node `c` (itself or an ancestor).
    pub(crate) fn visibility(&self) -> Vec<bool> {
        let n = self.len();
        let mut vis = vec![false; n * n];
        for r in 0..n {
            // A parent's row is complete before its children's: copy it and add self.
            if let Some(p) = self.parents[r] {
                let (before, row) = vis.split_at_mut(r * n);
                row[..n].copy_from_slice(&before[p * n..(p + 1) * n]);
            }
            vis[r * n + r] = true;
        }
        vis
    }
}

fn common_len(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_beginnings_are_stored_once() {
        let mut tree = TokenTree::default();
        assert_eq!(tree.cost(&[1, 2, 3]), 3);
        assert_eq!(tree.push(&[1, 2, 3]), vec![0, 1, 2]);
        assert_eq!(tree.cost(&[1, 2, 4, 5]), 2);
        assert_eq!(tree.push(&[1, 2, 4, 5]), vec![0, 1, 3, 4]);
        assert_eq!(tree.push(&[7]), vec![5]);
        assert_eq!(tree.push(&[7]), vec![5]);
        assert_eq!(tree.tokens(), &[1, 2, 3, 4, 5, 7]);
        assert_eq!(tree.depths(), &[0, 1, 2, 2, 3, 0]);
    }

    #[test]
    fn nodes_see_exactly_their_ancestors_and_themselves() {
        let mut tree = TokenTree::default();
        tree.push(&[1, 2, 3]);
        tree.push(&[1, 4]);
        tree.push(&[5, 6]);
        // Nodes: 0:1, 1:2 (0), 2:3 (1), 3:4 (0), 4:5, 5:6 (4).
        let vis = tree.visibility();
        let row = |r: usize| -> Vec<usize> { (0..6).filter(|&c| vis[r * 6 + c]).collect() };
        assert_eq!(row(0), vec![0]);
        assert_eq!(row(2), vec![0, 1, 2]);
        assert_eq!(row(3), vec![0, 3]);
        assert_eq!(row(5), vec![4, 5]);
    }
}
