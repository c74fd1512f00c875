//! `inspect`: one human-readable line per tensor of each input (per message of a stream
//! of tensor messages, per tensor of a record batch, one for a file of one tensor).

use crate::args::ReadArgs;
use crate::input::{self, Entry, Source};
use crate::{json, read, report, Outcome};
use arrow_tensor_ipc::{
    DecodedMessage, Framing, IndexArray, Message, SparseIndex, SparseTensor, Tensor,
};
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

/// The arguments of `inspect`.
#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    #[command(flatten)]
    read: ReadArgs,
    /// Inputs (`-`: standard input).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Prints one line per tensor of every input (preceded by the input's name when there are
/// several).
pub fn run(args: &InspectArgs, out: &mut dyn Write) -> io::Result<Outcome> {
    let (files, options) = (&args.files, args.read.options());
    let mut outcome = Outcome::Ok;
    for path in files {
        if files.len() > 1 {
            writeln!(out, "{}:", path.display())?;
        }
        let mut opened = match input::open(path) {
            Ok(i) => i,
            Err(e) => {
                report(e);
                outcome = Outcome::Failed;
                continue;
            }
        };
        if let (Some(format), Some(file)) = (opened.file_format(), opened.path()) {
            match crate::files::describe(
                format,
                file,
                &opened.name,
                &options.limits,
                options.validation,
                tensor_line,
            ) {
                Ok(l) => writeln!(out, "{l}")?,
                Err(e) => {
                    report(e);
                    outcome = Outcome::Failed;
                }
            }
            continue;
        }
        let mut source = match Source::open(
            &mut opened,
            options,
            args.read.message_options(),
            &args.read.file_options(),
        ) {
            Ok(s) => s,
            Err(e) => {
                report(e);
                outcome = Outcome::Failed;
                continue;
            }
        };
        while let Some(item) = source.next(&options.limits, &|_| {}) {
            match item {
                Ok(Entry::Decoded(m)) => writeln!(out, "{}", line(&m))?,
                Ok(Entry::Tensor { at, message }) => {
                    writeln!(out, "{at}: {}", tensor_line(&message))?
                }
                Err(e) => {
                    match e.offset {
                        Some(offset) => writeln!(out, "@{offset}: error: {}", e.description)?,
                        None => writeln!(out, "{}: error: {}", e.at, e.description)?,
                    }
                    report(e.full(&opened.name));
                    outcome = Outcome::Failed;
                }
            }
        }
    }
    Ok(outcome)
}

/// `[2, 3]`
fn list<T: std::fmt::Display>(items: &[T]) -> String {
    let mut s = String::from("[");
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{v}");
    }
    s.push(']');
    s
}

/// `names -` when no dimension is named, else the names as JSON strings.
fn names(names: &[String]) -> String {
    if names.iter().all(String::is_empty) {
        return "-".into();
    }
    let quoted: Vec<String> = names
        .iter()
        .map(|n| {
            let mut s = String::new();
            json::push_str(&mut s, n);
            s
        })
        .collect();
    list(&quoted)
}

fn tensor_layout(t: &Tensor) -> String {
    if t.is_row_major() {
        "row-major".into()
    } else if t.is_column_major() {
        "column-major".into()
    } else {
        format!("strided {}", list(t.strides()))
    }
}

fn index_type(arrays: &[IndexArray]) -> &'static str {
    arrays.first().map_or("-", |a| a.index_type().name())
}

fn sparse_layout(t: &SparseTensor) -> String {
    let format = t.format().name();
    let nnz = t.nnz();
    match t.index() {
        SparseIndex::Coo(c) => format!(
            "{format} nnz {nnz} (index {}, {})",
            c.indices().index_type(),
            if c.is_canonical() {
                "canonical"
            } else {
                "not canonical"
            }
        ),
        SparseIndex::Csx(c) => format!(
            "{format} nnz {nnz} (indptr {}, indices {})",
            c.indptr().index_type(),
            c.indices().index_type()
        ),
        SparseIndex::Csf(c) => format!(
            "{format} nnz {nnz} (indptr {}, indices {}, axis order {})",
            index_type(c.indptr()),
            index_type(c.indices()),
            list(c.axis_order())
        ),
    }
}

/// A tensor's kind, value type, shape, names and layout, as in a message's line.
fn tensor_line(message: &Message) -> String {
    let (kind, value_type, shape, dim_names, layout) = parts(message);
    format!(
        "{kind} {value_type} shape {} names {} {layout}",
        list(shape),
        names(dim_names)
    )
}

/// What [`tensor_line`] and [`line()`] print of a tensor.
fn parts(
    message: &Message,
) -> (
    &'static str,
    arrow_tensor_ipc::ValueType,
    &[usize],
    &[String],
    String,
) {
    match message {
        Message::Tensor(t) => (
            "tensor",
            t.value_type(),
            t.shape(),
            t.dim_names(),
            tensor_layout(t),
        ),
        Message::SparseTensor(t) => (
            "sparse_tensor",
            t.value_type(),
            t.shape(),
            t.dim_names(),
            sparse_layout(t),
        ),
    }
}

/// One message as one line.
pub fn line(m: &DecodedMessage) -> String {
    let (kind, value_type, shape, dim_names, layout) = parts(&m.message);
    let body_at = m.offset.saturating_add(m.body_offset as u64);
    let framing = match m.framing {
        Framing::Continuation => "",
        Framing::Legacy => ", legacy framing",
    };
    let custom = match m.message.custom_metadata() {
        None => String::new(),
        Some(md) => {
            let pairs: Vec<String> = md
                .iter()
                .map(|(k, v)| {
                    let mut s = String::new();
                    json::push_str(&mut s, k);
                    s.push_str(": ");
                    json::push_str(&mut s, v);
                    s
                })
                .collect();
            format!(", custom_metadata {{{}}}", pairs.join(", "))
        }
    };
    format!(
        "@{offset}: {kind} {value_type} shape {shape} names {names} {layout}; \
         metadata {meta} B ({version}{framing}), body {body} B, body@{body_at} \
         ({align}-aligned){custom}",
        offset = m.offset,
        shape = list(shape),
        names = names(dim_names),
        meta = m.metadata_length,
        version = m.version.name(),
        body = m.body_length,
        align = read::alignment(body_at),
    )
}
