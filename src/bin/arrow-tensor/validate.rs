//! `validate`: read every tensor of every input, one summary line per input.

use crate::args::ReadArgs;
use crate::input::{self, Source};
use crate::read::FileMessages;
use crate::{report, Outcome};
use arrow_tensor_ipc::formats::detect::FileKind;
use arrow_tensor_ipc::{Message, ReadOptions, Validation};
use std::io::{self, Write};
use std::path::PathBuf;

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// The arguments of `validate`.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    #[command(flatten)]
    read: ReadArgs,
    /// Inputs (`-`: standard input).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Validates every input; `Failed` when any is unreadable or holds an invalid tensor.
pub fn run(args: &ValidateArgs, out: &mut dyn Write) -> io::Result<Outcome> {
    let (files, options) = (&args.files, args.read.options());
    let mut outcome = Outcome::Ok;
    for path in files {
        let name = path.display();
        let mut opened = match input::open(path) {
            Ok(i) => i,
            Err(e) => {
                writeln!(out, "{name}: unreadable")?;
                report(e);
                outcome = Outcome::Failed;
                continue;
            }
        };
        let name = &opened.name.clone();
        let source = Source::open(
            &mut opened,
            options,
            args.read.message_options(),
            &args.read.file_options(),
        );
        let ok = match source {
            Err(e) => {
                writeln!(out, "{name}: unreadable")?;
                report(e);
                false
            }
            Ok(Source::Messages(messages)) => messages_of(name, messages, out)?,
            Ok(source) => tensors_of(name, opened.kind, source, options, out)?,
        };
        if !ok {
            outcome = Outcome::Failed;
        }
    }
    Ok(outcome)
}

/// The summary of a stream of tensor messages (what follows the last message included).
fn messages_of(name: &str, mut messages: FileMessages, out: &mut dyn Write) -> io::Result<bool> {
    let failure = messages.by_ref().find_map(Result::err);
    let count = messages.decoded();
    let noun = |n| plural(n, "message", "messages");
    if let Some(e) = failure {
        writeln!(
            out,
            "{name}: INVALID (message at byte {} after {count} valid {})",
            e.offset,
            noun(count)
        )?;
        report(format_args!(
            "{name}: message at byte {}: {}",
            e.offset,
            e.description()
        ));
        return Ok(false);
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
                noun(count)
            )?;
            report(format_args!("{name}: cannot read: {e}"));
            return Ok(false);
        }
    }
    writeln!(out, "{name}: {count} {} OK{notes}", noun(count))?;
    Ok(true)
}

/// The summary of another kind of input: every tensor read, and in strict mode every
/// sparse index checked against the rules of its layout.
fn tensors_of(
    name: &str,
    kind: FileKind,
    mut source: Source,
    options: ReadOptions,
    out: &mut dyn Write,
) -> io::Result<bool> {
    let noun = |n| plural(n, "tensor", "tensors");
    let mut count = 0u64;
    while let Some(item) = source.next(&options.limits, &|_| {}) {
        let checked = item.and_then(|entry| match (entry.message(), options.validation) {
            (Message::SparseTensor(s), Validation::Strict) => {
                s.check_contents().map_err(|e| input::EntryError {
                    offset: None,
                    at: entry.at(),
                    description: e.to_string(),
                })
            }
            _ => Ok(()),
        });
        if let Err(e) = checked {
            let at = if e.at.is_empty() {
                String::new()
            } else {
                format!("{} ", e.at)
            };
            writeln!(
                out,
                "{name}: INVALID ({at}after {count} valid {})",
                noun(count)
            )?;
            report(e.full(name));
            return Ok(false);
        }
        count += 1;
    }
    writeln!(out, "{name}: {count} {} OK ({kind})", noun(count))?;
    Ok(true)
}
