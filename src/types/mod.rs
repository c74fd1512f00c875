//! Element types: the value types a tensor may hold and the integer types of sparse indices.

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use arrow_buffer::ArrowNativeType;
use half::f16;
use std::fmt;

/// The type of the values of a tensor: the fixed-width numbers Arrow allows in tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// Signed 8-bit integer.
    Int8,
    /// Signed 16-bit integer.
    Int16,
    /// Signed 32-bit integer.
    Int32,
    /// Signed 64-bit integer.
    Int64,
    /// Unsigned 8-bit integer.
    UInt8,
    /// Unsigned 16-bit integer.
    UInt16,
    /// Unsigned 32-bit integer.
    UInt32,
    /// Unsigned 64-bit integer.
    UInt64,
    /// IEEE 754 half precision.
    Float16,
    /// IEEE 754 single precision.
    Float32,
    /// IEEE 754 double precision.
    Float64,
}

impl ValueType {
    /// Every value type, in Arrow's order.
    pub const ALL: [ValueType; 11] = [
        ValueType::Int8,
        ValueType::Int16,
        ValueType::Int32,
        ValueType::Int64,
        ValueType::UInt8,
        ValueType::UInt16,
        ValueType::UInt32,
        ValueType::UInt64,
        ValueType::Float16,
        ValueType::Float32,
        ValueType::Float64,
    ];

    /// Size of one value in bytes.
    pub const fn byte_width(self) -> usize {
        match self {
            ValueType::Int8 | ValueType::UInt8 => 1,
            ValueType::Int16 | ValueType::UInt16 | ValueType::Float16 => 2,
            ValueType::Int32 | ValueType::UInt32 | ValueType::Float32 => 4,
            ValueType::Int64 | ValueType::UInt64 | ValueType::Float64 => 8,
        }
    }

    /// Whether this is a floating point type.
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            ValueType::Float16 | ValueType::Float32 | ValueType::Float64
        )
    }

    /// Lower-case name (`int8` .. `uint64`, `float16`, `float32`, `float64`).
    pub const fn name(self) -> &'static str {
        match self {
            ValueType::Int8 => "int8",
            ValueType::Int16 => "int16",
            ValueType::Int32 => "int32",
            ValueType::Int64 => "int64",
            ValueType::UInt8 => "uint8",
            ValueType::UInt16 => "uint16",
            ValueType::UInt32 => "uint32",
            ValueType::UInt64 => "uint64",
            ValueType::Float16 => "float16",
            ValueType::Float32 => "float32",
            ValueType::Float64 => "float64",
        }
    }

    /// Parses a name as printed by [`ValueType::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The value type of the same width and signedness as an index type.
    pub const fn from_index_type(t: IndexType) -> Self {
        match t {
            IndexType::Int8 => ValueType::Int8,
            IndexType::Int16 => ValueType::Int16,
            IndexType::Int32 => ValueType::Int32,
            IndexType::Int64 => ValueType::Int64,
            IndexType::UInt8 => ValueType::UInt8,
            IndexType::UInt16 => ValueType::UInt16,
            IndexType::UInt32 => ValueType::UInt32,
            IndexType::UInt64 => ValueType::UInt64,
        }
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The integer type of a sparse index array (coordinates, indptr or indices).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IndexType {
    /// Signed 8-bit.
    Int8,
    /// Signed 16-bit.
    Int16,
    /// Signed 32-bit.
    Int32,
    /// Signed 64-bit.
    Int64,
    /// Unsigned 8-bit.
    UInt8,
    /// Unsigned 16-bit.
    UInt16,
    /// Unsigned 32-bit.
    UInt32,
    /// Unsigned 64-bit. Readable; Arrow C++ cannot read it.
    UInt64,
}

impl IndexType {
    /// Every index type.
    pub const ALL: [IndexType; 8] = [
        IndexType::Int8,
        IndexType::Int16,
        IndexType::Int32,
        IndexType::Int64,
        IndexType::UInt8,
        IndexType::UInt16,
        IndexType::UInt32,
        IndexType::UInt64,
    ];

    /// Size of one index in bytes.
    pub const fn byte_width(self) -> usize {
        ValueType::from_index_type(self).byte_width()
    }

    /// Whether the type is signed.
    pub const fn is_signed(self) -> bool {
        matches!(
            self,
            IndexType::Int8 | IndexType::Int16 | IndexType::Int32 | IndexType::Int64
        )
    }

    /// The largest value of the type.
    pub const fn max_value(self) -> u64 {
        match self {
            IndexType::Int8 => i8::MAX as u64,
            IndexType::Int16 => i16::MAX as u64,
            IndexType::Int32 => i32::MAX as u64,
            IndexType::Int64 => i64::MAX as u64,
            IndexType::UInt8 => u8::MAX as u64,
            IndexType::UInt16 => u16::MAX as u64,
            IndexType::UInt32 => u32::MAX as u64,
            IndexType::UInt64 => u64::MAX,
        }
    }

    /// Whether Arrow C++ (26 and earlier) reads this type at all (it refuses uint64).
    pub const fn arrow_readable(self) -> bool {
        !matches!(self, IndexType::UInt64)
    }

    /// The index type for a bit width and signedness, as in Arrow's `Int` table.
    pub const fn from_int(bit_width: i32, signed: bool) -> Option<Self> {
        Some(match (bit_width, signed) {
            (8, true) => IndexType::Int8,
            (16, true) => IndexType::Int16,
            (32, true) => IndexType::Int32,
            (64, true) => IndexType::Int64,
            (8, false) => IndexType::UInt8,
            (16, false) => IndexType::UInt16,
            (32, false) => IndexType::UInt32,
            (64, false) => IndexType::UInt64,
            _ => return None,
        })
    }

    /// Lower-case name (`int8` .. `uint64`).
    pub const fn name(self) -> &'static str {
        ValueType::from_index_type(self).name()
    }

    /// Parses a name as printed by [`IndexType::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The narrowest type that Arrow C++ reads and that holds every value in `0..=max`.
    pub fn narrowest_for(max: u64) -> IndexType {
        [
            IndexType::Int8,
            IndexType::Int16,
            IndexType::Int32,
            IndexType::Int64,
        ]
        .into_iter()
        .find(|t| t.max_value() >= max)
        .unwrap_or(IndexType::Int64)
    }
}

impl fmt::Display for IndexType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One value of any [`ValueType`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum Scalar {
    Int8(i8),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    UInt8(u8),
    UInt16(u16),
    UInt32(u32),
    UInt64(u64),
    Float16(f16),
    Float32(f32),
    Float64(f64),
}

impl Scalar {
    /// The type of this value.
    pub fn value_type(&self) -> ValueType {
        match self {
            Scalar::Int8(_) => ValueType::Int8,
            Scalar::Int16(_) => ValueType::Int16,
            Scalar::Int32(_) => ValueType::Int32,
            Scalar::Int64(_) => ValueType::Int64,
            Scalar::UInt8(_) => ValueType::UInt8,
            Scalar::UInt16(_) => ValueType::UInt16,
            Scalar::UInt32(_) => ValueType::UInt32,
            Scalar::UInt64(_) => ValueType::UInt64,
            Scalar::Float16(_) => ValueType::Float16,
            Scalar::Float32(_) => ValueType::Float32,
            Scalar::Float64(_) => ValueType::Float64,
        }
    }

    /// The zero of a type.
    pub fn zero(t: ValueType) -> Scalar {
        crate::dispatch_value!(t, T => T::ZERO.into_scalar())
    }

    /// Reads a little-endian value of type `t` from the start of `bytes`.
    /// Returns `None` when `bytes` is too short.
    pub fn from_le_bytes(t: ValueType, bytes: &[u8]) -> Option<Scalar> {
        crate::dispatch_value!(t, T => T::read_le(bytes).map(NativeValue::into_scalar))
    }

    /// The value as `f64` (exact for every type but the largest 64-bit integers).
    pub fn as_f64(&self) -> f64 {
        match *self {
            Scalar::Int8(v) => v.into(),
            Scalar::Int16(v) => v.into(),
            Scalar::Int32(v) => v.into(),
            Scalar::Int64(v) => v as f64,
            Scalar::UInt8(v) => v.into(),
            Scalar::UInt16(v) => v.into(),
            Scalar::UInt32(v) => v.into(),
            Scalar::UInt64(v) => v as f64,
            Scalar::Float16(v) => v.to_f64(),
            Scalar::Float32(v) => v.into(),
            Scalar::Float64(v) => v,
        }
    }

    /// Bitwise equality: `NaN` equals a `NaN` of the same bits, `-0.0` differs from `0.0`.
    pub fn bits_eq(&self, other: &Scalar) -> bool {
        match (self, other) {
            (Scalar::Float16(a), Scalar::Float16(b)) => a.to_bits() == b.to_bits(),
            (Scalar::Float32(a), Scalar::Float32(b)) => a.to_bits() == b.to_bits(),
            (Scalar::Float64(a), Scalar::Float64(b)) => a.to_bits() == b.to_bits(),
            (a, b) => a == b,
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Int8(v) => v.fmt(f),
            Scalar::Int16(v) => v.fmt(f),
            Scalar::Int32(v) => v.fmt(f),
            Scalar::Int64(v) => v.fmt(f),
            Scalar::UInt8(v) => v.fmt(f),
            Scalar::UInt16(v) => v.fmt(f),
            Scalar::UInt32(v) => v.fmt(f),
            Scalar::UInt64(v) => v.fmt(f),
            Scalar::Float16(v) => v.fmt(f),
            Scalar::Float32(v) => v.fmt(f),
            Scalar::Float64(v) => v.fmt(f),
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that stores one [`ValueType`]: `i8` .. `u64`, [`half::f16`], `f32`, `f64`.
pub trait NativeValue: ArrowNativeType + sealed::Sealed + PartialEq {
    /// The matching value type.
    const TYPE: ValueType;
    /// Zero of the type.
    const ZERO: Self;
    /// Wraps the value in a [`Scalar`].
    fn into_scalar(self) -> Scalar;
    /// Extracts a value of this type from a [`Scalar`] of the same type.
    fn from_scalar(s: Scalar) -> Option<Self>;
    /// Sum used when duplicate coordinates are combined (wrapping for integers).
    fn combine(self, other: Self) -> Self;
    /// Whether the value is a zero: equal to zero, so `-0.0` is a zero and `NaN` is not.
    fn is_zero(self) -> bool;
    /// Reads a little-endian value from the start of `bytes`.
    fn read_le(bytes: &[u8]) -> Option<Self>;
}

/// A Rust type that stores one [`IndexType`]: `i8` .. `i64`, `u8` .. `u64`.
pub trait NativeIndex: ArrowNativeType + sealed::Sealed + Ord {
    /// The matching index type.
    const TYPE: IndexType;
    /// The value as `i64`; negative values stay negative, `u64` values above `i64::MAX`
    /// saturate to `i64::MAX` (larger than any valid dimension or count either way).
    fn as_index(self) -> i64;
    /// Converts a non-negative count or coordinate, `None` when it does not fit.
    fn from_u64(v: u64) -> Option<Self>;
    /// Validation kernel over a block of at most [`SCAN_BLOCK`] values: whether any value
    /// is negative or above `last` (`last >= 0`), and how many adjacent pairs do not
    /// strictly increase. Counts and flags live in lanes as wide as the values, so the
    /// loops vectorize at full width.
    #[doc(hidden)]
    fn scan_block(block: &[Self], last: Self) -> (bool, usize);
}

/// Values per block of [`NativeIndex::scan_block`] (the per-lane counters cannot overflow).
#[doc(hidden)]
pub const SCAN_BLOCK: usize = 4096;

macro_rules! native_int {
    ($t:ty, $v:ident, $i:ident, $u:ty, $acc:ty) => {
        impl sealed::Sealed for $t {}
        impl NativeValue for $t {
            const TYPE: ValueType = ValueType::$v;
            const ZERO: Self = 0;
            fn into_scalar(self) -> Scalar {
                Scalar::$v(self)
            }
            fn from_scalar(s: Scalar) -> Option<Self> {
                match s {
                    Scalar::$v(v) => Some(v),
                    _ => None,
                }
            }
            fn combine(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
            fn is_zero(self) -> bool {
                self == 0
            }
            fn read_le(bytes: &[u8]) -> Option<Self> {
                let b = bytes.get(..std::mem::size_of::<$t>())?;
                Some(<$t>::from_le_bytes(b.try_into().ok()?))
            }
        }
        impl NativeIndex for $t {
            const TYPE: IndexType = IndexType::$i;
            fn as_index(self) -> i64 {
                i64::try_from(self).unwrap_or(i64::MAX)
            }
            fn from_u64(v: u64) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            #[inline]
            fn scan_block(block: &[Self], last: Self) -> (bool, usize) {
                // As unsigned, a negative value is above any valid `last`.
                let last = last as $u;
                let first = block.first().is_some_and(|&v| (v as $u) > last);
                // One pass over the pairs: the second of each checked against `last`.
                let (above, pairs) = block
                    .iter()
                    .zip(block.get(1..).unwrap_or_default())
                    .fold((0 as $acc, 0 as $acc), |(bad, n), (a, b)| {
                        (
                            bad | <$acc>::from((*b as $u) > last),
                            n.wrapping_add(<$acc>::from(a >= b)),
                        )
                    });
                (first || above != 0, pairs as usize)
            }
        }
    };
}
native_int!(i8, Int8, Int8, u8, u32);
native_int!(i16, Int16, Int16, u16, u32);
native_int!(i32, Int32, Int32, u32, u32);
native_int!(i64, Int64, Int64, u64, u64);
native_int!(u8, UInt8, UInt8, u8, u32);
native_int!(u16, UInt16, UInt16, u16, u32);
native_int!(u32, UInt32, UInt32, u32, u32);
native_int!(u64, UInt64, UInt64, u64, u64);

macro_rules! native_float {
    ($t:ty, $v:ident, $zero:expr, $add:expr) => {
        impl sealed::Sealed for $t {}
        impl NativeValue for $t {
            const TYPE: ValueType = ValueType::$v;
            const ZERO: Self = $zero;
            fn into_scalar(self) -> Scalar {
                Scalar::$v(self)
            }
            fn from_scalar(s: Scalar) -> Option<Self> {
                match s {
                    Scalar::$v(v) => Some(v),
                    _ => None,
                }
            }
            fn combine(self, other: Self) -> Self {
                let add: fn($t, $t) -> $t = $add;
                add(self, other)
            }
            fn is_zero(self) -> bool {
                self == $zero
            }
            fn read_le(bytes: &[u8]) -> Option<Self> {
                let b = bytes.get(..std::mem::size_of::<$t>())?;
                Some(<$t>::from_le_bytes(b.try_into().ok()?))
            }
        }
    };
}
native_float!(f16, Float16, f16::ZERO, |a, b| f16::from_f32(
    a.to_f32() + b.to_f32()
));
native_float!(f32, Float32, 0.0, |a, b| a + b);
native_float!(f64, Float64, 0.0, |a, b| a + b);

mod dispatch;

#[cfg_attr(not(feature = "record-batch"), allow(unused_imports))]
pub(crate) use dispatch::dispatch_signed;
pub(crate) use dispatch::{dispatch_index, dispatch_value};
pub use dispatch::{IndexVisitor, ValueVisitor};
