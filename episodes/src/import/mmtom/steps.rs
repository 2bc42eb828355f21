//! What a narrative says the agent did: operations on places, in order, and the rules
//! for combining them ("closing each one", "does the same", "followed by").

/// What one step does to each of its targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// Walk to it.
    Walk,
    /// Open it.
    Open,
    /// Close it.
    Close,
    /// Be about to open it: walk to it only.
    IntendOpen,
    /// Take it.
    Grab,
}

impl Op {
    /// Whether this operation acts on the place (not only goes there).
    fn acts(self) -> bool {
        matches!(self, Op::Open | Op::Close | Op::Grab)
    }
}

/// A place the narrative names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// A room (index into the apartment's rooms).
    Room(usize),
    /// A piece of furniture.
    Furniture(usize),
    /// An object: the furniture it is at.
    Object(usize),
}

/// Some operations done to some places: each target, in order, gets every operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    /// What is done.
    pub(crate) ops: Vec<Op>,
    /// To which places, in order.
    pub(crate) targets: Vec<Target>,
    /// Index of the sentence that says so.
    pub(crate) sentence: usize,
    /// Operations assumed ("followed by X" repeats the last ones) until the clause says
    /// what is done to X.
    tentative: bool,
}

/// The steps of a narrative so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Steps(Vec<Step>);

impl Steps {
    /// Adds a step; if the last step is tentative and about the same places, the new
    /// operations replace its assumed ones instead.
    pub(crate) fn push(&mut self, ops: Vec<Op>, targets: Vec<Target>, sentence: usize) {
        if let Some(last) = self
            .0
            .last_mut()
            .filter(|s| s.tentative && s.targets == targets)
        {
            // "followed by the stove, which she opens and closes": the clause says what.
            last.ops = ops;
            last.tentative = false;
            return;
        }
        self.0.push(Step {
            ops,
            targets,
            sentence,
            tentative: false,
        });
    }

    /// Spreads operations over the places of the last step when it is about `targets`
    /// ("opens the sixth and seventh cabinets, closing each one"): new operations join
    /// it, ones it already has are a restatement. Returns false when the last step is
    /// about other places.
    pub(crate) fn spread(&mut self, ops: &[Op], targets: &[Target]) -> bool {
        let Some(last) = self.0.last_mut().filter(|s| s.targets == targets) else {
            return false;
        };
        for op in ops {
            if !last.ops.contains(op) {
                last.ops.push(*op);
            }
        }
        true
    }

    /// The operations "the same" repeats: those done to the places of the last step that
    /// opened, closed or took something, over the steps that acted on the same places; a
    /// walk when nothing was acted on yet.
    pub(crate) fn template(&self) -> Vec<Op> {
        let Some(last) = self
            .0
            .iter()
            .rposition(|s| s.ops.iter().any(|op| op.acts()))
        else {
            return vec![Op::Walk];
        };
        let targets = &self.0[last].targets;
        let first = self.0[..=last]
            .iter()
            .rposition(|s| s.targets != *targets)
            .map_or(0, |k| k + 1);
        let mut ops = Vec::new();
        for op in self.0[first..=last].iter().flat_map(|s| s.ops.iter()) {
            if op.acts() && !ops.contains(op) {
                ops.push(*op);
            }
        }
        ops
    }

    /// Marks the last step's operations as assumed.
    pub(crate) fn mark_tentative(&mut self) {
        if let Some(last) = self.0.last_mut() {
            last.tentative = true;
        }
    }

    /// Makes every assumed operation final (a sentence ended without saying otherwise).
    pub(crate) fn settle(&mut self) {
        for step in &mut self.0 {
            step.tentative = false;
        }
    }

    /// How many steps there are.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The last step.
    pub(crate) fn last(&self) -> Option<&Step> {
        self.0.last()
    }

    /// The steps, in order.
    pub(crate) fn into_vec(self) -> Vec<Step> {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Target = Target::Furniture(0);
    const B: Target = Target::Furniture(1);

    #[test]
    fn the_same_is_what_was_done_to_the_last_place_acted_on() {
        let mut steps = Steps::default();
        assert_eq!(steps.template(), [Op::Walk]);
        steps.push(vec![Op::Walk], vec![A], 0);
        steps.push(vec![Op::Open], vec![A], 0);
        steps.push(vec![Op::Close], vec![A], 0);
        steps.push(vec![Op::Walk], vec![B], 1);
        assert_eq!(steps.template(), [Op::Open, Op::Close]);
    }

    #[test]
    fn spreading_joins_new_operations_and_ignores_restatements() {
        let mut steps = Steps::default();
        steps.push(vec![Op::Open], vec![A, B], 0);
        assert!(steps.spread(&[Op::Open, Op::Close], &[A, B]));
        assert_eq!(
            steps.last().map(|s| s.ops.clone()),
            Some(vec![Op::Open, Op::Close])
        );
        assert!(!steps.spread(&[Op::Close], &[B]));
    }

    #[test]
    fn a_tentative_step_gives_way_to_what_the_clause_says() {
        let mut steps = Steps::default();
        steps.push(vec![Op::Open, Op::Close], vec![A], 0);
        steps.mark_tentative();
        steps.push(vec![Op::Close], vec![A], 0);
        assert_eq!(steps.len(), 1);
        assert_eq!(steps.last().map(|s| s.ops.clone()), Some(vec![Op::Close]));
        steps.settle();
        steps.push(vec![Op::Open], vec![A], 1);
        assert_eq!(steps.len(), 2);
    }
}
