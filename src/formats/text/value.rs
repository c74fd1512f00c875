//! Numbers as the text formats read and write them: unsigned integers (coordinates, header
//! counts) parsed eight digits at a time by [`parse_u64`], and [`TextValue`] for every value
//! type, parsed without allocating and written in the shortest text that reads back to the
//! same bits.

use super::ends_field;
use crate::types::NativeValue;
use half::f16;

/// A value type as the text formats read and write it.
// `ONE`, `checked_neg` and `same` serve the Matrix Market reader and writer only.
#[cfg_attr(not(feature = "matrix-market"), allow(dead_code))]
pub(crate) trait TextValue: NativeValue {
    /// One, the value of a `pattern` entry.
    const ONE: Self;
    /// Parses a number at the start of `s`; returns it and the bytes it took. The caller
    /// checks what follows.
    fn parse(s: &[u8]) -> Result<(Self, usize), &'static str>;
    /// Appends the number: integers in decimal, floats in the shortest form that reads back
    /// to the same bits (`NaN`, `Infinity`, `-Infinity` as scipy writes them).
    fn write(self, out: &mut Vec<u8>);
    /// The negation, `None` when the type cannot hold it.
    fn checked_neg(self) -> Option<Self>;
    /// Equality of the stored bits (a NaN equals a NaN of the same bits).
    fn same(self, other: Self) -> bool;
}

/// A mask with the high bit of every byte of `w` that is not an ASCII digit.
#[inline(always)]
fn non_digits(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte is a digit when b - '0' < 10 without wrapping, i.e. when neither b - 0x30 nor
    // b + 0x46 (which carries for b >= 0x3a) sets its high bit; bytes of 0x80 and above
    // are non-digits through their own high bit.
    let below = w.wrapping_sub(ONES * 0x30);
    let above = w.wrapping_add(ONES * 0x46);
    (below | above | w) & HIGH
}

/// The value of the first `n` (1..=7) bytes of `w`, all ASCII digits, first byte most
/// significant.
#[inline(always)]
fn swar_digits(w: u64, n: usize) -> u64 {
    // Move the digits to the top bytes; the bytes below become leading zeros.
    let v = (w.wrapping_sub(0x3030_3030_3030_3030)) << (8 * (8 - n));
    let v = (v & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(10 * 256 + 1) >> 8;
    let v = (v & 0x00FF_00FF_00FF_00FF).wrapping_mul(100 * 65536 + 1) >> 16;
    (v & 0x0000_FFFF_0000_FFFF).wrapping_mul(10000 * (1 << 32) + 1) >> 32
}

/// Parses an unsigned decimal integer (digits only) at `p`, followed by a separator or the
/// end of the line. Returns the value and the position after it.
#[inline(always)]
pub(crate) fn parse_u64(s: &[u8], p: usize) -> Result<(u64, usize), &'static str> {
    // Up to 7 digits followed by a non-digit within the next 8 bytes (every coordinate
    // below ten million): all digits converted at once.
    if let Some(word) = s.get(p..p + 8) {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        let w = u64::from_le_bytes(bytes);
        let n = (non_digits(w).trailing_zeros() / 8) as usize;
        if (1..8).contains(&n) && ends_field(s.get(p + n)) {
            return Ok((swar_digits(w, n), p + n));
        }
    }
    parse_u64_bytewise(s, p)
}

/// An unsigned integer of 1 to 7 digits followed by one space, read from the 8 bytes at
/// `p`: its value and the position after the space. `None` for anything else (more digits,
/// another separator, fewer than 8 bytes left), which [`parse_u64`] handles.
#[inline(always)]
pub(crate) fn plain_u64(s: &[u8], p: usize) -> Option<(u64, usize)> {
    let word: [u8; 8] = s.get(p..p.wrapping_add(8))?.try_into().ok()?;
    let w = u64::from_le_bytes(word);
    let n = (non_digits(w).trailing_zeros() / 8) as usize;
    // The byte after the digits, from the word itself (n is at most 8).
    let after = w.checked_shr(8 * n as u32).unwrap_or(0) as u8;
    (n > 0 && after == b' ').then(|| (swar_digits(w, n), p + n + 1))
}

/// [`parse_u64`] a byte at a time: longer numbers, the last bytes of the input and every
/// error (out of line, so that the word-at-a-time path inlines into the line parsers).
#[inline(never)]
fn parse_u64_bytewise(s: &[u8], p: usize) -> Result<(u64, usize), &'static str> {
    let mut v: u64 = 0;
    let mut q = p;
    while let Some(&b) = s.get(q) {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or("integer too large")?;
        q += 1;
    }
    if q == p {
        return Err(match s.get(p) {
            None | Some(b'\n' | b'\r') => "line ends early: a field is missing",
            Some(_) => "not an unsigned integer",
        });
    }
    if !ends_field(s.get(q)) {
        return Err("not an unsigned integer");
    }
    Ok((v, q))
}

/// Parses an optionally signed decimal integer at the start of `s`.
#[inline]
fn parse_i128(s: &[u8]) -> Result<(i128, usize), &'static str> {
    let (neg, start) = match s.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let (mag, end) = parse_u64(s, start).map_err(|e| match e {
        "integer too large" => "integer out of range",
        "line ends early: a field is missing" if start == 0 => e,
        _ => "not an integer",
    })?;
    let v = i128::from(mag);
    Ok((if neg { -v } else { v }, end))
}

macro_rules! text_int {
    ($t:ty, $signed:expr) => {
        impl TextValue for $t {
            const ONE: Self = 1;
            #[inline]
            fn parse(s: &[u8]) -> Result<(Self, usize), &'static str> {
                let (v, n) = parse_i128(s)?;
                let v = <$t>::try_from(v)
                    .map_err(|_| concat!("integer out of range of ", stringify!($t)))?;
                Ok((v, n))
            }
            #[inline]
            fn write(self, out: &mut Vec<u8>) {
                out.extend_from_slice(itoa::Buffer::new().format(self).as_bytes());
            }
            fn checked_neg(self) -> Option<Self> {
                if $signed {
                    (0 as $t).checked_sub(self)
                } else {
                    (self == 0).then_some(0)
                }
            }
            fn same(self, other: Self) -> bool {
                self == other
            }
        }
    };
}
text_int!(i8, true);
text_int!(i16, true);
text_int!(i32, true);
text_int!(i64, true);
text_int!(u8, false);
text_int!(u16, false);
text_int!(u32, false);
text_int!(u64, false);

/// Appends a float formatted by ryu (or its special spelling), without a trailing `.0`.
#[inline]
fn write_float(out: &mut Vec<u8>, finite: bool, nan: bool, negative: bool, text: &str) {
    if !finite {
        out.extend_from_slice(match (nan, negative) {
            (true, _) => b"NaN".as_slice(),
            (false, false) => b"Infinity",
            (false, true) => b"-Infinity",
        });
        return;
    }
    let bytes = text.as_bytes();
    out.extend_from_slice(bytes.strip_suffix(b".0").unwrap_or(bytes));
}

/// Parses a float of type `T` with fast_float2.
#[inline]
fn parse_float<T: fast_float2::FastFloat>(s: &[u8]) -> Result<(T, usize), &'static str> {
    match fast_float2::parse_partial::<T, _>(s) {
        Ok(r) => Ok(r),
        Err(_) => Err(match s.first() {
            None | Some(b'\n' | b'\r') => "line ends early: a field is missing",
            Some(_) => "not a number",
        }),
    }
}

/// `TextValue` of `f32` and `f64`: parsed by `fast-float2`, written shortest round-trip by
/// `ryu`, compared bitwise.
macro_rules! text_float {
    ($($t:ty),*) => {$(
        impl TextValue for $t {
            const ONE: Self = 1.0;
            #[inline]
            fn parse(s: &[u8]) -> Result<(Self, usize), &'static str> {
                parse_float::<$t>(s)
            }
            #[inline]
            fn write(self, out: &mut Vec<u8>) {
                let mut b = ryu::Buffer::new();
                let text = if self.is_finite() {
                    b.format_finite(self)
                } else {
                    ""
                };
                write_float(
                    out,
                    self.is_finite(),
                    self.is_nan(),
                    self.is_sign_negative(),
                    text,
                );
            }
            fn checked_neg(self) -> Option<Self> {
                Some(-self)
            }
            fn same(self, other: Self) -> bool {
                self.to_bits() == other.to_bits()
            }
        }
    )*};
}

text_float!(f64, f32);

impl TextValue for f16 {
    const ONE: Self = f16::ONE;
    /// Parsed as `f64`, then rounded to half precision.
    #[inline]
    fn parse(s: &[u8]) -> Result<(Self, usize), &'static str> {
        parse_float::<f64>(s).map(|(v, n)| (f16::from_f64(v), n))
    }
    /// Written as the shortest `f32` text of the (exactly representable) value, which
    /// reads back to the same half-precision bits.
    #[inline]
    fn write(self, out: &mut Vec<u8>) {
        f32::from(self).write(out);
    }
    fn checked_neg(self) -> Option<Self> {
        Some(-self)
    }
    fn same(self, other: Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::parse_u64;

    /// The byte-at-a-time definition the word-at-a-time path must agree with.
    fn reference(s: &[u8], p: usize) -> Result<(u64, usize), ()> {
        let n = s
            .get(p..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let digits = std::str::from_utf8(&s[p..p + n]).map_err(|_| ())?;
        let v: u64 = digits.parse().map_err(|_| ())?;
        if !super::ends_field(s.get(p + n)) {
            return Err(());
        }
        Ok((v, p + n))
    }

    #[test]
    fn parse_u64_agrees_with_the_definition() {
        let tails: [&[u8]; 8] = [b"", b" ", b"\t7", b"\n", b"\r\n", b"x", b"9", b".5"];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..22 {
            for tail in tails {
                for lead in [0usize, 1, 3] {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let mut s = vec![b' '; lead];
                    let digits = format!("{x}{x}");
                    s.extend_from_slice(&digits.as_bytes()[..len.min(digits.len())]);
                    s.extend_from_slice(tail);
                    s.extend_from_slice(b"  123 ");
                    let got = parse_u64(&s, lead).map_err(|_| ());
                    assert_eq!(
                        got,
                        reference(&s, lead),
                        "{:?}",
                        String::from_utf8_lossy(&s)
                    );
                }
            }
        }
        // Every byte value right after a short number.
        for b in 0..=255u8 {
            let s = [b'4', b'2', b, b' ', b' ', b' ', b' ', b' ', b' '];
            assert_eq!(
                parse_u64(&s, 0).map_err(|_| ()),
                reference(&s, 0),
                "byte {b}"
            );
        }
        assert_eq!(parse_u64(b"0000000 ", 0), Ok((0, 7)));
        assert_eq!(parse_u64(b"9999999 x", 0), Ok((9_999_999, 7)));
        assert!(parse_u64(b"18446744073709551616 ", 0).is_err());
    }
}
