//! The ways of spreading things over several pieces when the text does not say which
//! holds what ("two books lie on the coffee tables").

/// Every way of putting things on `pieces`: `classes[i]` is the class of thing `i`. When
/// there are at least as many things as pieces, every piece gets at least one (the plural
/// says each holds some); otherwise no piece gets two. Ways that differ only in which of
/// two things of one class is where count once. Returns at most `limit` ways (a piece per
/// thing, in the order of `classes`) and whether some were left out.
pub(super) fn spreads(classes: &[&str], pieces: &[usize], limit: usize) -> (Vec<Vec<usize>>, bool) {
    let mut order: Vec<usize> = (0..classes.len()).collect();
    order.sort_by_key(|&i| classes[i]);
    let mut search = Search {
        classes,
        order: &order,
        n: pieces.len(),
        cover: classes.len() >= pieces.len(),
        limit,
        counts: vec![0; pieces.len()],
        chosen: vec![0; classes.len()],
        found: Vec::new(),
        truncated: false,
    };
    if !pieces.is_empty() {
        search.place(0);
    }
    let ways = search
        .found
        .into_iter()
        .map(|way| way.into_iter().map(|slot| pieces[slot]).collect())
        .collect();
    (ways, search.truncated)
}

struct Search<'a> {
    classes: &'a [&'a str],
    /// Things sorted by class, so that alike things sit next to each other.
    order: &'a [usize],
    n: usize,
    /// Whether every piece must get a thing (else: no piece gets two).
    cover: bool,
    limit: usize,
    counts: Vec<usize>,
    /// The slot (index into the pieces) of each thing.
    chosen: Vec<usize>,
    found: Vec<Vec<usize>>,
    truncated: bool,
}

impl Search<'_> {
    fn place(&mut self, k: usize) {
        if self.truncated {
            return;
        }
        if k == self.order.len() {
            if self.cover && self.counts.contains(&0) {
                return;
            }
            if self.found.len() == self.limit {
                self.truncated = true;
                return;
            }
            self.found.push(self.chosen.clone());
            return;
        }
        let thing = self.order[k];
        // Alike things take slots in order, so that swapping them is not a new way.
        let first = match k.checked_sub(1).map(|j| self.order[j]) {
            Some(prev) if self.classes[prev] == self.classes[thing] => self.chosen[prev],
            _ => 0,
        };
        let empty = self.counts.iter().filter(|&&c| c == 0).count();
        for slot in first..self.n {
            if !self.cover && self.counts[slot] > 0 {
                continue;
            }
            let left = self.order.len() - k - 1;
            let still_empty = empty - usize::from(self.counts[slot] == 0);
            if self.cover && left < still_empty {
                continue;
            }
            self.counts[slot] += 1;
            self.chosen[thing] = slot;
            self.place(k + 1);
            self.counts[slot] -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_many_things_as_pieces_puts_one_on_each() {
        let (ways, cut) = spreads(&["book", "book"], &[3, 4], 10);
        assert_eq!(ways, [vec![3, 4]]);
        assert!(!cut);
        let (ways, _) = spreads(&["book", "apple"], &[3, 4], 10);
        assert_eq!(ways.len(), 2);
    }

    #[test]
    fn more_things_than_pieces_leaves_no_piece_empty() {
        let (ways, _) = spreads(&["plate"; 3], &[0, 1], 10);
        assert_eq!(ways, [vec![0, 0, 1], vec![0, 1, 1]]);
        let (ways, _) = spreads(&["wine", "wine", "cupcake"], &[0, 1], 10);
        assert_eq!(ways.len(), 4);
    }

    #[test]
    fn fewer_things_than_pieces_puts_no_two_together() {
        let (ways, _) = spreads(&["glass", "glass"], &[0, 1, 2], 10);
        assert_eq!(ways, [vec![0, 1], vec![0, 2], vec![1, 2]]);
        let (ways, _) = spreads(&["book", "apple"], &[0, 1, 2], 10);
        assert_eq!(ways.len(), 6);
    }

    #[test]
    fn the_limit_is_reported() {
        let (ways, cut) = spreads(&["a", "b", "c", "d"], &[0, 1, 2, 3], 5);
        assert_eq!(ways.len(), 5);
        assert!(cut);
    }
}
