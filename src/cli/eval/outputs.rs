//! The outputs of `bip eval`, checked before it reads or infers anything.

use std::path::PathBuf;

use bip::io::{OutputSet, Slot};

use crate::cli::eval::EvalArgs;

/// The outputs of one `bip eval` run, checked before any work.
pub(super) struct EvalOutputs {
    pub set: OutputSet,
    pub report: Slot,
    pub predictions: Option<Slot>,
    pub curve: Option<Slot>,
    pub plot: Option<Slot>,
}

impl EvalOutputs {
    /// The outputs the flags name: the report on standard output, and the files asked for.
    pub(super) fn check(args: &EvalArgs) -> anyhow::Result<Self> {
        let mut set = OutputSet::new();
        let report = set.add_stdout("the report")?;
        let mut slot =
            |flag, path: &Option<PathBuf>| path.as_ref().map(|p| set.add(flag, p)).transpose();
        let predictions = slot("--predictions", &args.predictions)?;
        let curve = slot("--risk-coverage", &args.risk_coverage)?;
        let plot = slot("--plot", &args.plot)?;
        Ok(Self {
            set,
            report,
            predictions,
            curve,
            plot,
        })
    }
}
