//! `inspect`: one human-readable line per tensor of each input (per message of a stream
//! of tensor messages, per tensor of a record batch, one for a file of one tensor).

use crate::args::ReadArgs;
use crate::open::{self, Failure};
use crate::{json, report, Outcome};
use arrow_tensor_ipc::formats::detect::FileKind;
use arrow_tensor_ipc::formats::mtx;
use arrow_tensor_ipc::input::{Input, InputTensor};
use arrow_tensor_ipc::{
    DecodedMessage, Error, ErrorKind, Framing, IndexArray, Message, SparseIndex, SparseTensor,
    Tensor, Validation,
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
    let files = &args.files;
    let options = args.read.input_options();
    let mut outcome = Outcome::Ok;
    for path in files {
        if files.len() > 1 {
            writeln!(out, "{}:", path.display())?;
        }
        let input = match open::open(path, &options) {
            Ok(i) => i,
            Err(e) => {
                report(e);
                outcome = Outcome::Failed;
                continue;
            }
        };
        let name = input.name().to_string();
        if input.kind().is_format_file() {
            match describe(input, options.read_options.validation) {
                Ok(l) => writeln!(out, "{l}")?,
                Err(e) => {
                    report(format_args!("{name}: {e}"));
                    outcome = Outcome::Failed;
                }
            }
            continue;
        }
        let tensors = match input.tensors() {
            Ok(t) => t,
            Err(e) => {
                report(format_args!("{name}: {e}"));
                outcome = Outcome::Failed;
                continue;
            }
        };
        for item in tensors {
            match item {
                Ok(InputTensor::Decoded(m)) => writeln!(out, "{}", line(&m))?,
                Ok(t) => writeln!(out, "{}: {}", t.origin(), tensor_line(t.message()))?,
                Err(e) => {
                    let f = Failure::of(&e);
                    match f.offset {
                        Some(offset) => writeln!(out, "@{offset}: error: {}", f.description)?,
                        None => writeln!(out, "{}: error: {}", f.at, f.description)?,
                    }
                    report(f.full(&name));
                    outcome = Outcome::Failed;
                }
            }
        }
    }
    Ok(outcome)
}

/// The line of a file of a format: what the file declares (Matrix Market's header) and
/// the tensor it holds; for an `.npz` bundle of named arrays, a line with the member count
/// and one line per member (name, then the tensor). Errors do not name the input.
fn describe(input: Input<'_>, validation: Validation) -> Result<String, String> {
    let kind = input.kind();
    let declared = match (kind, input.path()) {
        (FileKind::MatrixMarket, Some(path)) => {
            let mapped = open::map(path).map_err(|e| format!("cannot map: {e}"))?;
            let h = mtx::read_header(
                &mapped,
                &mtx::MtxReadOptions::default().with_validation(validation),
            )
            .map_err(|e| e.to_string())?;
            format!(
                " ({:?} {:?} {:?}, {} x {}, {} entries stored)",
                h.format, h.field, h.symmetry, h.rows, h.cols, h.entries
            )
            .to_lowercase()
        }
        _ => String::new(),
    };
    let messages = input
        .tensors()
        .and_then(|tensors| {
            tensors
                .map(|t| t.map(InputTensor::into_message))
                .collect::<arrow_tensor_ipc::Result<Vec<Message>>>()
        })
        .map_err(|e| unplaced(&e))?;
    let format = kind.name();
    let bundle = kind == FileKind::Npz && messages.iter().all(|m| m.as_tensor().is_some());
    if !bundle {
        let lines: Vec<String> = messages.iter().map(tensor_line).collect();
        return Ok(format!("{format} file{declared}: {}", lines.join("\n")));
    }
    let plural = if messages.len() == 1 {
        "array"
    } else {
        "arrays"
    };
    let mut out = format!(
        "{format} file (bundle of {} named {plural})",
        messages.len()
    );
    for m in &messages {
        let mut member = String::new();
        json::push_str(&mut member, m.name().unwrap_or_default());
        let _ = write!(out, "\nmember {member}: {}", tensor_line(m));
    }
    Ok(out)
}

/// The reader's error of a tensor of a file, without the place (the file is the input).
fn unplaced(e: &Error) -> String {
    match e.kind() {
        ErrorKind::InputTensorFailed { source, .. } => source.to_string(),
        _ => e.to_string(),
    }
}

/// The largest power of two, up to 64, that divides `offset` (64 for offset 0).
fn alignment(offset: u64) -> u64 {
    if offset == 0 {
        64
    } else {
        (1u64 << offset.trailing_zeros().min(6)).min(64)
    }
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
        align = alignment(body_at),
    )
}
