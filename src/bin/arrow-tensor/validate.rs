//! `validate`: decode every message of every file, one summary line per file.

use crate::{read, report, Outcome};
use arrow_tensor_ipc::ReadOptions;
use std::io::{self, Write};
use std::path::PathBuf;

/// Validates every file; `Failed` when any file is unreadable or holds an invalid message.
pub fn run(files: &[PathBuf], options: ReadOptions, out: &mut dyn Write) -> io::Result<Outcome> {
    let mut outcome = Outcome::Ok;
    for path in files {
        let name = path.display();
        let mut messages = match read::open(path, options) {
            Ok(m) => m,
            Err(e) => {
                writeln!(out, "{name}: unreadable")?;
                report(e);
                outcome = Outcome::Failed;
                continue;
            }
        };
        let failure = messages.by_ref().find_map(Result::err);
        let count = messages.decoded();
        let plural = |n: u64| if n == 1 { "message" } else { "messages" };
        if let Some(e) = failure {
            writeln!(
                out,
                "{name}: INVALID (message at byte {} after {count} valid {})",
                e.offset,
                plural(count)
            )?;
            report(format_args!(
                "{name}: message at byte {}: {}",
                e.offset,
                e.description()
            ));
            outcome = Outcome::Failed;
            continue;
        }
        let mut notes = String::new();
        match messages.ending() {
            Ok(ending) => {
                if ending.eos_len == 0 {
                    notes.push_str(" (no end-of-stream marker)");
                }
                if ending.trailing > 0 {
                    notes.push_str(&format!(
                        " ({} bytes after the end-of-stream marker ignored)",
                        ending.trailing
                    ));
                }
            }
            Err(e) => {
                writeln!(
                    out,
                    "{name}: unreadable after {count} valid {}",
                    plural(count)
                )?;
                report(format_args!("{name}: cannot read: {e}"));
                outcome = Outcome::Failed;
                continue;
            }
        }
        writeln!(out, "{name}: {count} {} OK{notes}", plural(count))?;
    }
    Ok(outcome)
}
