//! `convert`: decode every message of a file (tensor messages, or the tensor columns of an
//! Arrow IPC stream or file or a Parquet file) and write it again, as messages or as
//! record batches (an IPC stream or file, or a Parquet file).

mod file_writer;
mod sink;

use crate::args::ReadArgs;
use crate::open::{self, Failure};
use crate::progress::{Progress, When};
use crate::{dump, report, Outcome};
use arrow_tensor_ipc::formats::{self, detect::FileKind};
use arrow_tensor_ipc::input::{InputOptions, InputTensor};
use arrow_tensor_ipc::record_batch::{
    FixedShapeOptions, Layout, MessageOptions, Rows, TableFormat,
};
use arrow_tensor_ipc::{ConvertOptions, CsfAxisOrder, CsfLengths, IndexType, Limits, Message};
use arrow_tensor_ipc::{ErrorKind, SparseFormat, WriteOptions};
use sink::{Dest, Sink, Target};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// The arguments of `convert`.
#[derive(clap::Args, Debug)]
pub struct ConvertArgs {
    #[command(flatten)]
    read: ReadArgs,
    /// Also write messages that Arrow C++ cannot read (uint64 indices, index types too
    /// narrow for their lengths).
    #[arg(long)]
    allow_non_arrow: bool,
    /// How CSF buffer lengths are written.
    #[arg(long, value_enum, default_value_t = CsfLengthsArg::Elements)]
    csf_lengths: CsfLengthsArg,
    /// Convert every message to this layout (default: keep each message's layout).
    #[arg(long, value_enum)]
    to: Option<LayoutArg>,
    /// Index type of converted sparse messages (default: the narrowest that Arrow C++
    /// reads and that holds the sizes): int8, int16, int32, int64, uint8, ...
    #[arg(long, value_name = "T", requires = "to")]
    index_type: Option<String>,
    /// CSF axis order of converted messages, e.g. `2,0,1` (default: identity).
    #[arg(long, value_name = "ORDER", value_delimiter = ',', requires = "to")]
    axis_order: Option<Vec<usize>>,
    /// Threads a large conversion may use (0, the default: one per core, at most 8).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "to")]
    threads: usize,
    /// What to write: `messages` (tensor messages, the default), or record batches of
    /// `fixed-shape-tensor`, `variable-shape-tensor` or `coo-table` (an Arrow IPC file
    /// when OUT ends in .arrow or .feather, a Parquet file when it ends in .parquet, an
    /// IPC stream otherwise). A .parquet OUT holds record batches: by default a COO
    /// table for a sparse input, a fixed-shape tensor column for a dense one.
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Fixed-shape tensors: `first-axis` (the default) maps a message's first axis to
    /// rows (and a batch back to one message); `message` makes each message one row
    /// (and each row one message).
    #[arg(long, value_enum, default_value_t = RowsArg::FirstAxis)]
    rows: RowsArg,
    /// Fixed-shape tensors: keep a column-major (or otherwise permuted) layout and
    /// record it as the type's "permutation", instead of transposing to row-major.
    #[arg(long)]
    keep_layout: bool,
    /// The tensor column to read from a record-batch input with several.
    #[arg(long, value_name = "NAME")]
    column: Option<String>,
    /// Matrix Market input: keep a symmetric or skew-symmetric matrix as stored (one
    /// triangle) instead of expanding it to the full matrix.
    #[arg(long)]
    as_stored: bool,
    /// FROSTT input: the tensor's shape (default: the largest coordinate of each
    /// dimension).
    #[arg(long, value_name = "D0,D1,...", value_delimiter = ',')]
    shape: Option<Vec<usize>>,
    /// `.npz` output: deflate the members (as `save_npz(compressed=True)`).
    #[arg(long)]
    compressed: bool,
    /// Show a progress bar on standard error (default: for inputs of 64 MiB or more
    /// when standard error is a terminal).
    #[arg(long, conflicts_with = "no_progress")]
    progress: bool,
    /// Never show a progress bar.
    #[arg(long)]
    no_progress: bool,
    /// Input (`-`: standard input).
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Output file (created or truncated; `-`: standard output).
    #[arg(value_name = "OUT")]
    output: PathBuf,
}

/// How CSF buffer lengths are written.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum CsfLengthsArg {
    /// Element counts (what Arrow C++ writes and reads).
    Elements,
    /// Byte lengths (what the format document says).
    Bytes,
}

/// Output of `convert --format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum FormatArg {
    /// Tensor / SparseTensor messages.
    Messages,
    /// An `arrow.fixed_shape_tensor` column.
    FixedShapeTensor,
    /// An `arrow.variable_shape_tensor` column.
    VariableShapeTensor,
    /// A COO table (one column per dimension and a `value` column).
    CooTable,
}

impl FormatArg {
    /// The table format of record batches, `None` for messages.
    fn table(self) -> Option<TableFormat> {
        match self {
            FormatArg::Messages => None,
            FormatArg::FixedShapeTensor => Some(TableFormat::FixedShapeTensor),
            FormatArg::VariableShapeTensor => Some(TableFormat::VariableShapeTensor),
            FormatArg::CooTable => Some(TableFormat::CooTable),
        }
    }
}

/// `convert --rows`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum RowsArg {
    /// The first axis of a tensor is the rows.
    FirstAxis,
    /// One message is one row.
    Message,
}

/// Target layout of `convert --to`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum LayoutArg {
    /// Dense tensor.
    Dense,
    /// Coordinate list.
    Coo,
    /// Compressed sparse row.
    Csr,
    /// Compressed sparse column.
    Csc,
    /// Compressed sparse fiber.
    Csf,
}

impl LayoutArg {
    /// The sparse format, `None` for dense.
    fn format(self) -> Option<SparseFormat> {
        match self {
            LayoutArg::Dense => None,
            LayoutArg::Coo => Some(SparseFormat::Coo),
            LayoutArg::Csr => Some(SparseFormat::Csr),
            LayoutArg::Csc => Some(SparseFormat::Csc),
            LayoutArg::Csf => Some(SparseFormat::Csf),
        }
    }
}

/// What `convert` is asked to do, from its command line.
struct Options {
    /// How `IN` is read: validation and limits, how record batches become tensors
    /// (`--rows`, `--column`), Matrix Market symmetry, FROSTT shape, threads.
    input_options: InputOptions<'static>,
    /// What is written to `OUT`.
    target: Target,
    /// The layout of `--to` (`None`: dense) with its conversion options; `None` without
    /// `--to`.
    layout: Option<(Option<SparseFormat>, ConvertOptions)>,
    /// When the progress bar is shown.
    progress: When,
}

impl ConvertArgs {
    /// The options the arguments describe; an error says which arguments do not fit.
    fn options(&self) -> Result<Options, String> {
        let read_options = self.read.options();
        let layout = self.layout()?;
        // A sparse tensor bound for `.npy` is expanded up to the read limits' size.
        let file_options = formats::FileWriteOptions::default()
            .with_threads(self.threads)
            .with_compressed(self.compressed)
            .with_limits(
                Limits::default().with_max_dense_elements(read_options.limits.max_dense_elements),
            );
        let target = self.target(file_options)?;
        let mut batch_options = MessageOptions::default().with_rows(self.rows());
        if let Some(c) = &self.column {
            batch_options = batch_options.with_column(c.clone());
        }
        let mut input_options = self
            .read
            .input_options()
            .with_batch_options(batch_options)
            .with_threads(self.threads)
            .with_expand_symmetry(!self.as_stored);
        if let Some(shape) = &self.shape {
            input_options = input_options.with_shape(shape.clone());
        }
        let progress = match (self.progress, self.no_progress) {
            (true, _) => When::Always,
            (_, true) => When::Never,
            _ => When::Auto,
        };
        Ok(Options {
            input_options,
            target,
            layout,
            progress,
        })
    }

    /// `--to` with `--index-type`, `--axis-order` and `--threads`.
    fn layout(&self) -> Result<Option<(Option<SparseFormat>, ConvertOptions)>, String> {
        let Some(to) = self.to else {
            return Ok(None);
        };
        let mut options = ConvertOptions::default().with_threads(self.threads);
        if let Some(name) = &self.index_type {
            let t =
                IndexType::from_name(name).ok_or_else(|| format!("unknown index type {name:?}"))?;
            options = options.with_index_type(t);
        }
        if let Some(order) = &self.axis_order {
            options = options.with_axis_order(CsfAxisOrder::Explicit(order.clone()));
        }
        Ok(Some((to.format(), options)))
    }

    /// `--rows`.
    fn rows(&self) -> Rows {
        match self.rows {
            RowsArg::FirstAxis => Rows::FirstAxis,
            RowsArg::Message => Rows::Whole,
        }
    }

    /// What is written: chosen by `--format` and the output's extension.
    fn target(&self, file_options: formats::FileWriteOptions) -> Result<Target, String> {
        let output = &self.output;
        let fixed = FixedShapeOptions::default()
            .with_rows(self.rows())
            .with_layout(if self.keep_layout {
                Layout::Keep
            } else {
                Layout::RowMajor
            });
        let kind = FileKind::from_extension(output);
        if kind == Some(FileKind::Parquet) {
            return match self.format {
                Some(FormatArg::Messages) => Err(format!(
                    "{} is a Parquet file: it holds record batches (--format fixed-shape-tensor, variable-shape-tensor or coo-table)",
                    output.display()
                )),
                f => Ok(Target::Parquet(f.and_then(FormatArg::table), fixed)),
            };
        }
        match (
            self.format.and_then(FormatArg::table),
            kind.filter(|k| k.is_format_file()),
        ) {
            (None, Some(f)) => Ok(Target::File(f, file_options)),
            (None, None) => Ok(Target::Messages(
                WriteOptions::default()
                    .with_csf_lengths(match self.csf_lengths {
                        CsfLengthsArg::Elements => CsfLengths::Elements,
                        CsfLengthsArg::Bytes => CsfLengths::Bytes,
                    })
                    .with_arrow_compatible(!self.allow_non_arrow),
            )),
            (Some(_), Some(f)) => Err(format!(
                "{} is a {} file: --format applies to tensor message and record-batch outputs",
                output.display(),
                f.name()
            )),
            (Some(t), None) => Ok(Target::Table(t, fixed)),
        }
    }
}

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

/// Copies the tensors of `IN` (any kind the tool reads; `-` is standard input) to `OUT`
/// (`-` is standard output) as the arguments say.
pub fn run(args: &ConvertArgs, out: &mut dyn Write) -> io::Result<Outcome> {
    let Options {
        input_options,
        target,
        layout,
        progress,
    } = match args.options() {
        Ok(o) => o,
        Err(e) => {
            report(e);
            return Ok(Outcome::Failed);
        }
    };
    let (input, output) = (&*args.input, &*args.output);
    // The read limits bound what record batches claim and what conversions allocate.
    let limits = input_options.read_options.limits;
    let layout = layout.map(|(format, options)| (format, options.with_limits(limits)));
    let to_stdout = open::is_stdio(output);
    if !open::is_stdio(input) && !to_stdout && same_file(input, output) {
        report(format_args!(
            "{}: input and output are the same file",
            output.display()
        ));
        return Ok(Outcome::Failed);
    }
    // The progress bar, made once the input's size is known; the parsers of text files
    // draw on it as they go.
    let bar: Mutex<Option<Progress>> = Mutex::new(None);
    let draw = |done: u64, count: u64, stage: &str| {
        if let Some(bar) = bar.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
            bar.update(done, count, stage);
        }
    };
    let parsing = |done: u64| draw(done, 0, "parsing");
    let input_options = input_options.with_progress(&parsing);
    let opened = match open::open(input, &input_options) {
        Ok(i) => i,
        Err(e) => {
            report(e);
            return Ok(Outcome::Failed);
        }
    };
    let (name, size) = (opened.name().to_string(), opened.size().unwrap_or(0));
    let mut tensors = match opened.tensors() {
        Ok(t) => t,
        Err(e) => {
            report(format_args!("{name}: {e}"));
            return Ok(Outcome::Failed);
        }
    };
    let output_name = if to_stdout {
        "standard output".to_string()
    } else {
        output.display().to_string()
    };
    let (dest, summary): (Dest, Option<&mut dyn Write>) = if to_stdout {
        // Standard output carries the data: no summary line.
        (Dest::Stdout(out), None)
    } else {
        match File::create(output) {
            Ok(f) => (Dest::File(f), Some(out)),
            Err(e) => {
                report(format_args!("{output_name}: cannot create: {e}"));
                return Ok(Outcome::Failed);
            }
        }
    };
    let mut sink = Sink::new(dest, output, &target);
    let mut count = 0u64;
    let mut failure = None;
    *bar.lock().unwrap_or_else(PoisonError::into_inner) = Some(Progress::new(size, progress));
    let max_dense = limits.max_dense_elements;
    loop {
        draw(tensors.consumed(), count, "reading");
        let Some(item) = tensors.next() else {
            break;
        };
        let tensor = match item {
            Ok(t) => t,
            Err(e) => {
                failure = Some(Failure::of(&e).full(&name));
                break;
            }
        };
        let at = tensor.origin().to_string();
        if let Some(reason) = match &tensor {
            InputTensor::Decoded(m) => m
                .message
                .as_tensor()
                .and_then(|t| dump::aliased_expansion(t, max_dense)),
            _ => None,
        } {
            failure = Some(format!("{name}: {at}: cannot write it: {reason}"));
            break;
        }
        let message = tensor.into_message();
        let message = match &layout {
            None => Ok(message),
            Some((format, options)) => {
                draw(tensors.consumed(), count, "converting");
                relayout(message, *format, options, max_dense)
            }
        };
        let message = match message {
            Ok(message) => message,
            Err(e) => {
                failure = Some(format!("{name}: {at}: cannot convert it: {}", e.kind()));
                break;
            }
        };
        draw(tensors.consumed(), count, "writing");
        if let Err(e) = sink.write(&message) {
            let hint = if matches!(
                e.kind(),
                ErrorKind::NotArrowCompatible(_) | ErrorKind::IndexTypeTooNarrow { .. }
            ) {
                " (--allow-non-arrow writes it anyway)"
            } else {
                ""
            };
            failure = Some(format!(
                "{name}: {at}: cannot write it to {output_name}: {}{hint}",
                e.kind()
            ));
            break;
        }
        count += 1;
        draw(tensors.consumed(), count, "written");
    }
    let (failure, batches) = match failure {
        // Close the output before removing it.
        Some(f) => {
            drop(sink);
            (Some(f), None)
        }
        None => match sink.finish() {
            Ok(b) => (None, b),
            Err(e) => (Some(format!("{output_name}: cannot write: {e}")), None),
        },
    };
    let stage = if failure.is_some() { "failed" } else { "done" };
    let consumed = tensors.consumed();
    drop(tensors);
    if let Some(mut bar) = bar.into_inner().unwrap_or_else(PoisonError::into_inner) {
        bar.finish(consumed, count, stage);
    }
    if let Some(f) = failure {
        report(f);
        if !to_stdout
            && fs::metadata(output).is_ok_and(|m| m.is_file())
            && fs::remove_file(output).is_ok()
        {
            report(format_args!("{output_name}: partial output removed"));
        }
        return Ok(Outcome::Failed);
    }
    let Some(out) = summary else {
        return Ok(Outcome::Ok);
    };
    let plural = if count == 1 { "message" } else { "messages" };
    match batches {
        None => writeln!(out, "{output_name}: {count} {plural} written")?,
        Some(b) => {
            let bp = if b == 1 {
                "record batch"
            } else {
                "record batches"
            };
            writeln!(out, "{output_name}: {count} {plural} written as {b} {bp}")?
        }
    }
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
        (Message::SparseTensor(t), None) => {
            Message::Tensor(t.to_dense_with(&options.clone().with_max_dense_elements(max_dense))?)
        }
        (Message::Tensor(t), Some(f)) => Message::SparseTensor(t.to_sparse_with(f, options)?),
        (Message::SparseTensor(t), Some(f)) => Message::SparseTensor(t.to_format_with(f, options)?),
    })
}
