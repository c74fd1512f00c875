//! Numbers as the text formats read and write them: [`TextValue`] for every value type,
//! parsed without allocating and written in the shortest text that reads back to the same
//! bits.

use super::parse_u64;
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
