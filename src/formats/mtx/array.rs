//! The data lines of an `array` matrix: every value of the matrix (or of its stored
//! triangle), column by column, one per line; read into a dense column-major tensor.

// Untrusted input: no panicking shortcuts.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::coordinate::{mirror_value, Ctx};
use super::{Symmetry, FORMAT};
use crate::error::{fail, ErrorKind, Result};
use crate::formats::text::entries::concat;
use crate::formats::text::value::TextValue;
use crate::formats::text::{finish_line, parse_parallel, parse_value, LineError};
use crate::tensor::{column_major_strides, Tensor};
use arrow_buffer::Buffer;

/// Reads the values of an array matrix into a dense column-major tensor, the stored
/// triangle of a symmetric one mirrored when expanding.
pub(super) fn read_array<T: TextValue>(ctx: &Ctx) -> Result<Tensor> {
    let h = ctx.header;
    let opts = ctx.options;
    let elements = h
        .rows
        .checked_mul(h.cols)
        .ok_or_else(|| ErrorKind::Overflow {
            quantity: crate::Quantity::ElementCount {
                shape: vec![h.rows, h.cols],
            },
        })?;
    if elements > opts.limits.max_dense_elements {
        return fail(ErrorKind::LimitExceeded {
            what: "Matrix Market array elements",
            value: elements as u64,
            limit: opts.limits.max_dense_elements as u64,
        });
    }
    ctx.check_claim(2)?;
    let data_len = ctx.data.len().max(1) as u128;
    let new = |len: usize| {
        Vec::<T>::with_capacity((h.entries as u128 * len as u128 / data_len) as usize + 16)
    };
    // A skew-symmetric array stores the strict lower triangle: every value is mirrored.
    let mirrored = h.symmetry == Symmetry::SkewSymmetric && opts.expand_symmetry;
    let parse = |s: &[u8], line: usize, q: usize, values: &mut Vec<T>| {
        let (v, q) =
            parse_value::<T>(s, q).map_err(|x| LineError::new(line, format!("value: {x}")))?;
        if mirrored && mirror_value(v).is_none() {
            return Err(LineError::new(
                line,
                format!("the mirrored value -{v:?} does not fit {}", T::TYPE),
            ));
        }
        let p = finish_line(s, q)
            .map_err(|x| LineError::new(line, format!("{x} (an array line holds one value)")))?;
        values.push(v);
        Ok(p)
    };
    let parts = parse_parallel(
        FORMAT,
        ctx.bytes,
        ctx.data.clone(),
        opts.threads,
        b'%',
        opts.progress,
        new,
        &parse,
    )?;
    let found: u64 = parts.iter().map(|v| v.len() as u64).sum();
    if found != h.entries {
        return Err(ctx.count_error(found));
    }
    let (_, stored) = concat::<_, T, u8>(parts, |v| (Vec::new(), v));
    let n = h.rows;
    let full = match h.symmetry {
        Symmetry::General => stored,
        sym => {
            // The stored lower triangle, column by column, into the full column-major matrix.
            let skew = sym == Symmetry::SkewSymmetric;
            let mut full = vec![T::ZERO; elements];
            let mut it = stored.into_iter();
            for j in 0..n {
                for i in (if skew { j + 1 } else { j })..n {
                    let v = it.next().unwrap_or(T::ZERO);
                    if let Some(slot) = full.get_mut(j * n + i) {
                        *slot = v;
                    }
                    if opts.expand_symmetry && i != j {
                        let m = if skew {
                            // Checked per line when parsing: every stored value is mirrored.
                            mirror_value(v).unwrap_or(T::ZERO)
                        } else {
                            v
                        };
                        if let Some(slot) = full.get_mut(i * n + j) {
                            *slot = m;
                        }
                    }
                }
            }
            full
        }
    };
    let shape = vec![h.rows, h.cols];
    let strides = column_major_strides(&shape, T::TYPE.byte_width());
    Tensor::try_new(T::TYPE, shape, strides, Buffer::from_vec(full))
}
