//! `arrow-tensor`: look into, check and rewrite files of Apache Arrow Tensor and
//! SparseTensor IPC messages (the encapsulated message format: one message after another,
//! optionally ended by an end-of-stream marker), and the tensors of the other kinds of
//! input the crate reads.
//!
//! # Inputs
//!
//! Every subcommand reads every kind of input through the library's
//! [`arrow_tensor_ipc::input::Input`], detected by content first and extension second
//! ([`arrow_tensor_ipc::formats::detect`]): streams of tensor messages, Arrow IPC streams
//! and files and Parquet files of record batches (each batch split into tensors: tensor
//! columns or a COO table), tiled datasets (a directory holding `_tensor.json`), Matrix
//! Market `.mtx` (symmetric matrices expanded unless `convert --as-stored`), FROSTT `.tns`
//! (`convert --shape` gives the shape, else the largest coordinates), NumPy `.npy` and
//! `.npz` (scipy `save_npz` sparse bundles and numpy `savez` bundles of named arrays). An
//! input of a kind the tool does not read (a zip archive without `.npy` members, HDF5,
//! gzip, plain text, other binary data) is an error that names the kind.
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

mod args;
mod convert;
mod dump;
mod inspect;
mod json;
mod open;
mod progress;
mod tile;
mod validate;

use clap::{Parser, Subcommand};
use inspect::InspectArgs;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use validate::ValidateArgs;

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

/// The subcommands, each with the arguments defined in its module.
#[derive(Subcommand, Debug)]
enum Command {
    /// Print one human-readable line per message or tensor of each input (one line for a
    /// .mtx, .tns or .npy file).
    #[command(after_help = INPUTS_HELP)]
    Inspect(InspectArgs),
    /// Print every message or tensor of the input as one JSON object per line.
    #[command(after_help = INPUTS_HELP)]
    Dump(dump::DumpArgs),
    /// Check every message or tensor of every input; exit 1 on the first invalid one of an
    /// input.
    #[command(after_help = INPUTS_HELP)]
    Validate(ValidateArgs),
    /// Decode every message or tensor of IN and write it again to OUT. OUT may also be a
    /// Matrix Market (.mtx), FROSTT (.tns), NumPy (.npy) or scipy save_npz (.npz) file,
    /// chosen by its extension; such a file holds one tensor. A .parquet OUT is a Parquet
    /// file of record batches (see --format). `-` is standard input or output.
    #[command(after_help = INPUTS_HELP)]
    Convert(convert::ConvertArgs),
    /// Cut the one tensor of IN into a tiled dataset in DIR: Parquet COO tables with global
    /// coordinates in Hive-style directories tile_0=i/tile_1=j/..., and a manifest
    /// _tensor.json written last. Streams: memory stays under --memory.
    #[command(after_help = INPUTS_HELP)]
    Tile(tile::TileArgs),
}

/// How a subcommand ended.
enum Outcome {
    /// Everything was fine.
    Ok,
    /// Some input was invalid or unreadable (already reported).
    Failed,
}

/// Prints a diagnostic on standard error.
fn report(message: impl std::fmt::Display) {
    // Nothing sensible is left to do when standard error is gone.
    let _ = writeln!(io::stderr().lock(), "arrow-tensor: {message}");
}

/// Refuses standard input named more than once (it can be read only once).
fn stdin_once(files: &[PathBuf]) -> Result<(), Outcome> {
    if files.iter().filter(|f| open::is_stdio(f)).count() > 1 {
        report("`-` (standard input) is given more than once");
        return Err(Outcome::Failed);
    }
    Ok(())
}

/// Runs the subcommand of the command line.
fn run(cli: Cli, out: &mut dyn Write) -> io::Result<Outcome> {
    match cli.command {
        Command::Inspect(InspectArgs { files, .. })
        | Command::Validate(ValidateArgs { files, .. })
            if stdin_once(&files).is_err() =>
        {
            Ok(Outcome::Failed)
        }
        Command::Inspect(args) => inspect::run(&args, out),
        Command::Dump(args) => dump::run(&args, out),
        Command::Validate(args) => validate::run(&args, out),
        Command::Convert(args) => convert::run(&args, out),
        Command::Tile(args) => tile::run(args, out),
    }
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
