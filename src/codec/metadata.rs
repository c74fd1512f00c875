//! Metadata: the `Message` flatbuffer (current schema, or Arrow 0.15's for its CSR
//! messages) -> [`MessageMeta`], a checked plan of the body that says how many body bytes
//! follow and where each buffer lies in them.
//!
//! Nothing here looks at the body; [`body`](super::body) lays the plan over it.

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::options::{Limits, ReadOptions};
use crate::custom_metadata::CustomMetadata;
use crate::error::{fail, Error, ErrorKind, Result};
use crate::gen::legacy_015 as legacy;
use crate::gen::org::apache::arrow::flatbuf as fb;
use crate::sparse::CompressedAxis;
use crate::types::{IndexType, ValueType};

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
pub(super) struct BufRef {
    pub(super) offset: i64,
    pub(super) length: i64,
}

impl From<&fb::Buffer> for BufRef {
    fn from(b: &fb::Buffer) -> Self {
        BufRef {
            offset: b.offset(),
            length: b.length(),
        }
    }
}

/// Where a sparse index's arrays lie, and their types.
#[derive(Clone, Debug)]
pub(super) enum IndexPlan {
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

/// Where a tensor's buffers lie in the body.
#[derive(Clone, Debug)]
pub(super) enum Plan {
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
pub(super) struct MessageMeta {
    version: MetadataVersion,
    body_length: u64,
    pub(super) value_type: ValueType,
    pub(super) shape: Vec<usize>,
    pub(super) dim_names: Vec<String>,
    pub(super) plan: Plan,
    /// The `Message` table's `custom_metadata` (the Arrow 0.15 schema has none).
    pub(super) custom_metadata: Option<CustomMetadata>,
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

/// A [`ErrorKind::Negative`] error.
pub(super) fn neg(what: impl Into<String>, value: i64) -> Error {
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
        shape.push(usize::try_from(size).map_err(|_| ErrorKind::Overflow {
            quantity: crate::Quantity::DimensionSize {
                dim: i,
                size: size as u64,
                target: "usize",
            },
        })?);
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
pub(super) fn decode_metadata(metadata: &[u8], options: &ReadOptions) -> Result<MessageMeta> {
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
                _ => Err(ErrorKind::flatbuffer(modern_err).into()),
            };
        }
    };
    let version = check_version(msg.version().0)?;
    let body_length = super::framing::body_length(msg.bodyLength(), limits)?;
    let custom_metadata = custom_metadata_of(msg.custom_metadata())?;
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
            custom_metadata,
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
        custom_metadata,
    })
}

/// The `custom_metadata` key/value list. The verifier has checked it (within the metadata,
/// whose length [`Limits::max_metadata_len`] bounds; every string UTF-8, or the message is
/// an [`ErrorKind::InvalidFlatbuffer`]): the copy is as large as the flatbuffer's strings.
/// A `KeyValue` without a key or a value is an [`ErrorKind::MissingField`] (the schema
/// leaves both optional; a missing one has no meaning to keep).
fn custom_metadata_of(
    list: Option<flatbuffers::Vector<'_, flatbuffers::ForwardsUOffset<fb::KeyValue<'_>>>>,
) -> Result<Option<CustomMetadata>> {
    let Some(list) = list else {
        return Ok(None);
    };
    let mut pairs = Vec::with_capacity(list.len());
    for kv in list.iter() {
        let key = kv.key().ok_or(ErrorKind::MissingField("KeyValue.key"))?;
        let value = kv
            .value()
            .ok_or(ErrorKind::MissingField("KeyValue.value"))?;
        pairs.push((key, value));
    }
    Ok(Some(CustomMetadata::new(pairs)))
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
    let body_length = super::framing::body_length(msg.bodyLength(), limits)?;
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
        custom_metadata: None,
    })
}
