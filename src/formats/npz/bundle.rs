//! Bundles of named arrays (`numpy.savez`, `numpy.savez_compressed`): one dense message
//! per member, read and written; and the reader and writer of either kind of `.npz`.

use super::sparse::{read_sparse, write_npz};
use super::{
    entry_error, finish_archive, in_member, member_error, member_options, npy, open_archive,
    read_file, Members, NpzWriteOptions, FORMAT_MEMBER,
};
use crate::codec::{Limits, Message};
use crate::custom_metadata::{CustomMetadata, NAME_KEY};
use crate::error::{ErrorKind, Location, Result};
use crate::tensor::Tensor;
use arrow_buffer::Buffer;
use npyz::zip;
use std::io::{Read, Seek, Write};

/// Reads an `.npz` archive into messages: a scipy sparse bundle (one holding a
/// `format.npy` member of text, as `scipy.sparse.save_npz` writes it) gives its one
/// [`SparseTensor`], as [`read_npz`] reads it; any other archive is a bundle of named
/// arrays (`numpy.savez`, `numpy.savez_compressed`) and gives one dense [`Tensor`] per
/// member, in archive order, each with its name (the member's file name without `.npy`,
/// the key `numpy.load` gives it) in its [`CustomMetadata`] under [`NAME_KEY`].
///
/// Each member must be a `.npy` of one of the 11 numeric dtypes ([`super::npy`]): an object
/// array (`|O`, whose elements are pickled Python objects), a pickle, a bool or string
/// array, or anything else is an [`ErrorKind::Parse`] naming the member (pickles are never
/// loaded). Directory entries are skipped; two members of the same name are refused.
///
/// Sizes are checked before anything is read: every member's declared size as for
/// [`read_npz`] (at most [`Limits::max_body_len`] and what its compressed bytes can
/// inflate to; inflation stops at the declared size), the members' compressed sizes
/// together at most the archive's length (members sharing compressed bytes, the trick of
/// overlapping zip bombs, are refused), and their declared sizes together at most
/// [`Limits::max_body_len`] ([`ErrorKind::LimitExceeded`]). Each array is then read
/// zero-copy from its member's bytes when aligned and little-endian.
///
/// ```
/// use arrow_tensor_ipc::formats::npz::{read_npz_messages, write_npz_messages, NpzWriteOptions};
/// use arrow_tensor_ipc::{CustomMetadata, Limits, Message, Tensor, NAME_KEY};
/// use std::io::Cursor;
///
/// let w = Tensor::from_vec(vec![2, 2], vec![0.5f32, 1.5, 2.5, 3.5])?;
/// let ids = Tensor::from_vec(vec![3], vec![7i64, 8, 9])?;
/// let messages = [
///     Message::from(w).with_custom_metadata(CustomMetadata::new([(NAME_KEY, "weights")])),
///     Message::from(ids), // unnamed: written as arr_0, as numpy.savez names it
/// ];
/// let mut file = Cursor::new(Vec::new());
/// write_npz_messages(&messages, &mut file, &NpzWriteOptions { compressed: true })?;
///
/// let back = read_npz_messages(Cursor::new(file.into_inner()), &Limits::default())?;
/// assert_eq!(back.len(), 2);
/// assert_eq!(back[0].name(), Some("weights"));
/// assert_eq!(back[1].name(), Some("arr_0"));
/// assert_eq!(back[1].as_tensor().unwrap().to_vec::<i64>()?, vec![7, 8, 9]);
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read_npz_messages<R: Read + Seek>(reader: R, limits: &Limits) -> Result<Vec<Message>> {
    let mut m = open_archive(reader, limits)?;
    if m.has(FORMAT_MEMBER) && m.format_is_text()? {
        return Ok(vec![Message::SparseTensor(read_sparse(&mut m)?)]);
    }
    read_bundle(&mut m)
}

/// Reads every member of a bundle of named arrays as a dense message.
fn read_bundle<R: Read + Seek>(m: &mut Members<'_, R>) -> Result<Vec<Message>> {
    // First pass over the central directory: the sizes of the whole bundle.
    let count = m.zip.len();
    let (mut compressed_total, mut size_total) = (0u64, 0u64);
    let mut names = std::collections::HashSet::new();
    for i in 0..count {
        let file = m.zip.by_index_raw(i).map_err(|e| entry_error(i, e))?;
        if file.is_dir() {
            continue;
        }
        let name = file.name().to_string();
        if !names.insert(name.clone()) {
            return Err(member_error(
                &name,
                "the archive holds two members of this name",
            ));
        }
        compressed_total = compressed_total.saturating_add(file.compressed_size());
        size_total = size_total.saturating_add(file.size());
    }
    if compressed_total > m.archive_len {
        return Err(ErrorKind::Parse {
            format: "npz",
            location: Location::File,
            reason: format!(
                "the members' compressed sizes add up to {compressed_total} bytes, more than \
                 the archive's {} (members that share bytes are refused)",
                m.archive_len
            ),
        }
        .into());
    }
    if size_total > m.limits.max_body_len {
        return Err(ErrorKind::LimitExceeded {
            what: "npz bundle size (all members)",
            value: size_total,
            limit: m.limits.max_body_len,
        }
        .into());
    }
    let mut out = Vec::with_capacity(names.len());
    for i in 0..count {
        let file = m.zip.by_index(i).map_err(|e| entry_error(i, e))?;
        if file.is_dir() {
            continue;
        }
        let member = file.name().to_string();
        let bytes = read_file(file, &member, m.archive_len, m.limits)?;
        let tensor = array_member(&member, bytes, m.limits)?;
        let name = member.strip_suffix(".npy").unwrap_or(&member);
        out.push(Message::Tensor(
            tensor.with_custom_metadata(CustomMetadata::new([(NAME_KEY, name)])),
        ));
    }
    Ok(out)
}

/// A member of a bundle of named arrays as a tensor; pickles and object arrays are named as
/// such, and never loaded.
fn array_member(member: &str, bytes: Buffer, limits: &Limits) -> Result<Tensor> {
    let head = bytes.as_slice();
    // A pickle starts with the PROTO opcode (protocol 2 and later).
    if head.first() == Some(&0x80) {
        return Err(member_error(
            member,
            "a Python pickle, not a .npy array: pickles are never loaded",
        ));
    }
    let header = npy::parse_header(head, limits).map_err(|e| in_member(member, e))?;
    if let Some(d) = header.descr.as_deref() {
        if d.ends_with('O') {
            return Err(member_error(
                member,
                format!(
                    "an object array (dtype {d:?}): its elements are pickled Python objects, \
                     which are never loaded"
                ),
            ));
        }
    }
    npy::read_npy_buffer(bytes, limits).map_err(|e| in_member(member, e))
}

/// Writes dense tensors as a bundle of named arrays (`numpy.savez` /
/// `numpy.savez_compressed`), one member at a time, for [`numpy.load`] to read.
///
/// Each tensor becomes a `.npy` member (see [`super::npy::write_npy`]: C or Fortran order
/// straight from its buffer, other layouts as a row-major copy; dimension names dropped)
/// named `NAME.npy`, where `NAME` is the name given to [`NpzBundleWriter::write_tensor`]
/// (by [`NpzBundleWriter::write`]: the message's [`NAME_KEY`] metadata) or, for an unnamed
/// one, `arr_0`, `arr_1`, ... counted over the unnamed tensors, as `numpy.savez` names its
/// positional arguments. A name used twice is an [`ErrorKind::InvalidArgument`].
///
/// [`numpy.load`]: https://numpy.org/doc/stable/reference/generated/numpy.load.html
pub struct NpzBundleWriter<W: Write + Seek> {
    zip: zip::ZipWriter<W>,
    compressed: bool,
    names: std::collections::HashSet<String>,
    unnamed: usize,
}

impl<W: Write + Seek> NpzBundleWriter<W> {
    /// A writer of a bundle into `out` (members stored, or deflated per
    /// [`NpzWriteOptions::compressed`]).
    pub fn new(out: W, options: &NpzWriteOptions) -> Self {
        NpzBundleWriter {
            zip: zip::ZipWriter::new(out),
            compressed: options.compressed,
            names: std::collections::HashSet::new(),
            unnamed: 0,
        }
    }

    /// Writes a dense message as a member named by its [`Message::name`]; returns the
    /// name. A sparse message is an [`ErrorKind::InvalidArgument`] (a bundle holds dense
    /// arrays: expand it first).
    pub fn write(&mut self, message: &Message) -> Result<String> {
        match message {
            Message::Tensor(t) => self.write_tensor(message.name(), t),
            Message::SparseTensor(_) => Err(ErrorKind::InvalidArgument(
                "a .npz bundle of named arrays holds dense arrays; this message is sparse \
                 (expand it to dense first, or write it alone as a scipy sparse bundle)"
                    .into(),
            )
            .into()),
        }
    }

    /// Writes a tensor as the member `NAME.npy` (`name`, else the next `arr_N`); returns
    /// the name.
    pub fn write_tensor(&mut self, name: Option<&str>, tensor: &Tensor) -> Result<String> {
        let name = match name {
            Some(n) => n.to_string(),
            None => {
                self.unnamed += 1;
                format!("arr_{}", self.unnamed - 1)
            }
        };
        if self.names.contains(&name) {
            return Err(ErrorKind::InvalidArgument(format!(
                "two arrays of the bundle are named {name:?}"
            ))
            .into());
        }
        let total = (tensor.len() as u64)
            .saturating_mul(tensor.value_type().byte_width() as u64)
            .saturating_add(1 << 16);
        self.zip
            .start_file(
                format!("{name}.npy"),
                member_options(self.compressed, total),
            )
            .map_err(|e| ErrorKind::Io(std::io::Error::other(e)))?;
        npy::write_npy(tensor, &mut self.zip)?;
        self.names.insert(name.clone());
        Ok(name)
    }

    /// Writes the archive's central directory; returns the output.
    pub fn finish(self) -> Result<W> {
        finish_archive(self.zip)
    }
}

/// Writes messages as an `.npz` archive, the counterpart of [`read_npz_messages`]: one
/// sparse message as a scipy sparse bundle ([`write_npz`]), dense messages as a bundle of
/// named arrays ([`NpzBundleWriter`]: names from [`NAME_KEY`], else `arr_0`, `arr_1`, ...).
/// Sparse messages among others, or a name used twice, are an
/// [`ErrorKind::InvalidArgument`]. See [`read_npz_messages`] for an example.
pub fn write_npz_messages<'a, W: Write + Seek>(
    messages: impl IntoIterator<Item = &'a Message>,
    out: W,
    options: &NpzWriteOptions,
) -> Result<()> {
    let messages: Vec<&Message> = messages.into_iter().collect();
    if let [Message::SparseTensor(t)] = messages.as_slice() {
        return write_npz(t, out, options);
    }
    let mut w = NpzBundleWriter::new(out, options);
    for m in messages {
        w.write(m)?;
    }
    w.finish().map(drop)
}
