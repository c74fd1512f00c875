//! Decoding: metadata flatbuffer -> [`MessageMeta`] -> [`Message`] over a body buffer.
//!
//! Decoding never copies the body (except misaligned buffers, by default), never allocates
//! in proportion to a size the input merely claims, and checks every size with
//! overflow-checked arithmetic before it slices anything.

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::framing::{parse_prefix, Framing, Prefix};
use super::options::{Limits, ReadOptions};
use super::Message;
use crate::array::{align_buffer, IndexArray, Misaligned};
use crate::error::{fail, BufferId, Error, ErrorKind, Result};
use crate::gen::legacy_015 as legacy;
use crate::gen::org::apache::arrow::flatbuf as fb;
use crate::sparse::{
    CompressedAxis, CooIndex, CooOrder, CsfIndex, CsxIndex, SparseIndex, SparseTensor,
};
use crate::tensor::Tensor;
use crate::types::{IndexType, ValueType};
use crate::validate::Validation;
use arrow_buffer::Buffer;

/// The metadata version of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetadataVersion {
    /// Arrow 0.8 to 0.17.
    V4,
    /// Arrow 1.0 and later.
    V5,
}

impl MetadataVersion {
    /// `V4` or `V5`.
    pub fn name(self) -> &'static str {
        match self {
            MetadataVersion::V4 => "V4",
            MetadataVersion::V5 => "V5",
        }
    }
}

/// A region of the body as the metadata states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BufRef {
    offset: i64,
    length: i64,
}

impl From<&fb::Buffer> for BufRef {
    fn from(b: &fb::Buffer) -> Self {
        BufRef {
            offset: b.offset(),
            length: b.length(),
        }
    }
}

#[derive(Clone, Debug)]
enum IndexPlan {
    Coo {
        index_type: IndexType,
        strides: Option<Vec<i64>>,
        buffer: BufRef,
        canonical: bool,
    },
    Csx {
        axis: CompressedAxis,
        indptr_type: IndexType,
        indptr: BufRef,
        indices_type: IndexType,
        indices: BufRef,
    },
    Csf {
        indptr_type: IndexType,
        indptr: Vec<BufRef>,
        indices_type: IndexType,
        indices: Vec<BufRef>,
        axis_order: Vec<i32>,
    },
}

#[derive(Clone, Debug)]
enum Plan {
    Dense {
        strides: Option<Vec<i64>>,
        data: BufRef,
    },
    Sparse {
        nnz: i64,
        data: BufRef,
        index: IndexPlan,
    },
}

/// A message's metadata, parsed and checked, without its body: what a reader needs to
/// know how many body bytes follow and how to lay them out.
#[derive(Clone, Debug)]
pub struct MessageMeta {
    version: MetadataVersion,
    body_length: u64,
    value_type: ValueType,
    shape: Vec<usize>,
    dim_names: Vec<String>,
    plan: Plan,
}

impl MessageMeta {
    /// The metadata version.
    pub fn version(&self) -> MetadataVersion {
        self.version
    }

    /// The body length the message declares.
    pub fn body_length(&self) -> u64 {
        self.body_length
    }
}

/// A decoded message with facts about its encoding.
#[derive(Clone, Debug)]
pub struct DecodedMessage {
    /// The tensor.
    pub message: Message,
    /// Byte offset of the message start (in the stream or buffer it was read from).
    pub offset: u64,
    /// Prefix kind.
    pub framing: Framing,
    /// Metadata version.
    pub version: MetadataVersion,
    /// Metadata length as stored in the prefix (flatbuffer plus padding).
    pub metadata_length: usize,
    /// Body length as declared.
    pub body_length: u64,
    /// Offset of the body from the message start.
    pub body_offset: usize,
}

impl DecodedMessage {
    /// Total bytes the message occupies (prefix, metadata, body).
    pub fn total_length(&self) -> u64 {
        self.body_offset as u64 + self.body_length
    }
}

fn neg(what: impl Into<String>, value: i64) -> Error {
    ErrorKind::Negative {
        what: what.into(),
        value,
    }
    .into()
}

fn value_type_of(
    type_type: fb::Type,
    int: Option<fb::Int>,
    float: Option<fb::FloatingPoint>,
) -> Result<ValueType> {
    if let Some(i) = int {
        return match IndexType::from_int(i.bitWidth(), i.is_signed()) {
            Some(t) => Ok(ValueType::from_index_type(t)),
            None => fail(ErrorKind::UnsupportedValueType(format!(
                "Int(bitWidth = {}, signed = {})",
                i.bitWidth(),
                i.is_signed()
            ))),
        };
    }
    if let Some(f) = float {
        return match f.precision() {
            fb::Precision::HALF => Ok(ValueType::Float16),
            fb::Precision::SINGLE => Ok(ValueType::Float32),
            fb::Precision::DOUBLE => Ok(ValueType::Float64),
            p => fail(ErrorKind::UnsupportedValueType(format!(
                "FloatingPoint precision {}",
                p.0
            ))),
        };
    }
    match type_type.variant_name() {
        Some(name) => fail(ErrorKind::UnsupportedValueType(name.to_string())),
        None => fail(ErrorKind::UnknownUnion {
            union: "Type",
            value: type_type.0,
        }),
    }
}

fn index_type_of(role: &'static str, int: Option<fb::Int>) -> Result<IndexType> {
    let Some(i) = int else {
        return fail(ErrorKind::MissingField(role));
    };
    IndexType::from_int(i.bitWidth(), i.is_signed()).ok_or_else(|| {
        ErrorKind::UnsupportedIndexType {
            role,
            found: format!(
                "Int(bitWidth = {}, signed = {})",
                i.bitWidth(),
                i.is_signed()
            ),
        }
        .into()
    })
}

fn shape_of<'a>(
    dims: impl ExactSizeIterator<Item = fb::TensorDim<'a>>,
    limits: &Limits,
) -> Result<(Vec<usize>, Vec<String>)> {
    if dims.len() > limits.max_rank {
        return fail(ErrorKind::LimitExceeded {
            what: "rank",
            value: dims.len() as u64,
            limit: limits.max_rank as u64,
        });
    }
    let mut shape = Vec::with_capacity(dims.len());
    let mut names = Vec::with_capacity(dims.len());
    for (i, d) in dims.enumerate() {
        let size = d.size_();
        if size < 0 {
            return Err(neg(format!("size of dimension {i}"), size));
        }
        shape
            .push(usize::try_from(size).map_err(|_| ErrorKind::Overflow("dimension size".into()))?);
        names.push(d.name().unwrap_or_default().to_string());
    }
    Ok((shape, names))
}

fn check_version(v: i16) -> Result<MetadataVersion> {
    match v {
        3 => Ok(MetadataVersion::V4),
        4 => Ok(MetadataVersion::V5),
        v => fail(ErrorKind::UnsupportedVersion(v)),
    }
}

fn body_length_of(len: i64, limits: &Limits) -> Result<u64> {
    if len < 0 {
        return fail(ErrorKind::NegativeBodyLength(len));
    }
    if len as u64 > limits.max_body_len {
        return fail(ErrorKind::LimitExceeded {
            what: "bodyLength",
            value: len as u64,
            limit: limits.max_body_len,
        });
    }
    Ok(len as u64)
}

fn header_name(h: fb::MessageHeader) -> Result<&'static str> {
    match h {
        fb::MessageHeader::NONE => Ok("a message without header"),
        h => match h.variant_name() {
            Some(name) => Ok(name),
            None => fail(ErrorKind::UnknownUnion {
                union: "MessageHeader",
                value: h.0,
            }),
        },
    }
}

fn verifier_options() -> flatbuffers::VerifierOptions {
    flatbuffers::VerifierOptions {
        max_depth: 128,
        ..Default::default()
    }
}

/// Parses and checks a `Message` flatbuffer (the bytes after the prefix).
pub fn decode_metadata(metadata: &[u8], options: &ReadOptions) -> Result<MessageMeta> {
    let limits = &options.limits;
    let opts = verifier_options();
    let msg = match flatbuffers::root_with_opts::<fb::Message>(&opts, metadata) {
        Ok(m) => m,
        Err(modern_err) => {
            // An Arrow 0.15 CSR message does not verify against the current schema; try the
            // 0.15 schema, and report the modern error if that fails too. Only a 0.15 CSR
            // index qualifies: any other message that fails the current schema (a COO or CSF
            // message missing a required field, say) is invalid, not legacy.
            return match flatbuffers::root_with_opts::<legacy::Message>(&opts, metadata) {
                Ok(m)
                    if m.header_as_sparse_tensor().is_some_and(|t| {
                        t.sparseIndex_type() == legacy::SparseTensorIndex::SparseMatrixIndexCSR
                    }) =>
                {
                    decode_legacy(m, limits)
                }
                _ => Err(modern_err.into()),
            };
        }
    };
    let version = check_version(msg.version().0)?;
    let body_length = body_length_of(msg.bodyLength(), limits)?;
    if let Some(t) = msg.header_as_tensor() {
        let value_type =
            value_type_of(t.type_type(), t.type__as_int(), t.type__as_floating_point())?;
        let (shape, dim_names) = shape_of(t.shape().iter(), limits)?;
        let strides = t.strides().map(|s| s.iter().collect::<Vec<i64>>());
        return Ok(MessageMeta {
            version,
            body_length,
            value_type,
            shape,
            dim_names,
            plan: Plan::Dense {
                strides,
                data: t.data().into(),
            },
        });
    }
    let Some(t) = msg.header_as_sparse_tensor() else {
        return fail(ErrorKind::NotATensor(header_name(msg.header_type())?));
    };
    let value_type = value_type_of(t.type_type(), t.type__as_int(), t.type__as_floating_point())?;
    let (shape, dim_names) = shape_of(t.shape().iter(), limits)?;
    let index = if let Some(c) = t.sparseIndex_as_sparse_tensor_index_coo() {
        coo_plan(c)?
    } else if let Some(c) = t.sparseIndex_as_sparse_matrix_index_csx() {
        let axis = match c.compressedAxis() {
            fb::SparseMatrixCompressedAxis::Row => CompressedAxis::Row,
            fb::SparseMatrixCompressedAxis::Column => CompressedAxis::Column,
            a => {
                return fail(ErrorKind::UnknownUnion {
                    union: "SparseMatrixCompressedAxis",
                    value: a.0 as u8,
                })
            }
        };
        IndexPlan::Csx {
            axis,
            indptr_type: index_type_of("CSX indptrType", Some(c.indptrType()))?,
            indptr: c.indptrBuffer().into(),
            indices_type: index_type_of("CSX indicesType", Some(c.indicesType()))?,
            indices: c.indicesBuffer().into(),
        }
    } else if let Some(c) = t.sparseIndex_as_sparse_tensor_index_csf() {
        let (indptr, indices, axis_order) = (c.indptrBuffers(), c.indicesBuffers(), c.axisOrder());
        for (what, n) in [
            ("CSF indptrBuffers", indptr.len()),
            ("CSF indicesBuffers", indices.len()),
            ("CSF axisOrder", axis_order.len()),
        ] {
            if n > limits.max_rank {
                return fail(ErrorKind::LimitExceeded {
                    what,
                    value: n as u64,
                    limit: limits.max_rank as u64,
                });
            }
        }
        IndexPlan::Csf {
            indptr_type: index_type_of("CSF indptrType", Some(c.indptrType()))?,
            indptr: indptr.iter().map(BufRef::from).collect(),
            indices_type: index_type_of("CSF indicesType", Some(c.indicesType()))?,
            indices: indices.iter().map(BufRef::from).collect(),
            axis_order: axis_order.iter().collect(),
        }
    } else {
        return fail(ErrorKind::UnknownUnion {
            union: "SparseTensorIndex",
            value: t.sparseIndex_type().0,
        });
    };
    Ok(MessageMeta {
        version,
        body_length,
        value_type,
        shape,
        dim_names,
        plan: Plan::Sparse {
            nnz: t.non_zero_length(),
            data: t.data().into(),
            index,
        },
    })
}

fn coo_plan(c: fb::SparseTensorIndexCOO) -> Result<IndexPlan> {
    Ok(IndexPlan::Coo {
        index_type: index_type_of("COO indicesType", Some(c.indicesType()))?,
        strides: c.indicesStrides().map(|s| s.iter().collect()),
        buffer: c.indicesBuffer().into(),
        canonical: c.isCanonical(),
    })
}

/// The Arrow 0.15 schema: COO as today (without isCanonical), CSR without compressedAxis.
fn decode_legacy(msg: legacy::Message, limits: &Limits) -> Result<MessageMeta> {
    let version = check_version(msg.version().0)?;
    let body_length = body_length_of(msg.bodyLength(), limits)?;
    let Some(t) = msg.header_as_sparse_tensor() else {
        return fail(ErrorKind::NotATensor(header_name(fb::MessageHeader(
            msg.header_type().0,
        ))?));
    };
    let value_type = value_type_of(t.type_type(), t.type__as_int(), t.type__as_floating_point())?;
    let Some(dims) = t.shape() else {
        return fail(ErrorKind::MissingField("SparseTensor.shape"));
    };
    let (shape, dim_names) = shape_of(dims.iter(), limits)?;
    let index = if let Some(c) = t.sparseIndex_as_org_apache_arrow_flatbuf_sparse_tensor_index_coo()
    {
        coo_plan(c)?
    } else if let Some(c) = t.sparseIndex_as_sparse_matrix_index_csr() {
        IndexPlan::Csx {
            axis: CompressedAxis::Row,
            indptr_type: index_type_of("CSR indptrType", c.indptrType())?,
            indptr: c
                .indptrBuffer()
                .ok_or(ErrorKind::MissingField("CSR indptrBuffer"))?
                .into(),
            indices_type: index_type_of("CSR indicesType", c.indicesType())?,
            indices: c
                .indicesBuffer()
                .ok_or(ErrorKind::MissingField("CSR indicesBuffer"))?
                .into(),
        }
    } else {
        return fail(ErrorKind::UnknownUnion {
            union: "SparseTensorIndex (Arrow 0.15)",
            value: t.sparseIndex_type().0,
        });
    };
    let data = t
        .data()
        .ok_or(ErrorKind::MissingField("SparseTensor.data"))?;
    Ok(MessageMeta {
        version,
        body_length,
        value_type,
        shape,
        dim_names,
        plan: Plan::Sparse {
            nnz: t.non_zero_length(),
            data: data.into(),
            index,
        },
    })
}

/// Slices body buffers with every check a hostile message needs.
struct BodySlicer<'a> {
    body: &'a Buffer,
    policy: Misaligned,
    used: Vec<(usize, usize, BufferId)>,
}

impl BodySlicer<'_> {
    /// The first `needed` bytes of the region `r`, aligned to `align`.
    fn take(&mut self, r: BufRef, needed: u64, align: usize, id: BufferId) -> Result<Buffer> {
        let body_len = self.body.len() as u64;
        if r.offset < 0 {
            return Err(neg(format!("offset of {id}"), r.offset));
        }
        if r.length < 0 {
            return Err(neg(format!("length of {id}"), r.length));
        }
        let (off, len) = (r.offset as u64, r.length as u64);
        let out_of_body = || ErrorKind::BufferOutOfBody {
            buffer: id,
            offset: r.offset,
            length: r.length,
            body_length: body_len,
        };
        match off.checked_add(len) {
            Some(end) if end <= body_len => {}
            _ => return Err(out_of_body().into()),
        }
        if len < needed {
            return fail(ErrorKind::BufferTooShort {
                buffer: id,
                needed,
                length: len,
            });
        }
        // off + needed <= off + len <= body length, which fits in usize.
        let (off, needed) = (off as usize, needed as usize);
        if needed > 0 {
            self.used.push((off, off + needed, id));
        }
        let slice = self.body.slice_with_length(off, needed);
        align_buffer(slice, align, id, off as u64, self.policy)
    }

    fn index(&mut self, r: BufRef, t: IndexType, count: u64, id: BufferId) -> Result<IndexArray> {
        let w = t.byte_width() as u64;
        let needed = count
            .checked_mul(w)
            .ok_or_else(|| ErrorKind::Overflow(format!("byte length of {id}")))?;
        let buf = self.take(r, needed, t.byte_width(), id)?;
        IndexArray::try_new(t, buf)
    }

    fn check_overlap(&mut self) -> Result<()> {
        self.used.sort_unstable_by_key(|u| u.0);
        for w in self.used.windows(2) {
            if let [(_, end, first), (start, _, second)] = *w {
                if start < end {
                    return fail(ErrorKind::Overlap { first, second });
                }
            }
        }
        Ok(())
    }
}

/// Builds the tensor of a message from its metadata and body (zero-copy).
pub fn assemble(meta: MessageMeta, body: Buffer, options: &ReadOptions) -> Result<Message> {
    let MessageMeta {
        value_type,
        shape,
        dim_names,
        plan,
        ..
    } = meta;
    let w = value_type.byte_width();
    match plan {
        Plan::Dense { strides, data } => {
            let strides = dense_strides(strides, &shape, w)?;
            let body = dense_data(&body, data, &shape, &strides, w, options)?;
            let t = Tensor::try_new(value_type, shape, strides, body)?;
            // Zero or overlapping strides let a tiny body describe a huge tensor, whose
            // row-major copy (on re-encoding, `to_vec`, ...) would be huge: bound those.
            let limit = options.limits.max_dense_elements;
            if t.len().saturating_mul(w) > t.data().len() && t.len() > limit {
                return fail(ErrorKind::LimitExceeded {
                    what: "element count of a dense tensor with aliasing strides",
                    value: t.len() as u64,
                    limit: limit as u64,
                });
            }
            Ok(Message::Tensor(t.with_dim_names(dim_names)?))
        }
        Plan::Sparse { nnz, data, index } => {
            if nnz < 0 {
                return Err(neg("non_zero_length", nnz));
            }
            let nnz = nnz as u64;
            if nnz > options.limits.max_nnz {
                return fail(ErrorKind::LimitExceeded {
                    what: "non_zero_length",
                    value: nnz,
                    limit: options.limits.max_nnz,
                });
            }
            let mut slicer = BodySlicer {
                body: &body,
                policy: options.misaligned,
                used: Vec::new(),
            };
            let ndim = shape.len() as u64;
            let (index, nnz) = match index {
                IndexPlan::Coo {
                    index_type,
                    strides,
                    buffer,
                    canonical,
                } => {
                    let iw = index_type.byte_width() as i64;
                    let order = coo_order(strides.as_deref(), nnz, ndim, iw)?;
                    let cells = nnz
                        .checked_mul(ndim)
                        .ok_or_else(|| ErrorKind::Overflow("COO nnz x ndim".into()))?;
                    let arr = slicer.index(buffer, index_type, cells, BufferId::CooIndices)?;
                    // The flag as the message states it (strict validation checks it): no
                    // scan of the coordinates here, so permissive decoding stays O(1).
                    let mut coo = CooIndex::with_flag(arr, shape.len(), order, canonical)?;
                    // Rank 0 has no coordinates to count: take nnz from the message before
                    // the flag, so that the flag is kept (two entries flagged canonical are
                    // duplicates of the one cell) rather than recomputed.
                    if let Ok(n) = usize::try_from(nnz) {
                        coo.set_rank0_nnz(n);
                    }
                    (SparseIndex::Coo(coo.with_canonical_flag(canonical)), nnz)
                }
                IndexPlan::Csx {
                    axis,
                    indptr_type,
                    indptr,
                    indices_type,
                    indices,
                } => {
                    if shape.len() != 2 {
                        return fail(ErrorKind::InvalidRank {
                            layout: "CSR/CSC",
                            needed: "rank 2",
                            rank: shape.len(),
                        });
                    }
                    let outer = shape.get(axis.dim()).copied().unwrap_or(0) as u64;
                    let n = outer
                        .checked_add(1)
                        .ok_or_else(|| ErrorKind::Overflow("CSX indptr length".into()))?;
                    let indptr = slicer.index(indptr, indptr_type, n, BufferId::CsxIndptr)?;
                    let indices = slicer.index(indices, indices_type, nnz, BufferId::CsxIndices)?;
                    (SparseIndex::Csx(CsxIndex::new(axis, indptr, indices)), nnz)
                }
                IndexPlan::Csf {
                    indptr_type,
                    indptr,
                    indices_type,
                    indices,
                    axis_order,
                } => csf_index(
                    &mut slicer,
                    &shape,
                    nnz,
                    indptr_type,
                    &indptr,
                    indices_type,
                    &indices,
                    &axis_order,
                )?,
            };
            let needed = nnz
                .checked_mul(w as u64)
                .ok_or_else(|| ErrorKind::Overflow("values byte length".into()))?;
            let values = slicer.take(data, needed, w, BufferId::Values)?;
            if options.validation == Validation::Strict {
                slicer.check_overlap()?;
            }
            let t = SparseTensor::from_parts(value_type, shape, values, index, options.validation)?;
            Ok(Message::SparseTensor(t.with_dim_names(dim_names)?))
        }
    }
}

/// The byte strides of a dense tensor: the message's, or row-major ones when it has none
/// (absent, or empty for a non-scalar). Row-major strides whose products do not fit in an
/// int64 are refused even for a tensor without elements, as Arrow C++ refuses them: they
/// could not be written back.
fn dense_strides(strides: Option<Vec<i64>>, shape: &[usize], w: usize) -> Result<Vec<usize>> {
    match strides {
        Some(s) if !s.is_empty() || shape.is_empty() => {
            if s.len() != shape.len() {
                return fail(ErrorKind::CountMismatch {
                    what: "tensor strides (one per dimension)".into(),
                    expected: shape.len() as u64,
                    found: s.len() as u64,
                });
            }
            let mut out = Vec::with_capacity(s.len());
            for (i, (&st, &d)) in s.iter().zip(shape).enumerate() {
                if st < 0 && d != 0 {
                    return Err(neg(format!("stride of dimension {i}"), st));
                }
                out.push(
                    usize::try_from(st.max(0))
                        .map_err(|_| ErrorKind::Overflow(format!("stride of dimension {i}")))?,
                );
            }
            Ok(out)
        }
        _ => crate::tensor::checked_row_major_strides(shape, w).ok_or_else(|| {
            ErrorKind::Overflow(format!(
                "row-major strides of shape {shape:?} (they do not fit in an int64)"
            ))
            .into()
        }),
    }
}

/// The bytes of a dense tensor. Strict validation takes them from where `Tensor.data`
/// points: inside the body, not negative, long enough for the shape and strides, aligned
/// for the value type (or copied, as the misaligned policy says). Permissive decoding takes
/// the same region when it is usable and the whole body otherwise (Arrow C++ ignores the
/// field and reads the body).
fn dense_data(
    body: &Buffer,
    data: BufRef,
    shape: &[usize],
    strides: &[usize],
    w: usize,
    options: &ReadOptions,
) -> Result<Buffer> {
    let id = BufferId::TensorData;
    let extent = crate::tensor::strided_extent(shape, strides, w).ok_or_else(|| {
        ErrorKind::Overflow(format!(
            "extent of shape {shape:?} with strides {strides:?}"
        ))
    })? as u64;
    let body_len = body.len() as u64;
    let region = (|| {
        if data.offset < 0 {
            return Err(neg(format!("offset of {id}"), data.offset));
        }
        if data.length < 0 {
            return Err(neg(format!("length of {id}"), data.length));
        }
        let (off, len) = (data.offset as u64, data.length as u64);
        match off.checked_add(len) {
            Some(end) if end <= body_len => {}
            _ => {
                return fail(ErrorKind::BufferOutOfBody {
                    buffer: id,
                    offset: data.offset,
                    length: data.length,
                    body_length: body_len,
                })
            }
        }
        if len < extent {
            return fail(ErrorKind::BufferTooShort {
                buffer: id,
                needed: extent,
                length: len,
            });
        }
        // off + len <= body length, which fits in usize.
        Ok((off as usize, len as usize))
    })();
    let (off, len) = match (region, options.validation) {
        (Ok(r), _) => r,
        (Err(e), Validation::Strict) => return Err(e),
        (Err(_), Validation::Permissive) => (0, body.len()),
    };
    let slice = body.slice_with_length(off, len);
    align_buffer(slice, w, id, off as u64, options.misaligned)
}

/// Tells the layout of a COO matrix from its `indicesStrides`.
fn coo_order(strides: Option<&[i64]>, nnz: u64, ndim: u64, w: i64) -> Result<CooOrder> {
    let Some(s) = strides.filter(|s| !s.is_empty()) else {
        return Ok(CooOrder::RowMajor);
    };
    let &[entry_step, dim_step] = s else {
        return fail(ErrorKind::InvalidCooStrides(s.to_vec()));
    };
    if nnz == 0 || ndim == 0 || nnz == 1 && ndim == 1 {
        // Degenerate: any pair of strides describes the same (empty or single) cell; Arrow
        // writes [w, w] here.
        return Ok(CooOrder::RowMajor);
    }
    let row = (ndim as i64).checked_mul(w) == Some(entry_step) && dim_step == w;
    let col = entry_step == w && (nnz as i64).checked_mul(w) == Some(dim_step);
    // With one column (ndim = 1) or one row (nnz = 1) both layouts are the same bytes and
    // the step along the single-size axis is irrelevant.
    if row || (ndim == 1 && entry_step == w) || (nnz == 1 && dim_step == w) {
        Ok(CooOrder::RowMajor)
    } else if col {
        Ok(CooOrder::ColumnMajor)
    } else {
        fail(ErrorKind::InvalidCooStrides(s.to_vec()))
    }
}

#[allow(clippy::too_many_arguments)]
fn csf_index(
    slicer: &mut BodySlicer,
    shape: &[usize],
    nnz: u64,
    indptr_type: IndexType,
    indptr: &[BufRef],
    indices_type: IndexType,
    indices: &[BufRef],
    axis_order: &[i32],
) -> Result<(SparseIndex, u64)> {
    let ndim = shape.len();
    if ndim < 2 {
        return fail(ErrorKind::InvalidRank {
            layout: "CSF",
            needed: "rank 2 or more",
            rank: ndim,
        });
    }
    for (what, expected, found) in [
        ("CSF indptrBuffers (ndim - 1)", ndim - 1, indptr.len()),
        ("CSF indicesBuffers (ndim)", ndim, indices.len()),
        ("CSF axisOrder entries (ndim)", ndim, axis_order.len()),
    ] {
        if expected != found {
            return fail(ErrorKind::CountMismatch {
                what: what.into(),
                expected: expected as u64,
                found: found as u64,
            });
        }
    }
    let mut order = Vec::with_capacity(ndim);
    for &a in axis_order {
        match usize::try_from(a) {
            Ok(a) if a < ndim => order.push(a),
            _ => {
                return fail(ErrorKind::NotAPermutation(
                    axis_order.iter().map(|&v| v as i64).collect(),
                ))
            }
        }
    }
    let (pw, iw) = (
        indptr_type.byte_width() as i64,
        indices_type.byte_width() as i64,
    );
    // Arrow C++ writes element counts in Buffer.length; the format document says bytes. Use
    // whichever reading makes the tree consistent, counts first.
    let counts = |unit_p: i64, unit_i: i64| -> Option<(Vec<u64>, Vec<u64>)> {
        let conv = |r: &BufRef, unit: i64| -> Option<u64> {
            (r.length >= 0 && r.length % unit == 0).then(|| (r.length / unit) as u64)
        };
        let p: Vec<u64> = indptr
            .iter()
            .map(|r| conv(r, unit_p))
            .collect::<Option<_>>()?;
        let i: Vec<u64> = indices
            .iter()
            .map(|r| conv(r, unit_i))
            .collect::<Option<_>>()?;
        let consistent = i.last() == Some(&nnz)
            && p.iter()
                .zip(&i)
                .all(|(&np, &ni)| ni.checked_add(1) == Some(np));
        consistent.then_some((p, i))
    };
    let (np, ni) =
        counts(1, 1)
            .or_else(|| counts(pw, iw))
            .ok_or_else(|| ErrorKind::CountMismatch {
                what:
                    "CSF buffer lengths consistent with the tree (indices of the last level = nnz, \
                   indptr of level k = indices of level k + 1), read as element counts or as bytes"
                        .into(),
                expected: nnz,
                found: indices.last().map_or(0, |r| r.length.max(0) as u64),
            })?;
    let mut ptr_arrays = Vec::with_capacity(np.len());
    for (k, (r, &n)) in indptr.iter().zip(&np).enumerate() {
        let r = BufRef {
            offset: r.offset,
            length: n.saturating_mul(pw as u64) as i64,
        };
        ptr_arrays.push(slicer.index(r, indptr_type, n, BufferId::CsfIndptr(k))?);
    }
    let mut idx_arrays = Vec::with_capacity(ni.len());
    for (k, (r, &n)) in indices.iter().zip(&ni).enumerate() {
        let r = BufRef {
            offset: r.offset,
            length: n.saturating_mul(iw as u64) as i64,
        };
        idx_arrays.push(slicer.index(r, indices_type, n, BufferId::CsfIndices(k))?);
    }
    Ok((
        SparseIndex::Csf(CsfIndex::new(order, ptr_arrays, idx_arrays)),
        nnz,
    ))
}

/// Decodes the message at the start of `bytes` (zero-copy: the tensor's buffers are slices
/// of `bytes`). Returns `Ok(None)` at an end-of-stream marker or when `bytes` is empty.
///
/// ```
/// use arrow_tensor_ipc::{decode_message, encode, ReadOptions, Tensor, WriteOptions};
/// let t = Tensor::from_vec(vec![2, 2], vec![1.0f64, 2.0, 3.0, 4.0]).unwrap();
/// let bytes = encode(&t.clone().into(), &WriteOptions::default()).unwrap().to_bytes();
/// let decoded = decode_message(&bytes, &ReadOptions::default()).unwrap().unwrap();
/// assert!(decoded.message.as_tensor().unwrap().content_eq(&t));
/// assert_eq!(decoded.total_length(), bytes.len() as u64);
/// ```
pub fn decode_message(
    bytes: &bytes::Bytes,
    options: &ReadOptions,
) -> Result<Option<DecodedMessage>> {
    decode_at(&Buffer::from(bytes.clone()), 0, options)
}

/// Decodes the message starting at `offset` of `buffer`.
pub(crate) fn decode_at(
    buffer: &Buffer,
    offset: usize,
    options: &ReadOptions,
) -> Result<Option<DecodedMessage>> {
    let bytes = buffer.as_slice().get(offset..).unwrap_or_default();
    if bytes.is_empty() {
        return Ok(None);
    }
    let at = |e: Error| e.at(offset as u64);
    let prefix = parse_prefix(bytes).map_err(at)?.ok_or_else(|| {
        at(ErrorKind::Truncated {
            part: "prefix",
            needed: 8,
            available: bytes.len() as u64,
        }
        .into())
    })?;
    let (framing, prefix_len, metadata_len) = match prefix {
        Prefix::EndOfStream { .. } => return Ok(None),
        Prefix::Message {
            framing,
            prefix_len,
            metadata_len,
        } => (framing, prefix_len, metadata_len),
    };
    if metadata_len > options.limits.max_metadata_len {
        return Err(at(ErrorKind::LimitExceeded {
            what: "metadata length",
            value: metadata_len as u64,
            limit: options.limits.max_metadata_len as u64,
        }
        .into()));
    }
    let body_offset = prefix_len + metadata_len;
    let Some(metadata) = bytes.get(prefix_len..body_offset) else {
        return Err(at(ErrorKind::Truncated {
            part: "metadata",
            needed: body_offset as u64,
            available: bytes.len() as u64,
        }
        .into()));
    };
    let meta = decode_metadata(metadata, options).map_err(at)?;
    let version = meta.version;
    let body_length = meta.body_length;
    let available = (bytes.len() - body_offset) as u64;
    if body_length > available {
        return Err(at(ErrorKind::Truncated {
            part: "body",
            needed: body_length,
            available,
        }
        .into()));
    }
    let body = buffer.slice_with_length(offset + body_offset, body_length as usize);
    let message = assemble(meta, body, options).map_err(at)?;
    Ok(Some(DecodedMessage {
        message,
        offset: offset as u64,
        framing,
        version,
        metadata_length: metadata_len,
        body_length,
        body_offset,
    }))
}

/// Iterates over the messages in a buffer until its end or an end-of-stream marker.
/// Stops after the first error (which it yields).
pub struct MessageIter {
    buffer: Buffer,
    offset: usize,
    options: ReadOptions,
    done: bool,
}

impl MessageIter {
    /// Iterates over the messages of `bytes` (zero-copy).
    pub fn new(bytes: impl Into<Buffer>, options: ReadOptions) -> Self {
        MessageIter {
            buffer: bytes.into(),
            offset: 0,
            options,
            done: false,
        }
    }
}

impl Iterator for MessageIter {
    type Item = Result<DecodedMessage>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match decode_at(&self.buffer, self.offset, &self.options) {
            Ok(Some(m)) => {
                self.offset += m.total_length() as usize;
                Some(Ok(m))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
