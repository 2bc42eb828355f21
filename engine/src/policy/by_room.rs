//! The planner's sums and minimums over furniture, taken room by room.
//!
//! A walk from a place to a piece of furniture costs the same for every piece of one room
//! but the place itself ([`Layout::to_furniture_in`]). So the expected distance from each
//! piece to the object, and the best place to search first from wherever the agent
//! stands, need one pass over the furniture and one over the rooms, not one over all
//! pairs of pieces: a room of a thousand containers costs a thousand steps, not a million.

use bip_episodes::{FurnitureId, Layout, Place, RoomId, APPROACH_DISTANCE};

/// `Σ_m weights[m] · d(ℓ, m)` for every piece ℓ (pieces of weight 0 left out).
pub(super) fn expected_distances(layout: &Layout, weights: &[f64]) -> Vec<f64> {
    let mut per_room = vec![0.0; layout.rooms()];
    for (m, &w) in weights.iter().enumerate() {
        if w > 0.0 {
            per_room[layout.room_of(FurnitureId::new(m)).index()] += w;
        }
    }
    (0..weights.len())
        .map(|l| {
            let at = Place::Furniture(FurnitureId::new(l));
            let all: f64 = per_room
                .iter()
                .enumerate()
                .filter(|&(_, &w)| w > 0.0)
                .map(|(b, &w)| w * layout.to_furniture_in(at, RoomId::new(b)))
                .sum();
            // d(ℓ, ℓ) is 0, not the approach counted for ℓ's own room above.
            if weights[l] > 0.0 {
                all - weights[l] * APPROACH_DISTANCE
            } else {
                all
            }
        })
        .collect()
}

/// A candidate place and the part of its score that does not depend on where the agent
/// stands.
type Candidate = Option<(f64, FurnitureId)>;

/// Of the places of weight > 0, the two with the least onward cost per room and per
/// opening cost (there are two: nothing to open, or a container to open), so that the
/// least `d(at, ℓ) + open[ℓ] + onward[ℓ]` is found among a few per room, exactly as that
/// sum is computed. The default indexes nothing, for a search that never asks.
#[derive(Default)]
pub(super) struct Nearest {
    /// `best[room][closed]`: the two least `(onward, place)`, least first.
    best: Vec<[[Candidate; 2]; 2]>,
}

impl Nearest {
    /// Indexes the places of weight > 0 by room and opening cost.
    pub fn new(layout: &Layout, weights: &[f64], open_cost: &[f64], onward: &[f64]) -> Self {
        let mut best = vec![[[None; 2]; 2]; layout.rooms()];
        for (l, &w) in weights.iter().enumerate() {
            if w <= 0.0 {
                continue;
            }
            let place = FurnitureId::new(l);
            let room = layout.room_of(place).index();
            let slot = &mut best[room][usize::from(open_cost[l] != 0.0)];
            let candidate = (onward[l], place);
            match slot {
                [None, _] => slot[0] = Some(candidate),
                [Some(first), _] if candidate.0 < first.0 => {
                    slot[1] = slot[0];
                    slot[0] = Some(candidate);
                }
                [_, None] => slot[1] = Some(candidate),
                [_, Some(second)] if candidate.0 < second.0 => slot[1] = Some(candidate),
                _ => {}
            }
        }
        Self { best }
    }

    /// The least `d(at, ℓ) + open_cost[ℓ] + onward[ℓ]` over the places of weight > 0 (∞
    /// when there are none); the arguments are those the index was built from.
    pub fn least(
        &self,
        layout: &Layout,
        at: Place,
        weights: &[f64],
        open_cost: &[f64],
        onward: &[f64],
    ) -> f64 {
        // Searching where the agent stands costs no walk at all.
        let mut least = match at {
            Place::Furniture(f) if weights[f.index()] > 0.0 => {
                0.0 + open_cost[f.index()] + onward[f.index()]
            }
            _ => f64::INFINITY,
        };
        for (room, classes) in self.best.iter().enumerate() {
            let d = layout.to_furniture_in(at, RoomId::new(room));
            // Every other place of a room and class is `d` away: the one of least onward
            // cost is the least of them.
            let others = classes
                .iter()
                .filter_map(|class| class.iter().flatten().find(|c| Place::Furniture(c.1) != at));
            for &(onward_l, l) in others {
                least = least.min(d + open_cost[l.index()] + onward_l);
            }
        }
        least
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three rooms in a row, doors of length 1; `per_room` pieces in each.
    fn layout(per_room: &[usize]) -> Layout {
        let rooms: Vec<RoomId> = per_room
            .iter()
            .enumerate()
            .flat_map(|(r, &n)| std::iter::repeat_n(RoomId::new(r), n))
            .collect();
        let doors: Vec<(RoomId, RoomId, f64)> = (1..per_room.len())
            .map(|r| (RoomId::new(r - 1), RoomId::new(r), 1.0))
            .collect();
        Layout::new(per_room.len(), &rooms, &doors).expect("connected")
    }

    fn places(n: usize) -> impl Iterator<Item = FurnitureId> {
        (0..n).map(FurnitureId::new)
    }

    #[test]
    fn expected_distances_equal_the_sum_over_every_pair() {
        let layout = layout(&[3, 1, 4]);
        let weights = [0.1, 0.0, 0.2, 0.15, 0.05, 0.3, 0.0, 0.2];
        let fast = expected_distances(&layout, &weights);
        for l in places(8) {
            let slow: f64 = places(8)
                .map(|m| {
                    weights[m.index()] * layout.distance(Place::Furniture(l), Place::Furniture(m))
                })
                .sum();
            assert!(
                (fast[l.index()] - slow).abs() < 1e-12,
                "{l:?}: {} vs {slow}",
                fast[l.index()]
            );
        }
    }

    /// A few pseudo-random numbers in [0, 1), the same every run.
    fn draws(seed: u64, n: usize) -> Vec<f64> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect()
    }

    #[test]
    fn the_least_is_the_minimum_over_every_place_bit_for_bit() {
        let layout = layout(&[3, 2, 4]);
        let ats: Vec<Place> = places(9)
            .map(Place::Furniture)
            .chain((0..3).map(|r| Place::Room(RoomId::new(r))))
            .collect();
        for seed in 0..200 {
            let d = draws(seed, 27);
            let weights: Vec<f64> = d[..9]
                .iter()
                .map(|&x| if x < 0.3 { 0.0 } else { x })
                .collect();
            let open_cost: Vec<f64> = d[9..18]
                .iter()
                .map(|&x| if x < 0.5 { 0.0 } else { 0.5 })
                .collect();
            let onward: Vec<f64> = d[18..].iter().map(|&x| 4.0 * x).collect();
            let nearest = Nearest::new(&layout, &weights, &open_cost, &onward);
            for &at in &ats {
                let slow = places(9)
                    .filter(|l| weights[l.index()] > 0.0)
                    .map(|l| {
                        let i = l.index();
                        layout.distance(at, Place::Furniture(l)) + open_cost[i] + onward[i]
                    })
                    .fold(f64::INFINITY, f64::min);
                let fast = nearest.least(&layout, at, &weights, &open_cost, &onward);
                assert_eq!(fast.to_bits(), slow.to_bits(), "seed {seed}, {at:?}");
            }
        }
    }
}
