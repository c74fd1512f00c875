//! [`SparseTensor::iter`]: a lazy walk over the stored values, one [`Entry`] at a time,
//! with no allocation per entry for tensors of rank up to [`Coords::INLINE`].

use super::{coo::CooOrder, CompressedAxis, SparseIndex, SparseTensor};
use crate::array::IndexArray;
use crate::error::Result;
use crate::types::{NativeValue, Scalar};
use std::fmt;
use std::ops::Deref;

/// One stored value of a sparse tensor with its logical coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Logical coordinates (one per dimension); derefs to `[usize]`.
    pub coords: Coords,
    /// The value.
    pub value: Scalar,
    /// Position of the value in the values buffer.
    pub position: usize,
}

/// The coordinates of one stored value: a `[usize]` held inline for ranks up to
/// [`Coords::INLINE`] (no allocation), on the heap beyond.
///
/// ```
/// use arrow_tensor_ipc::SparseTensor;
/// let t = SparseTensor::coo([3, 4], vec![0i64, 1, 2, 3], vec![1.0f64, 2.0]).unwrap();
/// let nz = t.iter().unwrap().nth(1).unwrap();
/// assert_eq!(nz.coords, [2, 3]);
/// assert_eq!(nz.coords[0], 2);
/// assert_eq!(nz.coords.to_vec(), vec![2, 3]);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Coords(Repr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    Inline {
        len: usize,
        values: [usize; Coords::INLINE],
    },
    Heap(Box<[usize]>),
}

impl Coords {
    /// The largest rank held without allocating.
    pub const INLINE: usize = 8;

    /// Coordinates holding `values`.
    #[inline]
    pub fn new(values: &[usize]) -> Self {
        if values.len() <= Self::INLINE {
            let mut inline = [0usize; Self::INLINE];
            for (slot, &c) in inline.iter_mut().zip(values) {
                *slot = c;
            }
            Coords(Repr::Inline {
                len: values.len(),
                values: inline,
            })
        } else {
            Coords(Repr::Heap(values.into()))
        }
    }

    /// The coordinates as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[usize] {
        match &self.0 {
            Repr::Inline { len, values } => values.get(..*len).unwrap_or_default(),
            Repr::Heap(v) => v,
        }
    }

    #[inline]
    fn as_mut_slice(&mut self) -> &mut [usize] {
        match &mut self.0 {
            Repr::Inline { len, values } => values.get_mut(..*len).unwrap_or_default(),
            Repr::Heap(v) => v,
        }
    }
}

impl Deref for Coords {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        self.as_slice()
    }
}

impl AsRef<[usize]> for Coords {
    fn as_ref(&self) -> &[usize] {
        self.as_slice()
    }
}

impl fmt::Debug for Coords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl From<Coords> for Vec<usize> {
    fn from(c: Coords) -> Vec<usize> {
        c.as_slice().to_vec()
    }
}

impl PartialEq<[usize]> for Coords {
    fn eq(&self, other: &[usize]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<&[usize]> for Coords {
    fn eq(&self, other: &&[usize]) -> bool {
        self.as_slice() == *other
    }
}

impl PartialEq<Vec<usize>> for Coords {
    fn eq(&self, other: &Vec<usize>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<const N: usize> PartialEq<[usize; N]> for Coords {
    fn eq(&self, other: &[usize; N]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

/// An index array read as coordinates, with its element type decided once.
#[derive(Clone, Copy)]
enum Ints<'a> {
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
}

impl<'a> Ints<'a> {
    fn of(a: &'a IndexArray) -> Self {
        use crate::IndexType as T;
        let or_empty = Ints::I64(&[]);
        match a.index_type() {
            T::Int8 => a.values().map_or(or_empty, Ints::I8),
            T::Int16 => a.values().map_or(or_empty, Ints::I16),
            T::Int32 => a.values().map_or(or_empty, Ints::I32),
            T::Int64 => a.values().map_or(or_empty, Ints::I64),
            T::UInt8 => a.values().map_or(or_empty, Ints::U8),
            T::UInt16 => a.values().map_or(or_empty, Ints::U16),
            T::UInt32 => a.values().map_or(or_empty, Ints::U32),
            T::UInt64 => a.values().map_or(or_empty, Ints::U64),
        }
    }

    /// Element `k` as a size. Only called on positions the walk already checked; an
    /// impossible miss or negative value reads as 0 rather than panicking.
    #[inline(always)]
    fn at(self, k: usize) -> usize {
        match self {
            Ints::I8(s) => s.get(k).map_or(0, |&v| v.max(0) as usize),
            Ints::I16(s) => s.get(k).map_or(0, |&v| v.max(0) as usize),
            Ints::I32(s) => s.get(k).map_or(0, |&v| v.max(0) as usize),
            Ints::I64(s) => s.get(k).map_or(0, |&v| v.max(0) as usize),
            Ints::U8(s) => s.get(k).map_or(0, |&v| v as usize),
            Ints::U16(s) => s.get(k).map_or(0, |&v| v as usize),
            Ints::U32(s) => s.get(k).map_or(0, |&v| v as usize),
            Ints::U64(s) => s.get(k).map_or(0, |&v| v as usize),
        }
    }
}

/// The values buffer read as scalars, with its element type decided once.
#[derive(Clone, Copy)]
enum Values<'a> {
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    F16(&'a [half::f16]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    /// A buffer that cannot be viewed typed: read value by value from its bytes.
    Bytes(&'a SparseTensor),
}

impl<'a> Values<'a> {
    fn of(t: &'a SparseTensor) -> Self {
        use crate::ValueType as T;
        let typed = match t.value_type {
            T::Int8 => t.values().map(Values::I8),
            T::Int16 => t.values().map(Values::I16),
            T::Int32 => t.values().map(Values::I32),
            T::Int64 => t.values().map(Values::I64),
            T::UInt8 => t.values().map(Values::U8),
            T::UInt16 => t.values().map(Values::U16),
            T::UInt32 => t.values().map(Values::U32),
            T::UInt64 => t.values().map(Values::U64),
            T::Float16 => t.values().map(Values::F16),
            T::Float32 => t.values().map(Values::F32),
            T::Float64 => t.values().map(Values::F64),
        };
        typed.unwrap_or(Values::Bytes(t))
    }

    /// The value at position `p`. Only called on positions the checked walk bounded by
    /// the values buffer; an impossible miss reads as zero rather than panicking. (A plain
    /// `Scalar`, not an `Option`: the iterator then builds its item without moving the
    /// value between two layouts.)
    #[inline(always)]
    fn at(self, p: usize) -> Scalar {
        match self {
            Values::I8(s) => Scalar::Int8(s.get(p).copied().unwrap_or(0)),
            Values::I16(s) => Scalar::Int16(s.get(p).copied().unwrap_or(0)),
            Values::I32(s) => Scalar::Int32(s.get(p).copied().unwrap_or(0)),
            Values::I64(s) => Scalar::Int64(s.get(p).copied().unwrap_or(0)),
            Values::U8(s) => Scalar::UInt8(s.get(p).copied().unwrap_or(0)),
            Values::U16(s) => Scalar::UInt16(s.get(p).copied().unwrap_or(0)),
            Values::U32(s) => Scalar::UInt32(s.get(p).copied().unwrap_or(0)),
            Values::U64(s) => Scalar::UInt64(s.get(p).copied().unwrap_or(0)),
            Values::F16(s) => Scalar::Float16(s.get(p).copied().unwrap_or(half::f16::ZERO)),
            Values::F32(s) => Scalar::Float32(s.get(p).copied().unwrap_or(0.0)),
            Values::F64(s) => Scalar::Float64(s.get(p).copied().unwrap_or(0.0)),
            Values::Bytes(t) => Self::from_bytes(t, p),
        }
    }

    /// The value at position `p` of a buffer read value by value (kept out of line: the
    /// typed views are the common case).
    #[cold]
    #[inline(never)]
    fn from_bytes(t: &SparseTensor, p: usize) -> Scalar {
        t.value(p).unwrap_or_else(|| Scalar::zero(t.value_type()))
    }
}

/// The walk of one layout, in storage order (depth-first for CSF).
enum Walk<'a> {
    Coo {
        indices: Ints<'a>,
        ndim: usize,
        nnz: usize,
        order: CooOrder,
        next: usize,
    },
    Csx {
        indptr: Ints<'a>,
        indices: Ints<'a>,
        /// 0 for CSR (rows outer), 1 for CSC.
        outer: usize,
        /// The current outer slice, its next position and its end.
        slice: usize,
        pos: usize,
        end: usize,
        slices: usize,
    },
    Csf {
        indptr: Vec<Ints<'a>>,
        indices: Vec<Ints<'a>>,
        axis_order: &'a [usize],
        /// (level, next position, end) cursors, as in the checked walk.
        stack: Vec<(usize, usize, usize)>,
    },
}

/// The iterator of [`SparseTensor::iter`]: the stored values with their coordinates in
/// storage order, computed as it goes (no allocation per entry up to rank
/// [`Coords::INLINE`]).
pub struct EntryIter<'a> {
    values: Values<'a>,
    coords: Coords,
    walk: Walk<'a>,
}

impl<'a> EntryIter<'a> {
    /// An iterator over a tensor whose index the checked walk has accepted.
    pub(super) fn new(tensor: &'a SparseTensor) -> Self {
        let ndim = tensor.shape.len();
        let walk = match &tensor.index {
            SparseIndex::Coo(i) => Walk::Coo {
                indices: Ints::of(&i.indices),
                ndim: i.ndim,
                nnz: i.nnz(),
                order: i.order,
                next: 0,
            },
            SparseIndex::Csx(i) => Walk::Csx {
                indptr: Ints::of(&i.indptr),
                indices: Ints::of(&i.indices),
                outer: usize::from(i.axis == CompressedAxis::Column),
                slice: 0,
                pos: 0,
                end: 0,
                slices: i.indptr.len().saturating_sub(1),
            },
            SparseIndex::Csf(i) => Walk::Csf {
                indptr: i.indptr.iter().map(Ints::of).collect(),
                indices: i.indices.iter().map(Ints::of).collect(),
                axis_order: &i.axis_order,
                stack: vec![(0, 0, i.indices.first().map_or(0, IndexArray::len))],
            },
        };
        let mut it = EntryIter {
            values: Values::of(tensor),
            coords: Coords::new(&vec![0; ndim]),
            walk,
        };
        if let Walk::Csx {
            indptr,
            slice,
            pos,
            end,
            slices,
            ..
        } = &mut it.walk
        {
            if *slices > 0 {
                *pos = indptr.at(0);
                *end = indptr.at(1);
                *slice = 0;
            }
        }
        it
    }

    /// The next stored value: its position in the values buffer and its coordinates.
    ///
    /// COO and CSX build the coordinates straight from the index (the item is written
    /// once, never read back); CSF keeps the coordinates of the levels above the leaf in
    /// `self.coords` and copies them.
    /// The next entry's position, its coordinates written into `self.coords` (which
    /// [`TypedEntries`] lends and the `Entry` iterator copies out).
    #[inline(always)]
    fn advance_in_place(&mut self) -> Option<usize> {
        let coords = self.coords.as_mut_slice();
        match &mut self.walk {
            Walk::Coo {
                indices,
                ndim,
                nnz,
                order,
                next,
            } => {
                let i = *next;
                if i >= *nnz {
                    return None;
                }
                *next += 1;
                let (ndim, nnz, indices) = (*ndim, *nnz, *indices);
                for (d, c) in coords.iter_mut().enumerate().take(ndim) {
                    *c = match order {
                        CooOrder::RowMajor => indices.at(i * ndim + d),
                        CooOrder::ColumnMajor => indices.at(d * nnz + i),
                    };
                }
                Some(i)
            }
            Walk::Csx {
                indptr,
                indices,
                outer,
                slice,
                pos,
                end,
                slices,
            } => {
                while *pos >= *end {
                    *slice += 1;
                    if *slice >= *slices {
                        return None;
                    }
                    *pos = indptr.at(*slice);
                    *end = indptr.at(*slice + 1);
                }
                let k = *pos;
                *pos += 1;
                if let [a, b] = coords {
                    let minor = indices.at(k);
                    (*a, *b) = if *outer == 0 {
                        (*slice, minor)
                    } else {
                        (minor, *slice)
                    };
                }
                Some(k)
            }
            Walk::Csf { .. } => self.advance_csf(),
        }
    }

    /// The CSF step: depth-first down the levels to the next leaf entry. Kept out of line
    /// so that the COO and CSX steps inline into the caller's loop.
    #[inline(never)]
    fn advance_csf(&mut self) -> Option<usize> {
        let Walk::Csf {
            indptr,
            indices,
            axis_order,
            stack,
        } = &mut self.walk
        else {
            return None;
        };
        let coords = self.coords.as_mut_slice();
        let leaf = indices.len().checked_sub(1)?;
        while let Some(top) = stack.last_mut() {
            let (level, pos, end) = *top;
            if pos >= end {
                stack.pop();
                continue;
            }
            top.1 += 1;
            let dim = axis_order.get(level).copied().unwrap_or(usize::MAX);
            if let (Some(c), Some(ix)) = (coords.get_mut(dim), indices.get(level)) {
                *c = ix.at(pos);
            }
            if level == leaf {
                return Some(pos);
            }
            let ptr = indptr.get(level).copied().unwrap_or(Ints::I64(&[]));
            stack.push((level + 1, ptr.at(pos), ptr.at(pos + 1)));
        }
        None
    }
}

impl Iterator for EntryIter<'_> {
    type Item = Entry;

    #[inline(always)]
    fn next(&mut self) -> Option<Entry> {
        let position = self.advance_in_place()?;
        Some(Entry {
            coords: self.coords.clone(),
            value: self.values.at(position),
            position,
        })
    }
}

/// The stored values of a sparse tensor as values of their Rust type `T`, with their
/// coordinates lent as a slice: [`SparseTensor::iter_as`].
///
/// Not an [`Iterator`]: each entry borrows the walk's coordinate buffer until the next
/// call. Walk it with [`TypedEntries::next_entry`] in a `while let` loop, or with
/// [`TypedEntries::for_each`]. Both are generic in `T` and inline into the caller's loop.
pub struct TypedEntries<'a, T> {
    walk: EntryIter<'a>,
    values: &'a [T],
}

impl<T: NativeValue> TypedEntries<'_, T> {
    /// The next stored entry: its coordinates (one per dimension) and its value; `None`
    /// after the last one.
    #[inline(always)]
    #[allow(clippy::should_implement_trait)]
    pub fn next_entry(&mut self) -> Option<(&[usize], T)> {
        let p = self.walk.advance_in_place()?;
        let v = self.values.get(p).copied().unwrap_or(T::ZERO);
        Some((self.walk.coords.as_slice(), v))
    }

    /// Calls `f(coords, value)` for every remaining stored entry, in storage order.
    #[inline(always)]
    pub fn for_each(mut self, mut f: impl FnMut(&[usize], T)) {
        while let Some((c, v)) = self.next_entry() {
            f(c, v);
        }
    }
}

impl SparseTensor {
    /// The stored values as `T`s (the Rust type of the value type) with their coordinates,
    /// in storage order (depth-first for CSF), with no allocation per entry: the fastest
    /// walk over the entries, for loops that read coordinates and values.
    ///
    /// Checks as [`SparseTensor::iter`] does; [`ErrorKind::TypeMismatch`] when `T` is not
    /// the value type, [`ErrorKind::Misaligned`] when the values buffer is not aligned for
    /// `T` (a buffer sliced at an odd offset).
    ///
    /// ```
    /// use arrow_tensor_ipc::SparseTensor;
    /// let t = SparseTensor::csr([2, 3], vec![0i32, 1, 3], vec![2i32, 0, 1], vec![5i64, 6, 7]).unwrap();
    /// let mut row_sums = [0i64; 2];
    /// let mut entries = t.iter_as::<i64>().unwrap();
    /// while let Some((coords, v)) = entries.next_entry() {
    ///     row_sums[coords[0]] += v;
    /// }
    /// assert_eq!(row_sums, [5, 13]);
    /// ```
    ///
    /// [`ErrorKind::TypeMismatch`]: crate::ErrorKind::TypeMismatch
    /// [`ErrorKind::Misaligned`]: crate::ErrorKind::Misaligned
    pub fn iter_as<T: NativeValue>(&self) -> Result<TypedEntries<'_, T>> {
        if T::TYPE != self.value_type {
            return crate::error::fail(crate::ErrorKind::TypeMismatch {
                expected: T::TYPE.to_string(),
                found: self.value_type.to_string(),
            });
        }
        let Some(values) = self.values::<T>() else {
            return crate::error::fail(crate::ErrorKind::Misaligned {
                buffer: crate::BufferId::Values,
                offset: 0,
                align: std::mem::align_of::<T>(),
            });
        };
        Ok(TypedEntries {
            walk: self.iter()?,
            values,
        })
    }

    /// The stored values with their coordinates, in storage order (depth-first for CSF),
    /// computed lazily: no allocation per entry for ranks up to [`Coords::INLINE`].
    ///
    /// A tensor that has not passed strict validation is walked once with every check
    /// first, so that index data pointing out of range is this call's error rather than a
    /// wrong entry. Hot loops that need only coordinates and positions are faster still with
    /// the closure API [`SparseTensor::for_each_stored`], which builds no [`Entry`].
    ///
    /// ```
    /// use arrow_tensor_ipc::{Scalar, SparseTensor};
    /// let t = SparseTensor::csr([2, 3], vec![0i32, 1, 3], vec![2i32, 0, 1], vec![5i64, 6, 7]).unwrap();
    /// let mut row_sums = [0i64; 2];
    /// for nz in t.iter().unwrap() {
    ///     if let Scalar::Int64(v) = nz.value {
    ///         row_sums[nz.coords[0]] += v;
    ///     }
    /// }
    /// assert_eq!(row_sums, [5, 13]);
    /// ```
    pub fn iter(&self) -> Result<EntryIter<'_>> {
        if !self.checked {
            self.visit(&mut |_, _| Ok(()))?;
        }
        Ok(EntryIter::new(self))
    }
}
