//! NumPy `.npy` files: one dense array, read into a [`Tensor`] message ([`read`]) and
//! written from one ([`write()`]).
//!
//! A `.npy` file is the magic `\x93NUMPY`, a version (1.0, 2.0 or 3.0), the length of a
//! header, the header (a Python dict literal with the keys `descr`, `fortran_order` and
//! `shape`) and the raw elements. The readers take the 11 numeric dtypes of [`ValueType`]
//! (`i1`..`i8`, `u1`..`u8`, `f2`, `f4`, `f8`), little- or big-endian (big-endian data is
//! converted to little-endian), in C order (row-major strides) or Fortran order
//! (column-major strides, no transposing copy). Booleans, strings, objects, complex numbers,
//! dates and structured dtypes are refused with [`ErrorKind::TypeMismatch`]. The data is read
//! without a copy when it is little-endian and aligned in the input buffer.
//!
//! The header is parsed here rather than by `npyz`: npyz's header reader allocates the
//! header length the file claims before reading it (up to 4 GiB for a version 2 header),
//! multiplies the shape without an overflow check (a panic in debug builds) and parses the
//! dict with a recursive Python-literal parser. This parser reads only the bytes present,
//! accepts exactly the literal numpy writes (any key order, either quote, optional trailing
//! commas and whitespace) and checks every size against [`Limits`] and the bytes present
//! before any allocation. The elements are then copied in bulk (or not at all).
//!
//! Writing ([`write()`]) produces a version 1.0 file (2.0 when the header needs more than
//! 65535 bytes) with the header padded to 64 bytes as numpy does. `.npy` files have no
//! dimension names: a tensor's names are dropped.

// Untrusted input: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod header;

pub(crate) use header::{descr_of, header_bytes, parse_header};

use crate::codec::{Limits, Message};
use crate::error::{ErrorKind, Location, Result};
use crate::tensor::{column_major_strides, element_count, row_major_strides, Tensor};
use crate::types::ValueType;
use arrow_buffer::{Buffer, MutableBuffer};
use header::{numeric_type, parse_error, Header};
use std::io::Write;

/// Options of [`read`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct NpyReadOptions {
    /// Size limits: `max_rank`, `max_dense_elements` elements, `max_body_len` data bytes.
    pub limits: Limits,
}

impl NpyReadOptions {
    /// Sets [`NpyReadOptions::limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
}

/// Options of [`write()`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct NpyWriteOptions {
    /// Bounds the expansion of a sparse message to a dense array
    /// (`max_dense_elements`).
    pub limits: Limits,
}

impl NpyWriteOptions {
    /// Sets [`NpyWriteOptions::limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
}

/// Header checks shared by both readers: the value type, the data length, the limits.
/// Returns the value type, whether it is big-endian, and the byte strides.
fn check(header: &Header, data_len: usize, limits: &Limits) -> Result<(ValueType, bool, usize)> {
    let (t, big) = match &header.descr {
        None => {
            return Err(ErrorKind::TypeMismatch {
                expected: "a numeric dtype (int8..uint64, float16..float64)".into(),
                found: "a structured dtype".into(),
            }
            .into())
        }
        Some(d) => numeric_type(d).ok_or_else(|| ErrorKind::TypeMismatch {
            expected: "a numeric dtype (int8..uint64, float16..float64)".into(),
            found: if d.ends_with("b1") || d == "?" {
                format!("bool ({d:?}): convert it to uint8 first")
            } else {
                format!("dtype {d:?}")
            },
        })?,
    };
    let count = element_count(&header.shape).ok_or_else(|| ErrorKind::Overflow {
        quantity: crate::Quantity::ElementCount {
            shape: header.shape.clone(),
        },
    })?;
    if count > limits.max_dense_elements {
        return Err(ErrorKind::LimitExceeded {
            what: "npy element count",
            value: count as u64,
            limit: limits.max_dense_elements as u64,
        }
        .into());
    }
    let nbytes = count
        .checked_mul(t.byte_width())
        .ok_or_else(|| ErrorKind::Overflow {
            quantity: crate::Quantity::ByteSize {
                shape: header.shape.clone(),
            },
        })?;
    if nbytes as u64 > limits.max_body_len {
        return Err(ErrorKind::LimitExceeded {
            what: "npy data length",
            value: nbytes as u64,
            limit: limits.max_body_len,
        }
        .into());
    }
    if data_len != nbytes {
        let what = if data_len < nbytes {
            "the data is truncated"
        } else {
            "bytes follow the data"
        };
        return Err(parse_error(
            Location::Byte(header.data_offset as u64),
            format!(
                "{what}: shape {:?} of {t} needs {nbytes} bytes, {data_len} present",
                header.shape
            ),
        ));
    }
    Ok((t, big, nbytes))
}

fn strides(header: &Header, t: ValueType) -> Vec<usize> {
    if header.fortran {
        column_major_strides(&header.shape, t.byte_width())
    } else {
        row_major_strides(&header.shape, t.byte_width())
    }
}

/// Copies `data` into fresh aligned memory, swapping the byte order of each element of
/// `width` bytes when `swap` is set.
fn aligned_copy(data: &[u8], width: usize, swap: bool) -> Buffer {
    let mut out = MutableBuffer::from_len_zeroed(data.len());
    out.as_slice_mut().copy_from_slice(data);
    if swap {
        for c in out.as_slice_mut().chunks_exact_mut(width) {
            c.reverse();
        }
    }
    out.into()
}

/// Reads a `.npy` file into one dense [`Message::Tensor`].
///
/// `data` is anything that becomes an Arrow [`Buffer`]: a `Vec<u8>`, `bytes::Bytes` (such
/// as a memory map) or a `Buffer` is not copied, and the tensor's data is a slice of it
/// when the file is little-endian and its data aligned for the value type (numpy pads the
/// header so that the data starts at a multiple of 64 bytes); a `&[u8]` is copied once.
/// Big-endian or misaligned data is copied.
///
/// C-order files get row-major strides, Fortran-order files column-major strides (the data
/// is not transposed); big-endian data is converted to little-endian. Malformed files are
/// [`ErrorKind::Parse`] errors naming the header or byte offset; a dtype other than the 11
/// numeric ones is an [`ErrorKind::TypeMismatch`]; sizes over the limits
/// (`max_rank`, `max_dense_elements` elements, `max_body_len` data bytes) are
/// [`ErrorKind::LimitExceeded`].
///
/// ```
/// use arrow_tensor_ipc::formats::npy;
/// use arrow_tensor_ipc::{Message, Scalar, Tensor};
///
/// let t = Tensor::from_vec(vec![2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let mut file = Vec::new();
/// npy::write(&[Message::from(t.clone())], &mut file, &npy::NpyWriteOptions::default())?;
/// assert!(file.starts_with(b"\x93NUMPY"));
///
/// let buffer = arrow_buffer::Buffer::from_vec(file);
/// let back = npy::read(buffer.clone(), &npy::NpyReadOptions::default())?;
/// let back = back[0].as_tensor().unwrap();
/// assert_eq!(back.shape(), &[2, 3]);
/// assert_eq!(back.get(&[1, 2])?, Scalar::Float32(6.0));
/// assert!(back.content_eq(&t));
/// // The data is the file's own bytes, after the header (padded to 128).
/// assert_eq!(back.data().as_ptr(), buffer.as_slice()[128..].as_ptr());
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read(data: impl Into<Buffer>, options: &NpyReadOptions) -> Result<Vec<Message>> {
    read_tensor(data.into(), &options.limits).map(|t| vec![Message::Tensor(t)])
}

/// Reads a `.npy` file held in a buffer into a tensor, as [`read`].
pub(crate) fn read_tensor(buffer: Buffer, limits: &Limits) -> Result<Tensor> {
    let header = parse_header(buffer.as_slice(), limits)?;
    let data_len = buffer.len().saturating_sub(header.data_offset);
    let (t, big, nbytes) = check(&header, data_len, limits)?;
    let w = t.byte_width();
    let data = buffer.slice_with_length(header.data_offset, nbytes);
    let data = if big || !(data.as_ptr() as usize).is_multiple_of(w) {
        aligned_copy(data.as_slice(), w, big)
    } else {
        data
    };
    let strides = strides(&header, t);
    Tensor::try_new(t, header.shape, strides, data)
}

/// Writes one message as a `.npy` file (little-endian, format version 1.0): a dense tensor
/// as it is, a sparse one expanded to dense (up to `options.limits.max_dense_elements`
/// elements). A file holds one array: any other number of messages is refused.
///
/// A row-major tensor is written in C order and a column-major one with
/// `fortran_order: True`, both straight from its buffer; a tensor with other strides is
/// written in C order from a row-major copy. `.npy` files have no dimension names: the
/// tensor's names are dropped.
///
/// ```
/// use arrow_tensor_ipc::formats::npy;
/// use arrow_tensor_ipc::{column_major_strides, Message, Tensor, ValueType};
///
/// // A column-major 2 x 2 tensor keeps its layout: the file says fortran_order True.
/// let data = arrow_buffer::Buffer::from_vec(vec![1u16, 2, 3, 4]);
/// let t = Tensor::try_new(ValueType::UInt16, vec![2, 2], column_major_strides(&[2, 2], 2), data)?;
/// let mut file = Vec::new();
/// npy::write(&[Message::from(t.clone())], &mut file, &npy::NpyWriteOptions::default())?;
/// assert!(std::str::from_utf8(&file[10..64]).unwrap().contains("'fortran_order': True"));
/// let back = npy::read(file, &npy::NpyReadOptions::default())?;
/// let back = back[0].as_tensor().unwrap();
/// assert_eq!(back.strides(), t.strides());
/// assert_eq!(back.to_vec::<u16>()?, vec![1, 3, 2, 4]);
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn write<W: Write>(messages: &[Message], mut out: W, options: &NpyWriteOptions) -> Result<()> {
    write_to(messages, &mut out, options)
}

/// [`write`] (not generic: compiled in this crate only).
fn write_to(messages: &[Message], out: &mut dyn Write, options: &NpyWriteOptions) -> Result<()> {
    match super::one_message(messages, "writing a .npy file")? {
        Message::Tensor(t) => write_tensor(t, out),
        Message::SparseTensor(s) => {
            let dense = crate::ConvertOptions::default().with_limits(options.limits);
            write_tensor(&s.to_dense_with(&dense)?, out)
        }
    }
}

/// Writes a tensor as a `.npy` file, as [`write()`].
pub(crate) fn write_tensor<W: Write>(tensor: &Tensor, mut out: W) -> Result<()> {
    let t = tensor.value_type();
    let n = tensor.len() * t.byte_width();
    let fortran = !tensor.is_row_major() && tensor.is_column_major();
    let header = header_bytes(descr_of(t), fortran, tensor.shape());
    out.write_all(&header)?;
    if fortran {
        out.write_all(tensor.data().as_slice().get(..n).unwrap_or_default())?;
    } else {
        out.write_all(tensor.row_major_bytes().as_slice())?;
    }
    out.flush()?;
    Ok(())
}
