//! `validate`: read every tensor of every input, one summary line per input.

use crate::args::ReadArgs;
use crate::open::{self, Failure};
use crate::{report, Outcome};
use arrow_tensor_ipc::formats::detect::FileKind;
use arrow_tensor_ipc::input::InputTensors;
use arrow_tensor_ipc::{Message, Validation};
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
    let files = &args.files;
    let options = args.read.input_options();
    let mut outcome = Outcome::Ok;
    for path in files {
        let input = match open::open(path, &options) {
            Ok(i) => i,
            Err(e) => {
                writeln!(out, "{}: unreadable", path.display())?;
                report(e);
                outcome = Outcome::Failed;
                continue;
            }
        };
        let (name, kind) = (input.name().to_string(), input.kind());
        let ok = match input.tensors() {
            Err(e) => {
                writeln!(out, "{name}: unreadable")?;
                report(format_args!("{name}: {e}"));
                false
            }
            Ok(tensors) if kind == FileKind::TensorMessages => messages_of(&name, tensors, out)?,
            Ok(tensors) => tensors_of(&name, kind, tensors, options.read_options.validation, out)?,
        };
        if !ok {
            outcome = Outcome::Failed;
        }
    }
    Ok(outcome)
}

/// The summary of a stream of tensor messages (what follows the last message included).
fn messages_of(
    name: &str,
    mut messages: InputTensors<'_>,
    out: &mut dyn Write,
) -> io::Result<bool> {
    let mut count = 0u64;
    let failure = messages.by_ref().find_map(|m| match m {
        Ok(_) => {
            count += 1;
            None
        }
        Err(e) => Some(e),
    });
    let noun = |n| plural(n, "message", "messages");
    if let Some(e) = failure {
        let f = Failure::of(&e);
        writeln!(
            out,
            "{name}: INVALID ({} after {count} valid {})",
            f.at,
            noun(count)
        )?;
        report(f.full(name));
        return Ok(false);
    }
    let mut notes = String::new();
    match messages.ending() {
        Ok(Some(ending)) => {
            if ending.end_marker == 0 {
                notes.push_str(" (no end-of-stream marker)");
            }
            if ending.trailing > 0 {
                notes.push_str(&format!(
                    " ({} bytes after the end-of-stream marker ignored)",
                    ending.trailing
                ));
            }
        }
        Ok(None) => {}
        Err(e) => {
            writeln!(
                out,
                "{name}: unreadable after {count} valid {}",
                noun(count)
            )?;
            report(format_args!("{name}: {e}"));
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
    tensors: InputTensors<'_>,
    validation: Validation,
    out: &mut dyn Write,
) -> io::Result<bool> {
    let noun = |n| plural(n, "tensor", "tensors");
    let mut count = 0u64;
    for item in tensors {
        let checked = match item {
            Err(e) => Err(Failure::of(&e)),
            Ok(tensor) => match (tensor.message(), validation) {
                (Message::SparseTensor(s), Validation::Strict) => {
                    s.check_contents().map_err(|e| Failure {
                        offset: None,
                        at: tensor.origin().to_string(),
                        description: e.to_string(),
                    })
                }
                _ => Ok(()),
            },
        };
        if let Err(f) = checked {
            let at = if f.at.is_empty() {
                String::new()
            } else {
                format!("{} ", f.at)
            };
            writeln!(
                out,
                "{name}: INVALID ({at}after {count} valid {})",
                noun(count)
            )?;
            report(f.full(name));
            return Ok(false);
        }
        count += 1;
    }
    writeln!(out, "{name}: {count} {} OK ({kind})", noun(count))?;
    Ok(true)
}
