//! Reads one MMToM-QA question text (from a file, or standard input) and prints the
//! episode read, with every assumption the reader made.
//!
//! ```sh
//! cargo run -p bip-episodes --example read_mmtom -- question.txt
//! ```

use std::io::Read;

use bip_episodes::import::mmtom::read_text_noted;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut text = String::new();
    match std::env::args().nth(1) {
        Some(path) => text = std::fs::read_to_string(path)?,
        None => {
            std::io::stdin().read_to_string(&mut text)?;
        }
    }
    let reading = read_text_noted(&text, "question", None, None)?;
    println!("{}", serde_json::to_string_pretty(&reading.file)?);
    for note in &reading.notes {
        println!(
            "note ({}): {:?}: {}",
            note.part, note.sentence, note.reading
        );
    }
    Ok(())
}
