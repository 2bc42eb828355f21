//! The `bip` command line.

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("bip: {e:#}");
            ExitCode::from(2)
        }
    }
}
