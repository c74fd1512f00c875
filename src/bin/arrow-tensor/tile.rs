//! `tile IN DIR --tile-shape D0,D1,...`: cuts one tensor into a tiled dataset
//! (`arrow_tensor_ipc::dataset`, `docs/dataset-format.md`), streaming.
//!
//! Matrix Market coordinate files and FROSTT files are memory-mapped and parsed a bounded
//! batch at a time (on every core); each batch's entries are routed to their tiles, and the
//! dataset writer flushes the largest tiles as sorted part files whenever its buffers fill
//! their share of `--memory`. A FROSTT file without `--shape` is parsed twice (the first
//! pass finds its extent, which the files' schemas need before the first part is written).
//! Every other input is read one tensor at a time: a sparse tensor's stored values or a
//! dense tensor's non-zeros are routed the same way (a message is memory-mapped, so only
//! the buffers count); a COO table in several record batches is one tensor.

use crate::args::ReadArgs;
use crate::open::{self, Failure};
use crate::{report, Outcome};
use arrow_tensor_ipc::dataset::{DatasetWriteOptions, DatasetWriter, Manifest};
use arrow_tensor_ipc::formats::{detect::FileKind, mtx, tns, EntryChunks};
use arrow_tensor_ipc::input::{Input, InputOptions};
use arrow_tensor_ipc::record_batch::MessageOptions;
use arrow_tensor_ipc::{Message, SparseFormat, TensorInfo, TensorOrigin};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The arguments of `tile`.
#[derive(clap::Args, Debug)]
pub struct TileArgs {
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
}

impl TileArgs {
    /// The job the arguments describe; an error names a flag whose value is not valid.
    fn job(self) -> Result<TileJob, String> {
        let memory = parse_size(&self.memory).map_err(|e| format!("--memory: {e}"))?;
        let mut batch_options = MessageOptions::default();
        if let Some(c) = self.column {
            batch_options = batch_options.with_column(c);
        }
        let mut input_options = self
            .read
            .input_options()
            .with_batch_options(batch_options)
            .with_threads(self.threads)
            .with_expand_symmetry(!self.as_stored);
        if let Some(shape) = self.shape {
            input_options = input_options.with_shape(shape);
        }
        Ok(TileJob {
            input: self.input,
            dir: self.dir,
            tile_shape: self.tile_shape,
            memory,
            threads: self.threads,
            input_options,
        })
    }
}

/// What `tile` is asked to do.
pub struct TileJob {
    /// The input (`-`: standard input).
    pub input: PathBuf,
    /// The dataset's directory (created; must be empty).
    pub dir: PathBuf,
    /// The tile extents.
    pub tile_shape: Vec<usize>,
    /// The memory budget in bytes.
    pub memory: usize,
    /// Threads (0: one per core).
    pub threads: usize,
    /// How the input is read (validation, limits, the tensor column of a record-batch
    /// input, FROSTT shape, Matrix Market symmetry, threads).
    pub input_options: InputOptions<'static>,
}

/// Parses a byte size: `123`, `64K`, `16M`, `2G` (powers of 1024; a trailing `B` or `iB`
/// is allowed).
fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, shift) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (&t[..i], 10),
        Some((i, 'M' | 'm')) => (&t[..i], 20),
        Some((i, 'G' | 'g')) => (&t[..i], 30),
        Some((i, 'T' | 't')) => (&t[..i], 40),
        _ => (t, 0),
    };
    digits
        .trim()
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(1usize << shift))
        .ok_or_else(|| format!("{text:?} is not a size (such as 512M, 2G or 1048576)"))
}

/// Runs `tile`.
pub fn run(args: TileArgs, out: &mut dyn Write) -> io::Result<Outcome> {
    let job = match args.job() {
        Ok(j) => j,
        Err(e) => {
            report(e);
            return Ok(Outcome::Failed);
        }
    };
    let input = match open::open(&job.input, &job.input_options) {
        Ok(i) => i,
        Err(e) => {
            report(e);
            return Ok(Outcome::Failed);
        }
    };
    let name = input.name().to_string();
    let options = DatasetWriteOptions::default()
        .with_memory(job.memory)
        .with_threads(job.threads);
    let kind = input.kind();
    let result = match (kind, input.path().map(Path::to_path_buf)) {
        (FileKind::MatrixMarket | FileKind::Frostt, Some(path)) => {
            match text_chunks(kind, &path, &job, None) {
                Ok(Some(chunks)) => tile_text(chunks, kind, &path, &job, &options),
                Ok(None) => tile_tensors(input, &job, &options),
                Err(e) => Err(e),
            }
        }
        _ => tile_tensors(input, &job, &options),
    };
    match result {
        Ok(m) => {
            let files: usize = m.tiles.iter().map(|t| t.files.len()).sum();
            writeln!(
                out,
                "{}: {} stored values of shape {:?} in {} tiles (grid {:?}), {files} files",
                job.dir.display(),
                m.nnz,
                m.info.shape,
                m.tiles.len(),
                m.grid
            )?;
            Ok(Outcome::Ok)
        }
        Err(e) => {
            report(format_args!("{name}: {e}"));
            Ok(Outcome::Failed)
        }
    }
}

/// The memory-mapped text file's entries, a batch at a time; `None` for a Matrix Market
/// array (dense) file, which has no entries to stream.
fn text_chunks(
    kind: FileKind,
    path: &Path,
    job: &TileJob,
    shape: Option<Vec<usize>>,
) -> Result<Option<EntryChunks>, String> {
    let data = open::map(path).map_err(|e| format!("cannot map: {e}"))?;
    let mut o = job.input_options.format_options();
    if let Some(s) = shape {
        o = o.with_shape(s);
    }
    // Batches of about 1/16 of the budget (the parser holds a few at once).
    let rank = match kind {
        FileKind::MatrixMarket => 2,
        _ => 4,
    };
    let per_entry = rank * 8 + 8;
    let entries = (job.memory / 16 / per_entry).clamp(1 << 12, 1 << 20);
    let chunks = match kind {
        FileKind::MatrixMarket => {
            let mo = mtx::MtxReadOptions::from(&o).with_chunk_entries(entries);
            match mtx::read_chunks(data, &mo) {
                Ok(c) => c,
                Err(e)
                    if matches!(
                        e.kind(),
                        arrow_tensor_ipc::ErrorKind::UnsupportedLayout { .. }
                    ) =>
                {
                    return Ok(None)
                }
                Err(e) => return Err(e.to_string()),
            }
        }
        _ => {
            let to = tns::TnsReadOptions::from(&o).with_chunk_entries(entries);
            tns::read_chunks(data, &to).map_err(|e| e.to_string())?
        }
    };
    Ok(Some(chunks))
}

/// Tiles a text file's batches.
fn tile_text(
    mut chunks: EntryChunks,
    kind: FileKind,
    path: &Path,
    job: &TileJob,
    options: &DatasetWriteOptions,
) -> Result<Manifest, String> {
    if chunks.header().shape.is_none() {
        // A FROSTT file without a shape: a first pass for its extent.
        for batch in chunks.by_ref() {
            batch.map_err(|e| e.to_string())?;
        }
        let extent = chunks.extent();
        chunks = text_chunks(kind, path, job, Some(extent))?
            .ok_or_else(|| "the file changed between two passes".to_string())?;
    }
    let header = chunks.header().clone();
    let shape = chunks.extent();
    let info = TensorInfo::new(&shape, header.value_type);
    let mut writer = new_writer(job, &info, options)?;
    for batch in chunks {
        let batch = batch.map_err(|e| e.to_string())?;
        writer
            .write_batch(&batch)
            .map_err(|e| dataset_error(&job.dir, e))?;
    }
    writer.finish().map_err(|e| dataset_error(&job.dir, e))
}

/// The writer of the dataset `job.dir`: a local directory, or (feature `object-store`) an
/// object-store URL (credentials and endpoint from the environment).
fn new_writer(
    job: &TileJob,
    info: &TensorInfo,
    options: &DatasetWriteOptions,
) -> Result<DatasetWriter, String> {
    #[cfg(feature = "object-store")]
    if let Some(url) = job
        .dir
        .to_str()
        .filter(|u| arrow_tensor_ipc::storage::is_url(u))
    {
        let storage = arrow_tensor_ipc::storage::StorageOptions::new();
        return DatasetWriter::new_url(url, &storage, info, &job.tile_shape, options)
            .map_err(|e| dataset_error(&job.dir, e));
    }
    DatasetWriter::new(&job.dir, info, &job.tile_shape, options)
        .map_err(|e| dataset_error(&job.dir, e))
}

fn dataset_error(dir: &Path, e: arrow_tensor_ipc::Error) -> String {
    format!("cannot write the dataset {}: {e}", dir.display())
}

/// Tiles the tensors of any other input (one tensor; a COO table's record batches are
/// parts of one tensor).
fn tile_tensors(
    input: Input<'_>,
    job: &TileJob,
    options: &DatasetWriteOptions,
) -> Result<Manifest, String> {
    let tensors = input.tensors().map_err(|e| e.to_string())?;
    let mut writer: Option<DatasetWriter> = None;
    let mut first_at = String::new();
    for item in tensors {
        let tensor = item.map_err(|e| Failure::of(&e).placed())?;
        let origin = tensor.origin();
        let at = origin.to_string();
        let batch_part = matches!(origin, TensorOrigin::Batch { .. });
        let message = tensor.into_message();
        let w = match &mut writer {
            Some(w) => {
                if !batch_part {
                    return Err(format!(
                        "{at}: a second tensor (after {first_at}): tile cuts one tensor"
                    ));
                }
                w
            }
            None => {
                first_at = at.clone();
                let info = match &message {
                    Message::SparseTensor(t) => TensorInfo::of_sparse(t),
                    Message::Tensor(t) => TensorInfo::of_dense(t).with_format(SparseFormat::Coo),
                };
                writer.insert(new_writer(job, &info, options)?)
            }
        };
        match &message {
            Message::SparseTensor(t) => w.write_sparse(t),
            Message::Tensor(t) => w.write_dense(t),
        }
        .map_err(|e| format!("{at}: {}", dataset_error(&job.dir, e)))?;
    }
    match writer {
        Some(w) => w.finish().map_err(|e| dataset_error(&job.dir, e)),
        None => Err("no tensor to tile".into()),
    }
}
