//! `convert`: decode every message of a file and write it again.

use crate::progress::{Progress, When};
use crate::{read, report, Outcome};
use arrow_tensor_ipc::{ConvertOptions, Message, SparseFormat};
use arrow_tensor_ipc::{ErrorKind, MessageWriter, ReadOptions, WriteOptions};
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Whether two paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(ma), Ok(mb)) = (fs::metadata(a), fs::metadata(b)) {
            return ma.dev() == mb.dev() && ma.ino() == mb.ino();
        }
    }
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(ca), Ok(cb)) => ca == cb,
        _ => false,
    }
}

/// Copies the messages of `input` to `output`, re-encoded with `write_options`.
pub fn run(
    input: &Path,
    output: &Path,
    read_options: ReadOptions,
    write_options: WriteOptions,
    layout: Option<(Option<SparseFormat>, ConvertOptions)>,
    progress: When,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let mut messages = match read::open(input, read_options) {
        Ok(m) => m,
        Err(e) => {
            report(e);
            return Ok(Outcome::Failed);
        }
    };
    if same_file(input, output) {
        report(format_args!(
            "{}: input and output are the same file",
            output.display()
        ));
        return Ok(Outcome::Failed);
    }
    let file = match File::create(output) {
        Ok(f) => f,
        Err(e) => {
            report(format_args!("{}: cannot create: {e}", output.display()));
            return Ok(Outcome::Failed);
        }
    };
    let mut writer = MessageWriter::new(BufWriter::with_capacity(1 << 16, file), write_options);
    let mut count = 0u64;
    let mut failure = None;
    let size = fs::metadata(input).map_or(0, |m| m.len());
    let mut bar = Progress::new(size, progress);
    loop {
        bar.update(messages.consumed(), count, "reading", false);
        let Some(item) = messages.next() else { break };
        match item {
            Ok(m) => {
                let limit = read_options.limits.max_dense_elements;
                if let Some(reason) = m
                    .message
                    .as_tensor()
                    .and_then(|t| read::aliased_expansion(t, limit))
                {
                    failure = Some(format!(
                        "{}: message at byte {}: cannot write it: {reason}",
                        input.display(),
                        m.offset
                    ));
                    break;
                }
                let message = match &layout {
                    None => Ok(m.message),
                    Some((format, options)) => {
                        bar.update(messages.consumed(), count, "converting", true);
                        relayout(m.message, *format, options, limit)
                    }
                };
                let message = match message {
                    Ok(message) => message,
                    Err(e) => {
                        failure = Some(format!(
                            "{}: message at byte {}: cannot convert it: {}",
                            input.display(),
                            m.offset,
                            e.kind()
                        ));
                        break;
                    }
                };
                bar.update(messages.consumed(), count, "writing", true);
                if let Err(e) = writer.write(&message) {
                    let hint = if matches!(
                        e.kind(),
                        ErrorKind::NotArrowCompatible(_) | ErrorKind::IndexTypeTooNarrow { .. }
                    ) {
                        " (--allow-non-arrow writes it anyway)"
                    } else {
                        ""
                    };
                    failure = Some(format!(
                        "{}: message at byte {}: cannot write it to {}: {}{hint}",
                        input.display(),
                        m.offset,
                        output.display(),
                        e.kind()
                    ));
                    break;
                }
                count += 1;
                bar.update(messages.consumed(), count, "written", true);
            }
            Err(e) => {
                failure = Some(format!(
                    "{}: message at byte {}: {}",
                    input.display(),
                    e.offset,
                    e.description()
                ));
                break;
            }
        }
    }
    let failure = match failure {
        Some(f) => {
            // Close the output before removing it.
            drop(writer);
            Some(f)
        }
        None => match writer
            .finish()
            .map_err(|e| e.to_string())
            .and_then(|w| w.into_inner().map_err(|e| e.into_error().to_string()))
        {
            Ok(_) => None,
            Err(e) => Some(format!("{}: cannot write: {e}", output.display())),
        },
    };
    let stage = if failure.is_some() { "failed" } else { "done" };
    bar.finish(messages.consumed(), count, stage);
    if let Some(f) = failure {
        report(f);
        if fs::metadata(output).is_ok_and(|m| m.is_file()) && fs::remove_file(output).is_ok() {
            report(format_args!("{}: partial output removed", output.display()));
        }
        return Ok(Outcome::Failed);
    }
    let plural = if count == 1 { "message" } else { "messages" };
    writeln!(out, "{}: {count} {plural} written", output.display())?;
    Ok(Outcome::Ok)
}

/// Converts a message to another layout (`None`: dense).
fn relayout(
    message: Message,
    format: Option<SparseFormat>,
    options: &ConvertOptions,
    max_dense: usize,
) -> arrow_tensor_ipc::Result<Message> {
    Ok(match (message, format) {
        (Message::Tensor(t), None) => Message::Tensor(t),
        (Message::SparseTensor(t), None) => Message::Tensor(
            arrow_tensor_ipc::convert::to_dense_with(&t, max_dense, options)?,
        ),
        (Message::Tensor(t), Some(f)) => Message::SparseTensor(t.to_sparse(f, options)?),
        (Message::SparseTensor(t), Some(f)) => Message::SparseTensor(t.to_format(f, options)?),
    })
}
