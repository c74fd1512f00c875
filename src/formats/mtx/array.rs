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
use crate::formats::text::entries::{Entries, Store};
use crate::formats::text::value::TextValue;
use crate::formats::text::{
    finish_line, parse_parallel, parse_value, LineError, LineParser, LineShape,
};
use crate::tensor::{column_major_strides, Tensor};
use arrow_buffer::Buffer;

/// The parser of the lines of an array matrix: one value each.
struct ArrayLines {
    /// Whether every value is mirrored (and so must have a negation).
    mirrored: bool,
}

impl<T: TextValue, I: crate::types::NativeIndex> LineParser<T, I> for ArrayLines {
    #[inline]
    fn parse<S: Store<T, I>>(
        &self,
        s: &[u8],
        line: usize,
        q: usize,
        c: &mut Entries<T, I, S>,
    ) -> std::result::Result<usize, LineError> {
        let (v, q) =
            parse_value::<T>(s, q).map_err(|x| LineError::new(line, format!("value: {x}")))?;
        if self.mirrored && mirror_value(v).is_none() {
            return Err(LineError::new(
                line,
                format!("the mirrored value -{v:?} does not fit {}", T::TYPE),
            ));
        }
        let p = finish_line(s, q)
            .map_err(|x| LineError::new(line, format!("{x} (an array line holds one value)")))?;
        c.lines += 1;
        c.push_n([], v);
        Ok(p)
    }
}

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
    // A skew-symmetric array stores the strict lower triangle: every value is mirrored.
    let lines = ArrayLines {
        mirrored: h.symmetry == Symmetry::SkewSymmetric && opts.expand_symmetry,
    };
    let shape = LineShape {
        ndim: 0,
        entries_per_line: 1,
        min_line: 2,
    };
    // Values only: the coordinate type is a placeholder.
    let merged = parse_parallel::<T, u8>(
        FORMAT,
        ctx.bytes,
        ctx.data.clone(),
        opts.threads,
        b'%',
        opts.progress,
        shape,
        &lines,
    )?;
    if merged.lines != h.entries {
        return Err(ctx.count_error(merged.lines));
    }
    let stored = merged.values;
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
