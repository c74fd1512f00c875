//! Running code generic over the value or index types at a type known only at run time:
//! the crate's `dispatch_value!` / `dispatch_index!` macros (crate-private) and, for other
//! crates, [`ValueType::visit`] / [`IndexType::visit`] with a visitor.

use super::{IndexType, NativeIndex, NativeValue, ValueType};

/// Runs `$body` with the type alias `$T` bound to the Rust type of a [`ValueType`]
/// (crate-private; other crates use [`ValueType::visit`]).
macro_rules! dispatch_value {
    ($vt:expr, $T:ident => $body:expr) => {{
        use $crate::ValueType as __V;
        match $vt {
            __V::Int8 => {
                type $T = i8;
                $body
            }
            __V::Int16 => {
                type $T = i16;
                $body
            }
            __V::Int32 => {
                type $T = i32;
                $body
            }
            __V::Int64 => {
                type $T = i64;
                $body
            }
            __V::UInt8 => {
                type $T = u8;
                $body
            }
            __V::UInt16 => {
                type $T = u16;
                $body
            }
            __V::UInt32 => {
                type $T = u32;
                $body
            }
            __V::UInt64 => {
                type $T = u64;
                $body
            }
            __V::Float16 => {
                type $T = $crate::f16;
                $body
            }
            __V::Float32 => {
                type $T = f32;
                $body
            }
            __V::Float64 => {
                type $T = f64;
                $body
            }
        }
    }};
}

/// Runs `$body` with the type alias `$T` bound to the Rust type of an [`IndexType`]
/// (crate-private; other crates use [`IndexType::visit`]).
macro_rules! dispatch_index {
    ($it:expr, $T:ident => $body:expr) => {{
        use $crate::IndexType as __I;
        match $it {
            __I::Int8 => {
                type $T = i8;
                $body
            }
            __I::Int16 => {
                type $T = i16;
                $body
            }
            __I::Int32 => {
                type $T = i32;
                $body
            }
            __I::Int64 => {
                type $T = i64;
                $body
            }
            __I::UInt8 => {
                type $T = u8;
                $body
            }
            __I::UInt16 => {
                type $T = u16;
                $body
            }
            __I::UInt32 => {
                type $T = u32;
                $body
            }
            __I::UInt64 => {
                type $T = u64;
                $body
            }
        }
    }};
}

/// Runs `$body` with `$T` bound to the Rust type of a signed [`IndexType`], and `$other`
/// for an unsigned one (crate-private). For types that are signed by construction (the
/// narrowest types [`IndexType::narrowest_for`] picks, a COO table's coordinate type), so
/// that a kernel is compiled for the four signed types only; `$other` takes the general
/// path.
#[cfg_attr(not(feature = "record-batch"), allow(unused_macros))]
macro_rules! dispatch_signed {
    ($it:expr, $T:ident => $body:expr, else $other:expr) => {{
        use $crate::IndexType as __I;
        match $it {
            __I::Int8 => {
                type $T = i8;
                $body
            }
            __I::Int16 => {
                type $T = i16;
                $body
            }
            __I::Int32 => {
                type $T = i32;
                $body
            }
            __I::Int64 => {
                type $T = i64;
                $body
            }
            __I::UInt8 | __I::UInt16 | __I::UInt32 | __I::UInt64 => $other,
        }
    }};
}
pub(crate) use dispatch_index;
#[cfg_attr(not(feature = "record-batch"), allow(unused_imports))]
pub(crate) use dispatch_signed;
pub(crate) use dispatch_value;

/// A computation generic over the value types, run at the Rust type of a [`ValueType`]
/// known only at run time by [`ValueType::visit`].
///
/// ```
/// use arrow_tensor_ipc::{NativeValue, ValueType, ValueVisitor};
///
/// struct Width;
/// impl ValueVisitor for Width {
///     type Output = usize;
///     fn visit<T: NativeValue>(self) -> usize {
///         std::mem::size_of::<T>()
///     }
/// }
/// assert_eq!(ValueType::Float16.visit(Width), 2);
/// ```
pub trait ValueVisitor {
    /// What the computation returns.
    type Output;
    /// Runs the computation with `T` the Rust type of the value type.
    fn visit<T: NativeValue>(self) -> Self::Output;
}

/// A computation generic over the index types, run at the Rust type of an [`IndexType`]
/// known only at run time by [`IndexType::visit`]. Every index type is also a value type.
pub trait IndexVisitor {
    /// What the computation returns.
    type Output;
    /// Runs the computation with `I` the Rust type of the index type.
    fn visit<I: NativeIndex + NativeValue>(self) -> Self::Output;
}

impl ValueType {
    /// Runs `visitor` at the Rust type of this value type (`f16` for `Float16`).
    pub fn visit<V: ValueVisitor>(self, visitor: V) -> V::Output {
        dispatch_value!(self, T => visitor.visit::<T>())
    }
}

impl IndexType {
    /// Runs `visitor` at the Rust type of this index type.
    pub fn visit<V: IndexVisitor>(self, visitor: V) -> V::Output {
        dispatch_index!(self, I => visitor.visit::<I>())
    }
}
