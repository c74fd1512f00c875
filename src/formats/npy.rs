//! NumPy `.npy` files: one dense array, read into a [`Tensor`] and written from one.
//!
//! A `.npy` file is the magic `\x93NUMPY`, a version (1.0, 2.0 or 3.0), the length of a
//! header, the header (a Python dict literal with the keys `descr`, `fortran_order` and
//! `shape`) and the raw elements. The readers take the 11 numeric dtypes of [`ValueType`]
//! (`i1`..`i8`, `u1`..`u8`, `f2`, `f4`, `f8`), little- or big-endian (big-endian data is
//! converted to little-endian), in C order (row-major strides) or Fortran order
//! (column-major strides, no transposing copy). Booleans, strings, objects, complex numbers,
//! dates and structured dtypes are refused with [`ErrorKind::TypeMismatch`].
//!
//! The header is parsed here rather than by `npyz`: npyz's header reader allocates the
//! header length the file claims before reading it (up to 4 GiB for a version 2 header),
//! multiplies the shape without an overflow check (a panic in debug builds) and parses the
//! dict with a recursive Python-literal parser. This parser reads only the bytes present,
//! accepts exactly the literal numpy writes (any key order, either quote, optional trailing
//! commas and whitespace) and checks every size against [`Limits`] and the bytes present
//! before any allocation. The elements are then copied in bulk (or not at all).
//!
//! Writing ([`write_npy`]) produces a version 1.0 file (2.0 when the header needs more than
//! 65535 bytes) with the header padded to 64 bytes as numpy does. `.npy` files have no
//! dimension names: a tensor's names are dropped.

// Untrusted input: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::codec::Limits;
use crate::error::{ErrorKind, Location, Result};
use crate::tensor::{column_major_strides, element_count, row_major_strides, Tensor};
use crate::types::ValueType;
use arrow_buffer::{Buffer, MutableBuffer};
use std::io::Write;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

pub(crate) fn parse_error(location: Location, reason: impl Into<String>) -> crate::Error {
    ErrorKind::Parse {
        format: "npy",
        location,
        reason: reason.into(),
    }
    .into()
}

/// The parsed header of a `.npy` file.
#[derive(Clone, Debug)]
pub(crate) struct Header {
    /// The dtype string as written (`'<f8'`, `'|S3'`, ...); `None` for a structured dtype.
    pub(crate) descr: Option<String>,
    /// `fortran_order`.
    pub(crate) fortran: bool,
    /// The shape.
    pub(crate) shape: Vec<usize>,
    /// Byte offset of the first element.
    pub(crate) data_offset: usize,
}

/// A numeric dtype: the value type and whether the file stores it big-endian.
pub(crate) fn numeric_type(descr: &str) -> Option<(ValueType, bool)> {
    let bytes = descr.as_bytes();
    let (&order, kind) = bytes.split_first()?;
    let (big, kind) = match order {
        b'<' | b'|' | b'=' => (false, kind),
        b'>' => (true, kind),
        _ => (false, bytes),
    };
    let t = match kind {
        b"i1" | b"b" => ValueType::Int8,
        b"u1" | b"B" => ValueType::UInt8,
        b"i2" => ValueType::Int16,
        b"u2" => ValueType::UInt16,
        b"i4" => ValueType::Int32,
        b"u4" => ValueType::UInt32,
        b"i8" => ValueType::Int64,
        b"u8" => ValueType::UInt64,
        b"f2" => ValueType::Float16,
        b"f4" => ValueType::Float32,
        b"f8" => ValueType::Float64,
        _ => return None,
    };
    // '|' (byte order not applicable) is what numpy writes for one-byte types only.
    if order == b'|' && t.byte_width() != 1 {
        return None;
    }
    Some((t, big && t.byte_width() > 1))
}

/// The dtype string numpy writes for a value type (little-endian).
pub(crate) fn descr_of(t: ValueType) -> &'static str {
    match t {
        ValueType::Int8 => "|i1",
        ValueType::UInt8 => "|u1",
        ValueType::Int16 => "<i2",
        ValueType::UInt16 => "<u2",
        ValueType::Int32 => "<i4",
        ValueType::UInt32 => "<u4",
        ValueType::Int64 => "<i8",
        ValueType::UInt64 => "<u8",
        ValueType::Float16 => "<f2",
        ValueType::Float32 => "<f4",
        ValueType::Float64 => "<f8",
    }
}

/// A tokenizer over the header's Python dict literal.
struct Lexer<'a> {
    text: &'a [u8],
    pos: usize,
}

#[derive(Debug, PartialEq)]
enum Token<'a> {
    Punct(u8),
    Str(&'a str),
    Int(&'a str),
    Word(&'a str),
}

impl<'a> Lexer<'a> {
    fn err(&self, reason: impl std::fmt::Display) -> crate::Error {
        parse_error(
            Location::Header,
            format!("{reason} at header character {}", self.pos),
        )
    }

    fn next(&mut self) -> Result<Option<Token<'a>>> {
        while let Some(c) = self.text.get(self.pos) {
            if c.is_ascii_whitespace() {
                self.pos += 1;
            } else {
                break;
            }
        }
        let Some(&c) = self.text.get(self.pos) else {
            return Ok(None);
        };
        let start = self.pos;
        match c {
            b'{' | b'}' | b'(' | b')' | b'[' | b']' | b':' | b',' => {
                self.pos += 1;
                Ok(Some(Token::Punct(c)))
            }
            b'\'' | b'"' => {
                let rest = self.text.get(start + 1..).unwrap_or_default();
                let Some(len) = rest.iter().position(|&b| b == c) else {
                    return Err(self.err("unterminated string"));
                };
                let body = rest.get(..len).unwrap_or_default();
                if body.contains(&b'\\') {
                    return Err(self.err("escape sequences are not supported in the header"));
                }
                self.pos = start + 1 + len + 1;
                let s = std::str::from_utf8(body).map_err(|_| self.err("string is not UTF-8"))?;
                Ok(Some(Token::Str(s)))
            }
            b'0'..=b'9' => {
                let len = self
                    .text
                    .get(start..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                self.pos = start + len;
                let s = std::str::from_utf8(self.text.get(start..self.pos).unwrap_or_default())
                    .map_err(|_| self.err("bad number"))?;
                // Python 2 longs (`3L`) appear in headers numpy 1.x wrote under Python 2.
                if self.text.get(self.pos) == Some(&b'L') {
                    self.pos += 1;
                }
                Ok(Some(Token::Int(s)))
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let len = self
                    .text
                    .get(start..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
                self.pos = start + len;
                let s = std::str::from_utf8(self.text.get(start..self.pos).unwrap_or_default())
                    .map_err(|_| self.err("bad word"))?;
                Ok(Some(Token::Word(s)))
            }
            _ => Err(self.err(format!("unexpected character {:?}", c as char))),
        }
    }

    fn expect(&mut self) -> Result<Token<'a>> {
        self.next()?
            .ok_or_else(|| self.err("the header ends inside the dict"))
    }

    /// Skips a bracketed structured-dtype list without interpreting it (bounded by the
    /// header length; no recursion).
    fn skip_list(&mut self) -> Result<()> {
        let mut depth = 1usize;
        while depth > 0 {
            match self.expect()? {
                Token::Punct(b'[') | Token::Punct(b'(') => depth += 1,
                Token::Punct(b']') | Token::Punct(b')') => depth -= 1,
                _ => {}
            }
        }
        Ok(())
    }
}

fn parse_dict(text: &[u8], limits: &Limits) -> Result<(Option<String>, bool, Vec<usize>)> {
    let mut lx = Lexer { text, pos: 0 };
    if lx.expect()? != Token::Punct(b'{') {
        return Err(lx.err("the header is not a dict literal"));
    }
    let mut descr: Option<Option<String>> = None;
    let mut fortran: Option<bool> = None;
    let mut shape: Option<Vec<usize>> = None;
    loop {
        let key = match lx.expect()? {
            Token::Punct(b'}') => break,
            Token::Str(k) => k,
            _ => return Err(lx.err("expected a string key")),
        };
        if lx.expect()? != Token::Punct(b':') {
            return Err(lx.err("expected ':'"));
        }
        let duplicate = match key {
            "descr" => {
                let v = match lx.expect()? {
                    Token::Str(s) => Some(s.to_string()),
                    Token::Punct(b'[') => {
                        lx.skip_list()?;
                        None
                    }
                    _ => return Err(lx.err("'descr' is not a string")),
                };
                descr.replace(v).is_some()
            }
            "fortran_order" => {
                let v = match lx.expect()? {
                    Token::Word("True") => true,
                    Token::Word("False") => false,
                    _ => return Err(lx.err("'fortran_order' is not True or False")),
                };
                fortran.replace(v).is_some()
            }
            "shape" => {
                if lx.expect()? != Token::Punct(b'(') {
                    return Err(lx.err("'shape' is not a tuple"));
                }
                let mut dims = Vec::new();
                loop {
                    match lx.expect()? {
                        Token::Punct(b')') => break,
                        Token::Int(s) => {
                            let d: usize = s
                                .parse()
                                .map_err(|_| lx.err(format!("dimension {s} is too large")))?;
                            if dims.len() >= limits.max_rank {
                                return Err(ErrorKind::LimitExceeded {
                                    what: "npy rank",
                                    value: dims.len() as u64 + 1,
                                    limit: limits.max_rank as u64,
                                }
                                .into());
                            }
                            dims.push(d);
                            match lx.expect()? {
                                Token::Punct(b',') => {}
                                Token::Punct(b')') => break,
                                _ => return Err(lx.err("expected ',' or ')' in 'shape'")),
                            }
                        }
                        _ => return Err(lx.err("'shape' holds something other than integers")),
                    }
                }
                shape.replace(dims).is_some()
            }
            other => return Err(lx.err(format!("unexpected key {other:?}"))),
        };
        if duplicate {
            return Err(lx.err(format!("key {key:?} appears twice")));
        }
        match lx.expect()? {
            Token::Punct(b',') => {}
            Token::Punct(b'}') => break,
            _ => return Err(lx.err("expected ',' or '}'")),
        }
    }
    if lx.next()?.is_some() {
        return Err(lx.err("text after the dict"));
    }
    match (descr, fortran, shape) {
        (Some(d), Some(f), Some(s)) => Ok((d, f, s)),
        (d, f, _) => {
            let missing = if d.is_none() {
                "descr"
            } else if f.is_none() {
                "fortran_order"
            } else {
                "shape"
            };
            Err(parse_error(
                Location::Header,
                format!("the header dict has no key {missing:?}"),
            ))
        }
    }
}

/// Parses the magic, version and header dict at the start of `bytes`.
pub(crate) fn parse_header(bytes: &[u8], limits: &Limits) -> Result<Header> {
    let Some(magic) = bytes.get(..6) else {
        return Err(parse_error(
            Location::Header,
            format!("{} bytes is too short for the npy magic", bytes.len()),
        ));
    };
    if magic != MAGIC {
        return Err(parse_error(
            Location::Byte(0),
            "not a .npy file (bad magic; expected \\x93NUMPY)",
        ));
    }
    let (major, minor) = match bytes.get(6..8) {
        Some(&[a, b]) => (a, b),
        _ => {
            return Err(parse_error(
                Location::Header,
                "the file ends inside the version",
            ))
        }
    };
    let (len_bytes, utf8) = match (major, minor) {
        (1, 0) => (2usize, false),
        (2, 0) => (4, false),
        (3, 0) => (4, true),
        _ => {
            return Err(parse_error(
                Location::Byte(6),
                format!("unsupported npy version {major}.{minor}"),
            ))
        }
    };
    let header_len = match bytes.get(8..8 + len_bytes) {
        Some(&[a, b]) => u16::from_le_bytes([a, b]) as usize,
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]) as usize,
        _ => {
            return Err(parse_error(
                Location::Header,
                "the file ends inside the header length",
            ))
        }
    };
    let start = 8 + len_bytes;
    let Some(text) = start
        .checked_add(header_len)
        .and_then(|end| bytes.get(start..end))
    else {
        return Err(parse_error(
            Location::Header,
            format!(
                "the header claims {header_len} bytes, {} present",
                bytes.len().saturating_sub(start)
            ),
        ));
    };
    if !utf8 && !text.is_ascii() {
        return Err(parse_error(
            Location::Header,
            "a version 1.0/2.0 header holds a non-ASCII byte",
        ));
    }
    let (descr, fortran, shape) = parse_dict(text, limits)?;
    Ok(Header {
        descr,
        fortran,
        shape,
        data_offset: start + header_len,
    })
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

/// Reads a `.npy` file held in memory into a [`Tensor`] (its data copied into aligned
/// memory; see [`read_npy_buffer`] for a zero-copy read).
///
/// C-order files get row-major strides, Fortran-order files column-major strides (the data
/// is not transposed); big-endian data is converted to little-endian. Malformed files are
/// [`ErrorKind::Parse`] errors naming the header or byte offset; a dtype other than the 11
/// numeric ones is an [`ErrorKind::TypeMismatch`]; sizes over `limits`
/// (`max_rank`, `max_dense_elements` elements, `max_body_len` data bytes) are
/// [`ErrorKind::LimitExceeded`].
///
/// ```
/// use arrow_tensor_ipc::formats::npy::{read_npy, write_npy};
/// use arrow_tensor_ipc::{Limits, Scalar, Tensor};
///
/// let t = Tensor::from_vec(vec![2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let mut file = Vec::new();
/// write_npy(&t, &mut file)?;
/// assert!(file.starts_with(b"\x93NUMPY"));
///
/// let back = read_npy(&file, &Limits::default())?;
/// assert_eq!(back.shape(), &[2, 3]);
/// assert_eq!(back.get(&[1, 2])?, Scalar::Float32(6.0));
/// assert!(back.content_eq(&t));
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read_npy(bytes: &[u8], limits: &Limits) -> Result<Tensor> {
    let header = parse_header(bytes, limits)?;
    let data = bytes.get(header.data_offset..).unwrap_or_default();
    let (t, big, _) = check(&header, data.len(), limits)?;
    let buffer = aligned_copy(data, t.byte_width(), big);
    let strides = strides(&header, t);
    Tensor::try_new(t, header.shape, strides, buffer)
}

/// Reads a `.npy` file held in an Arrow [`Buffer`] into a [`Tensor`] without copying: the
/// tensor's data is a slice of `buffer` when the file is little-endian and its data is
/// aligned for the value type (numpy pads the header so that the data starts at a
/// multiple of 64 bytes; the buffer's own start must be aligned too). Big-endian or
/// misaligned data is copied. Errors as for [`read_npy`].
///
/// ```
/// use arrow_tensor_ipc::formats::npy::{read_npy_buffer, write_npy};
/// use arrow_tensor_ipc::{Limits, Tensor};
///
/// let t = Tensor::from_vec(vec![4], vec![1i64, -2, 3, -4])?;
/// let mut file = Vec::new();
/// write_npy(&t, &mut file)?;
/// let buffer = arrow_buffer::Buffer::from_vec(file);
///
/// let back = read_npy_buffer(buffer.clone(), &Limits::default())?;
/// assert_eq!(back.as_slice::<i64>(), Some(&[1i64, -2, 3, -4][..]));
/// // The data is the file's own bytes: the last 32, after the header (padded to 128).
/// assert_eq!(buffer.len(), 128 + 32);
/// assert_eq!(back.data().as_ptr(), buffer.as_slice()[128..].as_ptr());
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read_npy_buffer(buffer: Buffer, limits: &Limits) -> Result<Tensor> {
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

/// The header bytes (magic, version, length and the padded dict) of a `.npy` file.
pub(crate) fn header_bytes(descr: &str, fortran: bool, shape: &[usize]) -> Vec<u8> {
    let mut dims = String::new();
    for d in shape {
        dims.push_str(&d.to_string());
        dims.push_str(", ");
    }
    let dims = match shape.len() {
        0 => String::new(),
        1 => dims.trim_end().to_string(),
        _ => dims.trim_end_matches(", ").to_string(),
    };
    let fortran = if fortran { "True" } else { "False" };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': ({dims}), }}");
    // Version 1.0 has a 2-byte header length, 2.0 a 4-byte one; pad the whole header to a
    // multiple of 64 bytes, ending with a newline, as numpy does.
    let pad_to = |prefix: usize| (prefix + dict.len() + 1).div_ceil(64) * 64 - prefix;
    let (version, prefix) = if pad_to(10) <= u16::MAX as usize {
        (1u8, 10)
    } else {
        (2u8, 12)
    };
    let header_len = pad_to(prefix);
    let mut out = Vec::with_capacity(prefix + header_len);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header_len as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header_len as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(prefix + header_len - 1, b' ');
    out.push(b'\n');
    out
}

/// Writes a [`Tensor`] as a `.npy` file (little-endian, format version 1.0).
///
/// A row-major tensor is written in C order and a column-major one with
/// `fortran_order: True`, both straight from its buffer; a tensor with other strides is
/// written in C order from a row-major copy. `.npy` files have no dimension names: the
/// tensor's names are dropped.
///
/// ```
/// use arrow_tensor_ipc::formats::npy::{read_npy, write_npy};
/// use arrow_tensor_ipc::{column_major_strides, Limits, Tensor, ValueType};
///
/// // A column-major 2 x 2 tensor keeps its layout: the file says fortran_order True.
/// let data = arrow_buffer::Buffer::from_vec(vec![1u16, 2, 3, 4]);
/// let t = Tensor::try_new(ValueType::UInt16, vec![2, 2], column_major_strides(&[2, 2], 2), data)?;
/// let mut file = Vec::new();
/// write_npy(&t, &mut file)?;
/// assert!(std::str::from_utf8(&file[10..64]).unwrap().contains("'fortran_order': True"));
/// let back = read_npy(&file, &Limits::default())?;
/// assert_eq!(back.strides(), t.strides());
/// assert_eq!(back.to_vec::<u16>()?, vec![1, 3, 2, 4]);
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn write_npy<W: Write>(tensor: &Tensor, mut out: W) -> Result<()> {
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
