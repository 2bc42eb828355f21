//! What `bip train` shows while it runs (a one-line progress display on a terminal) and
//! when it ends.

use std::io::{IsTerminal, Write};

use bip::models::lora::ADAPTER_WEIGHTS;
use bip::models::train::{RunProgress, RunSummary, TRAINING_LOG};
use bip::models::{TrainEvent, TrainRun};

/// The closing lines on standard error.
pub(super) fn report(run: &TrainRun, summary: &RunSummary) {
    let (outcome, seconds) = (&summary.outcome, summary.seconds);
    match (outcome.base_validation_loss, outcome.best_validation_loss) {
        (Some(base), Some(best)) => note!(
            "bip: {} steps in {seconds:.0}s; validation loss {base:.4} (base) -> {best:.4} (epoch {})",
            outcome.steps, outcome.best_epoch
        ),
        _ => note!("bip: {} steps in {seconds:.0}s", outcome.steps),
    }
    note!(
        "bip: wrote the adapter ({ADAPTER_WEIGHTS}) and {TRAINING_LOG} to {}",
        run.out.display()
    );
}

/// A one-line progress display with the loss, on standard error, only on a terminal.
pub(super) struct ProgressLine {
    visible: bool,
    drawn: bool,
}

impl ProgressLine {
    pub(super) fn new() -> Self {
        Self {
            visible: std::io::stderr().is_terminal(),
            drawn: false,
        }
    }

    pub(super) fn show(&mut self, progress: RunProgress<'_>) {
        match progress {
            RunProgress::Started {
                config,
                train_tokens,
            } => note!(
                "bip: training a rank-{} LoRA adapter on {} on {} pairs ({train_tokens} tokens), validating on {}",
                config.rank, config.base, config.train_pairs, config.validation_pairs
            ),
            RunProgress::Event(event) if self.visible => self.draw(event),
            _ => {}
        }
    }

    fn draw(&mut self, event: &TrainEvent) {
        let mut err = std::io::stderr().lock();
        match event {
            TrainEvent::Step {
                epoch,
                step,
                total_steps,
                loss,
                learning_rate,
                seconds,
                ..
            } => {
                let eta = seconds / *step as f64 * (total_steps - step) as f64;
                let _ = write!(
                    err,
                    "\rtrain epoch {epoch} step {step}/{total_steps} loss {loss:.4} lr {learning_rate:.2e} ({seconds:.0}s, ETA {eta:.0}s)  "
                );
                self.drawn = true;
            }
            TrainEvent::Epoch {
                epoch,
                validation_loss: Some(v),
                best,
                ..
            } => {
                let mark = if *best { " (best)" } else { "" };
                let _ = writeln!(
                    err,
                    "\repoch {epoch}: validation loss {v:.4}{mark}{:40}",
                    ""
                );
                self.drawn = false;
            }
            _ => {}
        }
    }

    pub(super) fn finish(&mut self) {
        if self.visible && self.drawn {
            let _ = writeln!(std::io::stderr());
        }
    }
}
