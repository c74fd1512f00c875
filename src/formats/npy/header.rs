//! The header of a `.npy` file: the magic, the version, the header length and the Python
//! dict literal (`descr`, `fortran_order`, `shape`), parsed from the bytes present only and
//! checked against [`Limits`] before anything is allocated; and the header numpy writes.

// Untrusted input: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::codec::Limits;
use crate::error::{ErrorKind, Location, Result};
use crate::types::ValueType;

/// The magic at the start of every `.npy` file.
pub(crate) const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// An [`ErrorKind::Parse`] of the npy format at `location`.
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
