//! `arrow-tensor`: look into, check and rewrite files of Apache Arrow Tensor and
//! SparseTensor IPC messages (the encapsulated message format: one message after another,
//! optionally ended by an end-of-stream marker), and the tensors of the other kinds of
//! input the crate reads.
//!
//! # Inputs
//!
//! Every subcommand reads every kind of input, detected by content first and extension
//! second ([`arrow_tensor_ipc::formats::detect`]): streams of tensor messages, Arrow IPC
//! streams and files and Parquet files of record batches (each batch split into tensors:
//! tensor columns or a COO table), Matrix Market `.mtx` (symmetric matrices expanded unless `convert
//! --as-stored`), FROSTT `.tns` (`convert --shape` gives the shape, else the largest
//! coordinates), NumPy `.npy` and `.npz` (scipy `save_npz` sparse bundles and numpy
//! `savez` bundles of named arrays). An input of a kind the tool does not read (a zip
//! archive without `.npy` members, HDF5, gzip, plain text, other binary data) is an error that names
//! the kind.
//!
//! `-` is standard input (and, for `convert`, standard output): `producer | arrow-tensor
//! convert - - --to csr | consumer`. Tensor messages and Arrow IPC streams on standard
//! input (or a named pipe) are read as they come (memory bounded by one message); any other
//! kind is first copied into a temporary file, since its reader needs the whole content (a
//! footer, a zip directory).
//!
//! Input files are memory-mapped: they must not be modified or truncated while a command
//! reads them (the contract of [`arrow_tensor_ipc::map_file`]).
//!
//! # Subcommands
//!
//! - `inspect INPUT...` prints one human-readable line per message: byte offset, kind
//!   (`tensor` or `sparse_tensor`), value type, shape, dimension names, layout (row-major,
//!   column-major or strided for dense tensors; COO, CSR, CSC or CSF with nnz and index
//!   types for sparse ones), metadata and body lengths, and where the body starts with its
//!   alignment (for example `body@64 (64-aligned)`). For the other kinds: one line per
//!   tensor of a record batch (`record batch 0: ...`), one line for a file of one tensor
//!   (with a Matrix Market file's header), a line per member of an `.npz` bundle.
//! - `dump [--json] INPUT` prints one JSON object per line per message (JSON Lines), with the
//!   keys `offset`, `kind`, `metadata_version`, `metadata_length`, `body_length`, `type`,
//!   `shape`, `dim_names`, then for dense tensors `strides` and `values` (every element in
//!   row-major logical order; `null` with a `values_error` key for a tensor whose zero or
//!   overlapping strides make more than 100 000 elements share a smaller buffer) and for
//!   sparse tensors `nnz`, `format` and the index arrays
//!   (COO: `index_type`, `is_canonical`, `coords`; CSR/CSC: `indptr_type`, `indices_type`,
//!   `indptr`, `indices`; CSF: the same plus `axis_order`, with `indptr` and `indices` as
//!   lists of lists), `values` (stored values in storage order) and `dense` (the row-major
//!   expansion when it has at most 100 000 elements, else `null`; when the expansion fails
//!   on unvalidated data, `null` and a `dense_error` key). Integers are printed exactly,
//!   floats as numbers that read back to the same value, `NaN` and infinities as the
//!   strings `"NaN"`, `"Infinity"` and `"-Infinity"`. A message that fails to decode prints
//!   `{"offset":...,"error":"..."}` and ends the dump (the framing may be lost). A tensor of
//!   another kind of input has `source` (where it came from: `record batch 0`, `the npy
//!   file`, `member "a" of the npz file`) instead of the four message keys, and a failure
//!   there prints `{"source":...,"error":"..."}`. JSON is the only output format; `--json`
//!   may be given for clarity.
//! - `validate INPUT...` decodes every message of every input and prints one summary line
//!   per input (`FILE: 3 messages OK`; `FILE: 1 tensor OK (npy)` for the other kinds, whose
//!   sparse indices are checked strictly unless `--permissive`). Errors go to standard
//!   error with the input's name and where the failing tensor is (the byte offset of a
//!   message).
//! - `convert IN OUT` decodes every message of `IN` and writes it again to `OUT` with the
//!   crate's writer (64-byte aligned, metadata V5, end-of-stream marker at the end), keeping
//!   value types, index types and layouts. `--allow-non-arrow` also writes messages Arrow
//!   C++ cannot read (such as uint64 indices); `--csf-lengths elements|bytes` picks how CSF
//!   buffer lengths are written (element counts as Arrow C++ does, or bytes as the format
//!   document says). Dense tensors with aliasing strides are written expanded to row-major
//!   order, up to the default to-dense limit of 2^28 elements. On failure the partial
//!   output file is removed. `--to dense|coo|csr|csc|csf` converts every message to that
//!   layout (`--index-type T`, `--axis-order 2,0,1` for CSF; `--threads N`, default one per
//!   core). `OUT` chooses what is written by its extension: `.mtx`, `.tns`, `.npy`, `.npz`
//!   (a sparse tensor bound for `.npy` is expanded to dense, a dense one bound for `.npz`
//!   becomes CSR; `--compressed` deflates an `.npz`; such a file holds one tensor, or one
//!   dense tensor per member of an `.npz` bundle), else tensor messages, or record batches
//!   with `--format` (an IPC file for `.arrow` and `.feather`, an IPC stream otherwise).
//!   An `OUT` ending in `.parquet` is a Parquet file of record batches (snappy pages, row
//!   groups of at most 2^20 rows or about 128 MiB, the Arrow schema stored): `--format`
//!   as for IPC outputs, by default a COO table for a sparse input and a fixed-shape tensor
//!   column for a dense one.
//!   `-` writes messages or an IPC stream to standard output, without the summary line.
//!   A progress bar (`indicatif`: input bytes read, rate, time left, messages written,
//!   current step) goes to standard error for inputs of 64 MiB or more when it is a
//!   terminal; `--progress` forces it, `--no-progress` turns it off.
//! - `tile IN DIR --tile-shape D0,D1,...` cuts the one tensor of `IN` (any input above; a
//!   COO table in several record batches is one tensor) into a tiled dataset in `DIR`
//!   (created; it must be empty): Hive-style directories `tile_0=i/tile_1=j/` of Parquet
//!   COO tables with global coordinates and a manifest `_tensor.json` written last (the
//!   format: `docs/dataset-format.md`). It streams: Matrix Market and FROSTT files are
//!   parsed a batch at a time, and entries are buffered per tile and written as sorted part
//!   files whenever the buffers fill their share of `--memory` (default 512M), so anonymous
//!   memory stays bounded whatever the input size; `--threads N` (default one per core)
//!   parses and encodes on N threads. `--shape` gives a FROSTT file's shape (else the file
//!   is read twice, the first time for its extent). `convert DIR OUT` reassembles a dataset
//!   (a directory holding `_tensor.json`) into any output, in the layout it was cut from
//!   unless `--to` says otherwise.
//!
//! Every subcommand validates strictly (every rule of the format and of the sparse layouts)
//! unless `--permissive` is given, in which case only what safe reading needs is checked.
//!
//! # Exit status
//!
//! 0 on success, 1 when a file cannot be read or written or holds an invalid message, 2 on
//! a usage error.

mod convert;
mod dump;
mod files;
mod input;
mod inspect;
mod ipc_stream;
mod json;
mod progress;
mod read;
mod tile;
mod validate;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// What `--help` says of inputs after the options, for the tool and every subcommand.
const INPUTS_HELP: &str = "Inputs are tensor messages, Arrow IPC streams and files, Parquet \
    files, Matrix Market (.mtx), FROSTT (.tns), NumPy .npy and .npz, detected by content first and \
    extension second; `-` is standard input or output.\n\
    Input files are memory-mapped: they must not be modified or truncated while \
    arrow-tensor reads them.";

/// Read, check and rewrite Apache Arrow Tensor and SparseTensor IPC message files.
#[derive(Parser, Debug)]
#[command(name = "arrow-tensor", version, after_help = INPUTS_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Options shared by every subcommand that reads messages.
#[derive(Args, Debug, Clone, Copy)]
struct ReadArgs {
    /// Check only what safe reading needs (sizes and counts), not every rule on index
    /// values (bounds, ordering, indptr structure). Strict validation is the default.
    #[arg(long)]
    permissive: bool,
}

impl ReadArgs {
    fn options(self) -> arrow_tensor_ipc::ReadOptions {
        if self.permissive {
            arrow_tensor_ipc::ReadOptions::permissive()
        } else {
            arrow_tensor_ipc::ReadOptions::strict()
        }
    }
}

/// How CSF buffer lengths are written.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum CsfLengthsArg {
    /// Element counts (what Arrow C++ writes and reads).
    Elements,
    /// Byte lengths (what the format document says).
    Bytes,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print one human-readable line per message or tensor of each input (one line for a
    /// .mtx, .tns or .npy file).
    #[command(after_help = INPUTS_HELP)]
    Inspect {
        #[command(flatten)]
        read: ReadArgs,
        /// Inputs (`-`: standard input).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print every message or tensor of the input as one JSON object per line.
    #[command(after_help = INPUTS_HELP)]
    Dump {
        /// Print JSON Lines (the only format, and the default).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        read: ReadArgs,
        /// Input (`-`: standard input).
        file: PathBuf,
    },
    /// Check every message or tensor of every input; exit 1 on the first invalid one of an
    /// input.
    #[command(after_help = INPUTS_HELP)]
    Validate {
        #[command(flatten)]
        read: ReadArgs,
        /// Inputs (`-`: standard input).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Decode every message or tensor of IN and write it again to OUT. OUT may also be a
    /// Matrix Market (.mtx), FROSTT (.tns), NumPy (.npy) or scipy save_npz (.npz) file,
    /// chosen by its extension; such a file holds one tensor. `-` is standard input or
    /// output.
    #[command(after_help = INPUTS_HELP)]
    Convert {
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
    },
    /// Cut the one tensor of IN into a tiled dataset in DIR: Parquet COO tables with global
    /// coordinates in Hive-style directories tile_0=i/tile_1=j/..., and a manifest
    /// _tensor.json written last. Streams: memory stays under --memory.
    #[command(after_help = INPUTS_HELP)]
    Tile {
        #[command(flatten)]
        read: ReadArgs,
        /// The extent of a tile along each dimension, e.g. `1000,1000`.
        #[arg(long, value_name = "D0,D1,...", value_delimiter = ',', required = true)]
        tile_shape: Vec<usize>,
        /// The memory budget for buffered entries and the tiles being written: bytes, or
        /// with a K, M, G suffix (powers of 1024).
        #[arg(long, value_name = "SIZE", default_value = "512M")]
        memory: String,
        /// Threads that parse the input and encode tiles (0, the default: one per core, at
        /// most 8).
        #[arg(long, value_name = "N", default_value_t = 0)]
        threads: usize,
        /// FROSTT input: the tensor's shape (default: the largest coordinate of each
        /// dimension, found by a first pass over the file).
        #[arg(long, value_name = "D0,D1,...", value_delimiter = ',')]
        shape: Option<Vec<usize>>,
        /// Matrix Market input: keep a symmetric or skew-symmetric matrix as stored.
        #[arg(long)]
        as_stored: bool,
        /// The tensor column to read from a record-batch input with several.
        #[arg(long, value_name = "NAME")]
        column: Option<String>,
        /// Input (`-`: standard input).
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// The dataset's directory (created; it must be empty).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
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
    fn format(self) -> Option<arrow_tensor_ipc::SparseFormat> {
        use arrow_tensor_ipc::SparseFormat as F;
        match self {
            LayoutArg::Dense => None,
            LayoutArg::Coo => Some(F::Coo),
            LayoutArg::Csr => Some(F::Csr),
            LayoutArg::Csc => Some(F::Csc),
            LayoutArg::Csf => Some(F::Csf),
        }
    }
}

/// How a subcommand ended.
enum Outcome {
    /// Everything was fine.
    Ok,
    /// Some input was invalid or unreadable (already reported).
    Failed,
}

/// The options that turn record batches into tensors for `inspect`, `dump` and `validate`
/// (`convert` sets its own from its command line).
fn default_message_options(
    options: arrow_tensor_ipc::ReadOptions,
) -> arrow_tensor_ipc::record_batch::MessageOptions {
    arrow_tensor_ipc::record_batch::MessageOptions::default().with_limits(options.limits)
}

/// The options of the file-format readers for `inspect`, `dump` and `validate`.
fn default_file_options(options: arrow_tensor_ipc::ReadOptions) -> files::FileOptions {
    files::FileOptions {
        validation: options.validation,
        ..files::FileOptions::default()
    }
}

/// Prints a diagnostic on standard error.
fn report(message: impl std::fmt::Display) {
    // Nothing sensible is left to do when standard error is gone.
    let _ = writeln!(io::stderr().lock(), "arrow-tensor: {message}");
}

/// Refuses standard input named more than once (it can be read only once).
fn stdin_once(files: &[PathBuf]) -> Result<(), Outcome> {
    if files.iter().filter(|f| input::is_stdio(f)).count() > 1 {
        report("`-` (standard input) is given more than once");
        return Err(Outcome::Failed);
    }
    Ok(())
}

fn run(cli: Cli, out: &mut dyn Write) -> io::Result<Outcome> {
    match cli.command {
        Command::Inspect { files, .. } | Command::Validate { files, .. }
            if stdin_once(&files).is_err() =>
        {
            Ok(Outcome::Failed)
        }
        Command::Inspect { read, files } => inspect::run(&files, read.options(), out),
        Command::Dump {
            json: _,
            read,
            file,
        } => dump::run(&file, read.options(), out),
        Command::Validate { read, files } => validate::run(&files, read.options(), out),
        Command::Tile {
            read,
            tile_shape,
            memory,
            threads,
            shape,
            as_stored,
            column,
            input,
            dir,
        } => {
            let memory = match tile::parse_size(&memory) {
                Ok(m) => m,
                Err(e) => {
                    report(format_args!("--memory: {e}"));
                    return Ok(Outcome::Failed);
                }
            };
            let read_options = read.options();
            let job = tile::TileJob {
                input,
                dir,
                tile_shape,
                memory,
                threads,
                file_options: files::FileOptions {
                    as_stored,
                    shape,
                    threads,
                    validation: read_options.validation,
                    ..files::FileOptions::default()
                },
                read_options,
                column,
            };
            tile::run(job, out)
        }
        Command::Convert {
            read,
            allow_non_arrow,
            csf_lengths,
            to,
            index_type,
            axis_order,
            threads,
            format,
            rows,
            keep_layout,
            column,
            as_stored,
            shape,
            compressed,
            progress,
            no_progress,
            input,
            output,
        } => {
            let when = match (progress, no_progress) {
                (true, _) => progress::When::Always,
                (_, true) => progress::When::Never,
                _ => progress::When::Auto,
            };
            let options = arrow_tensor_ipc::WriteOptions::default()
                .with_csf_lengths(match csf_lengths {
                    CsfLengthsArg::Elements => arrow_tensor_ipc::CsfLengths::Elements,
                    CsfLengthsArg::Bytes => arrow_tensor_ipc::CsfLengths::Bytes,
                })
                .with_arrow_compatible(!allow_non_arrow);
            let layout = match to {
                None => None,
                Some(to) => {
                    let mut convert_options =
                        arrow_tensor_ipc::ConvertOptions::default().with_threads(threads);
                    if let Some(name) = index_type {
                        match arrow_tensor_ipc::IndexType::from_name(&name) {
                            Some(t) => convert_options = convert_options.with_index_type(t),
                            None => {
                                eprintln!("arrow-tensor: unknown index type {name:?}");
                                return Ok(Outcome::Failed);
                            }
                        }
                    }
                    if let Some(order) = axis_order {
                        convert_options = convert_options
                            .with_axis_order(arrow_tensor_ipc::CsfAxisOrder::Explicit(order));
                    }
                    Some((to.format(), convert_options))
                }
            };
            use arrow_tensor_ipc::record_batch::{FixedShapeOptions, Layout, Rows, TableFormat};
            let rows = match rows {
                RowsArg::FirstAxis => Rows::FirstAxis,
                RowsArg::Message => Rows::Whole,
            };
            let fixed = FixedShapeOptions::default()
                .with_rows(rows)
                .with_layout(if keep_layout {
                    Layout::Keep
                } else {
                    Layout::RowMajor
                });
            let file_options = files::FileOptions {
                as_stored,
                shape,
                compressed,
                threads,
                validation: read.options().validation,
            };
            let output_file = arrow_tensor_ipc::formats::FileFormat::from_path(&output);
            let parquet_out = output
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("parquet"));
            if parquet_out && format == Some(FormatArg::Messages) {
                eprintln!(
                    "arrow-tensor: {} is a Parquet file: it holds record batches (--format fixed-shape-tensor, variable-shape-tensor or coo-table)",
                    output.display()
                );
                return Ok(Outcome::Failed);
            }
            let table = |f: FormatArg| match f {
                FormatArg::Messages => None,
                FormatArg::FixedShapeTensor => Some(TableFormat::FixedShapeTensor),
                FormatArg::VariableShapeTensor => Some(TableFormat::VariableShapeTensor),
                FormatArg::CooTable => Some(TableFormat::CooTable),
            };
            let format = match (parquet_out, format) {
                (true, f) => {
                    let target = convert::Target::Parquet(f.and_then(table), fixed.clone());
                    return convert_run(
                        &input,
                        &output,
                        read.options(),
                        target,
                        rows,
                        column,
                        layout,
                        &file_options,
                        when,
                        out,
                    );
                }
                (false, f) => f.unwrap_or(FormatArg::Messages),
            };
            if let (Some(f), false) = (output_file, format == FormatArg::Messages) {
                eprintln!(
                    "arrow-tensor: {} is a {} file: --format applies to tensor message and record-batch outputs",
                    output.display(),
                    f.name()
                );
                return Ok(Outcome::Failed);
            }
            let target = match format {
                FormatArg::Messages => match output_file {
                    Some(f) => convert::Target::File(f, file_options.clone()),
                    None => convert::Target::Messages(options),
                },
                FormatArg::FixedShapeTensor => {
                    convert::Target::Table(TableFormat::FixedShapeTensor, fixed)
                }
                FormatArg::VariableShapeTensor => {
                    convert::Target::Table(TableFormat::VariableShapeTensor, fixed)
                }
                FormatArg::CooTable => convert::Target::Table(TableFormat::CooTable, fixed),
            };
            convert_run(
                &input,
                &output,
                read.options(),
                target,
                rows,
                column,
                layout,
                &file_options,
                when,
                out,
            )
        }
    }
}

/// [`convert::run`] with the message options of `--rows` and `--column`.
#[allow(clippy::too_many_arguments)]
fn convert_run(
    input: &std::path::Path,
    output: &std::path::Path,
    read_options: arrow_tensor_ipc::ReadOptions,
    target: convert::Target,
    rows: arrow_tensor_ipc::record_batch::Rows,
    column: Option<String>,
    layout: Option<(
        Option<arrow_tensor_ipc::SparseFormat>,
        arrow_tensor_ipc::ConvertOptions,
    )>,
    file_options: &files::FileOptions,
    when: progress::When,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let mut message_options =
        arrow_tensor_ipc::record_batch::MessageOptions::default().with_rows(rows);
    if let Some(c) = column {
        message_options = message_options.with_column(c);
    }
    convert::run(
        input,
        output,
        read_options,
        target,
        message_options,
        layout,
        file_options,
        when,
        out,
    )
}

/// Installs a panic hook that stays silent for panics inside the `parquet` crate: the
/// Parquet reader contains them and reports a typed error naming the part of the file.
/// Every other panic goes to the default hook.
fn quiet_parquet_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let in_parquet = info.location().is_some_and(|l| {
            let file = l.file().replace('\\', "/");
            file.contains("/parquet-") && file.contains("/src/")
        });
        if !in_parquet {
            default(info);
        }
    }));
}

fn main() -> ExitCode {
    // Usage errors exit with status 2, --help and --version with 0 (clap's defaults).
    let cli = Cli::parse();
    quiet_parquet_panics();
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = run(cli, &mut out).and_then(|outcome| out.flush().map(|()| outcome));
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::from(1),
        // A closed pipe (`arrow-tensor dump f | head`) is not worth a message.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(1),
        Err(e) => {
            report(format_args!("cannot write to standard output: {e}"));
            ExitCode::from(1)
        }
    }
}
