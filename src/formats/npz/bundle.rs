//! Bundles of named arrays (`numpy.savez`, `numpy.savez_compressed`): one dense message
//! per member, read and written; and the reader of either kind of `.npz`.

use super::sparse::read_sparse;
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

/// Reads an archive of either kind (see [`super::read`]).
pub(super) fn read_archive<R: Read + Seek>(reader: R, limits: &Limits) -> Result<Vec<Message>> {
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
    npy::read_tensor(bytes, limits).map_err(|e| in_member(member, e))
}

/// Writes dense tensors as a bundle of named arrays (`numpy.savez` /
/// `numpy.savez_compressed`), one member at a time, for [`numpy.load`] to read.
///
/// Each tensor becomes a `.npy` member (see [`super::npy::write`]: C or Fortran order
/// straight from its buffer, other layouts as a row-major copy; dimension names dropped)
/// named `NAME.npy`, where `NAME` is the name given to [`BundleWriter::write_tensor`]
/// (by [`BundleWriter::write`]: the message's [`NAME_KEY`] metadata) or, for an unnamed
/// one, `arr_0`, `arr_1`, ... counted over the unnamed tensors, as `numpy.savez` names its
/// positional arguments. A name used twice is an [`ErrorKind::DuplicateName`].
///
/// [`numpy.load`]: https://numpy.org/doc/stable/reference/generated/numpy.load.html
pub struct BundleWriter<W: Write + Seek> {
    zip: zip::ZipWriter<W>,
    compressed: bool,
    names: std::collections::HashSet<String>,
    unnamed: usize,
}

impl<W: Write + Seek> BundleWriter<W> {
    /// A writer of a bundle into `out` (members stored, or deflated per
    /// [`NpzWriteOptions::compressed`]).
    pub fn new(out: W, options: &NpzWriteOptions) -> Self {
        BundleWriter {
            zip: zip::ZipWriter::new(out),
            compressed: options.compressed,
            names: std::collections::HashSet::new(),
            unnamed: 0,
        }
    }

    /// Writes a dense message as a member named by its [`Message::name`]; returns the
    /// name. A sparse message is an [`ErrorKind::UnsupportedLayout`] (a bundle holds dense
    /// arrays: expand it first).
    pub fn write(&mut self, message: &Message) -> Result<String> {
        match message {
            Message::Tensor(t) => self.write_tensor(message.name(), t),
            Message::SparseTensor(_) => Err(ErrorKind::UnsupportedLayout {
                operation: "a .npz bundle of named arrays",
                expected: "dense tensors (expand a sparse one to dense first, or write it alone \
                           as a scipy sparse bundle)",
                found: "a sparse tensor".into(),
            }
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
            return Err(ErrorKind::DuplicateName {
                what: "arrays of the bundle",
                name,
                note: "",
            }
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
        npy::write_tensor(tensor, &mut self.zip)?;
        self.names.insert(name.clone());
        Ok(name)
    }

    /// Writes the archive's central directory; returns the output.
    pub fn finish(self) -> Result<W> {
        finish_archive(self.zip)
    }
}
