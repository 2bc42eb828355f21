//! The `bip` command line.

use std::process::ExitCode;

/// `eprintln!` that never panics. `eprintln!` panics when standard error cannot be
/// written (a closed pipe, a full disk); a diagnostic channel that fails has nowhere left
/// to report to, so the message is dropped and the exit status still tells the outcome.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

mod cli;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            note!("bip: {e:#}");
            ExitCode::from(2)
        }
    }
}
