//! Encoding: [`Message`] -> [`EncodedMessage`], laid out as Arrow C++ reads it and as the
//! format document asks for alignment.
//!
//! Layout of every message we write: `FFFFFFFF`, metadata length, `Message` flatbuffer
//! (version V5) padded so that the body starts 64 bytes after the message start, then the
//! body, in which every buffer starts at a multiple of 64 and which is padded to a multiple
//! of 64. Consecutive messages in a stream therefore stay 64-byte aligned.

use super::copy;
use super::framing::{pad_to, CONTINUATION};
use super::options::{CsfLengths, WriteOptions};
use super::Message;
use crate::array::IndexArray;
use crate::custom_metadata::CustomMetadata;
use crate::error::{fail, ErrorKind, Result};
use crate::gen::org::apache::arrow::flatbuf as fb;
use crate::sparse::{CompressedAxis, CooOrder, SparseIndex, SparseTensor};
use crate::tensor::{column_major_strides, row_major_strides, Tensor};
use crate::types::{IndexType, ValueType};
use arrow_buffer::Buffer;
use flatbuffers::{FlatBufferBuilder, UnionWIPOffset, WIPOffset};
use std::io::{IoSlice, Write};
use std::mem::MaybeUninit;

/// Alignment of the body and of every body buffer.
pub const ALIGNMENT: usize = 64;

/// One piece of a message body.
#[derive(Clone, Debug)]
pub enum BodyPart {
    /// Bytes of a tensor buffer (shared, not copied).
    Data(Buffer),
    /// Zero padding.
    Zeros(usize),
}

static ZEROS: [u8; ALIGNMENT] = [0; ALIGNMENT];

/// An encoded message: a header (prefix, metadata, padding) and body pieces that share
/// the tensor's buffers. Write it with [`EncodedMessage::write_to`] (vectored, no copy of
/// the body) or flatten it with [`EncodedMessage::to_bytes`],
/// [`EncodedMessage::to_vec`] or [`EncodedMessage::write_into`] (one copy of each piece).
#[derive(Clone, Debug)]
pub struct EncodedMessage {
    header: Vec<u8>,
    body: Vec<BodyPart>,
    body_length: usize,
}

impl EncodedMessage {
    /// Prefix, metadata and padding.
    pub fn header(&self) -> &[u8] {
        &self.header
    }

    /// The body pieces.
    pub fn body(&self) -> &[BodyPart] {
        &self.body
    }

    /// Length of the body.
    pub fn body_length(&self) -> usize {
        self.body_length
    }

    /// Total length of the message.
    pub fn len(&self) -> usize {
        self.header.len() + self.body_length
    }

    /// Always false: a message has at least a header.
    pub fn is_empty(&self) -> bool {
        false
    }

    fn slices(&self) -> Vec<&[u8]> {
        let mut out = Vec::with_capacity(1 + self.body.len());
        out.push(self.header.as_slice());
        for p in &self.body {
            match p {
                BodyPart::Data(b) => out.push(b.as_slice()),
                BodyPart::Zeros(n) => {
                    let mut n = *n;
                    while n > 0 {
                        let k = n.min(ZEROS.len());
                        out.push(&ZEROS[..k]);
                        n -= k;
                    }
                }
            }
        }
        out.retain(|s| !s.is_empty());
        out
    }

    /// Appends the message to `out` (one copy of each piece, at memcpy speed; pieces of
    /// 4 MiB or more with non-temporal stores on x86-64, which keep that speed wherever
    /// `out`'s allocation lies relative to the tensor's buffers).
    pub fn write_into(&self, out: &mut Vec<u8>) {
        copy::write_into(out, &self.slices(), self.len());
    }

    /// The message as one vector (one copy of each piece, as
    /// [`EncodedMessage::write_into`] copies them).
    pub fn to_vec(&self) -> Vec<u8> {
        copy::to_vec(&self.slices(), self.len())
    }

    /// The message as [`bytes::Bytes`]: [`EncodedMessage::to_vec`], without a further copy.
    pub fn to_bytes(&self) -> bytes::Bytes {
        copy::to_vec(&self.slices(), self.len()).into()
    }

    /// Writes the message into the first [`EncodedMessage::len`] bytes of `out`, memory not
    /// yet initialised (a buffer of another library, shared memory, a `bytes` object being
    /// built), as [`EncodedMessage::write_into`] copies, and returns them, now initialised.
    ///
    /// Fails with [`ErrorKind::OutputTooSmall`](crate::ErrorKind::OutputTooSmall) when
    /// `out` is shorter than the message.
    ///
    /// ```
    /// use arrow_tensor_ipc::{encode, Tensor, WriteOptions};
    /// use std::mem::MaybeUninit;
    ///
    /// let t = Tensor::from_vec(vec![2, 2], vec![1.0f64, 2.0, 3.0, 4.0])?;
    /// let encoded = encode(&t.into(), &WriteOptions::default())?;
    /// let mut out = vec![MaybeUninit::<u8>::uninit(); encoded.len() + 16];
    /// let written = encoded.write_to_uninit(&mut out)?;
    /// assert_eq!(written.len(), encoded.len());
    /// assert_eq!(&written[..], &encoded.to_vec()[..]);
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn write_to_uninit<'a>(&self, out: &'a mut [MaybeUninit<u8>]) -> Result<&'a mut [u8]> {
        if out.len() < self.len() {
            return fail(ErrorKind::OutputTooSmall {
                operation: "EncodedMessage::write_to_uninit",
                needed: self.len() as u64,
                available: out.len() as u64,
            });
        }
        Ok(copy::write_to_uninit(out, &self.slices()))
    }

    /// Writes the message with vectored writes (the body is not copied on the way). A
    /// writer that is a `Vec<u8>` (or a `&mut Vec<u8>`) gets the message appended as
    /// [`EncodedMessage::write_into`] appends it.
    pub fn write_to<W: Write + ?Sized>(&self, w: &mut W) -> std::io::Result<()> {
        if let Some(v) = copy::as_vec(w) {
            self.write_into(v);
            return Ok(());
        }
        let slices = self.slices();
        let mut io: Vec<IoSlice> = slices.iter().map(|s| IoSlice::new(s)).collect();
        let mut rest: &mut [IoSlice] = &mut io;
        while !rest.is_empty() {
            match w.write_vectored(rest) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => IoSlice::advance_slices(&mut rest, n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// Lays out body buffers at 64-byte offsets.
struct BodyBuilder {
    parts: Vec<BodyPart>,
    len: usize,
}

impl BodyBuilder {
    fn new() -> Self {
        BodyBuilder {
            parts: Vec::new(),
            len: 0,
        }
    }

    /// Appends a buffer at the next 64-byte offset; returns its `(offset, byte length)`.
    fn push(&mut self, b: &Buffer) -> (i64, i64) {
        let start = pad_to(self.len, ALIGNMENT);
        if start > self.len {
            self.parts.push(BodyPart::Zeros(start - self.len));
        }
        if !b.is_empty() {
            self.parts.push(BodyPart::Data(b.clone()));
        }
        self.len = start + b.len();
        (start as i64, b.len() as i64)
    }

    fn finish(mut self) -> (Vec<BodyPart>, usize) {
        let end = pad_to(self.len, ALIGNMENT);
        if end > self.len {
            self.parts.push(BodyPart::Zeros(end - self.len));
        }
        (self.parts, end)
    }
}

fn int_table<'a>(
    fbb: &mut FlatBufferBuilder<'a>,
    bits: usize,
    signed: bool,
) -> WIPOffset<fb::Int<'a>> {
    fb::Int::create(
        fbb,
        &fb::IntArgs {
            bitWidth: (bits * 8) as i32,
            is_signed: signed,
        },
    )
}

fn index_int<'a>(fbb: &mut FlatBufferBuilder<'a>, t: IndexType) -> WIPOffset<fb::Int<'a>> {
    int_table(fbb, t.byte_width(), t.is_signed())
}

fn value_type_union(
    fbb: &mut FlatBufferBuilder<'_>,
    t: ValueType,
) -> (fb::Type, WIPOffset<UnionWIPOffset>) {
    let precision = match t {
        ValueType::Float16 => fb::Precision::HALF,
        ValueType::Float32 => fb::Precision::SINGLE,
        ValueType::Float64 => fb::Precision::DOUBLE,
        _ => {
            let signed = matches!(
                t,
                ValueType::Int8 | ValueType::Int16 | ValueType::Int32 | ValueType::Int64
            );
            let off = int_table(fbb, t.byte_width(), signed);
            return (fb::Type::Int, off.as_union_value());
        }
    };
    let off = fb::FloatingPoint::create(fbb, &fb::FloatingPointArgs { precision });
    (fb::Type::FloatingPoint, off.as_union_value())
}

type Dims<'a> = WIPOffset<flatbuffers::Vector<'a, flatbuffers::ForwardsUOffset<fb::TensorDim<'a>>>>;

fn dims<'a>(fbb: &mut FlatBufferBuilder<'a>, shape: &[usize], names: &[String]) -> Dims<'a> {
    let offs: Vec<_> = shape
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            let name = fbb.create_string(names.get(i).map_or("", String::as_str));
            fb::TensorDim::create(
                fbb,
                &fb::TensorDimArgs {
                    size_: d as i64,
                    name: Some(name),
                },
            )
        })
        .collect();
    fbb.create_vector(&offs)
}

/// Frames a finished flatbuffer: prefix, metadata padded so the body starts at 64.
fn frame(metadata: &[u8], body: Vec<BodyPart>, body_length: usize) -> Result<EncodedMessage> {
    let header_len = pad_to(8 + metadata.len(), ALIGNMENT);
    let meta_len = i32::try_from(header_len - 8).map_err(|_| ErrorKind::Overflow {
        quantity: crate::Quantity::MetadataLength,
    })?;
    let mut header = Vec::with_capacity(header_len);
    header.extend_from_slice(&CONTINUATION);
    header.extend_from_slice(&meta_len.to_le_bytes());
    header.extend_from_slice(metadata);
    header.resize(header_len, 0);
    Ok(EncodedMessage {
        header,
        body,
        body_length,
    })
}

/// Finishes the `Message` table; `custom_metadata` is written as given (absent when
/// `None`, as Arrow C++ writes tensor messages, so such messages are byte-identical to
/// Arrow's).
fn finish_message(
    mut fbb: FlatBufferBuilder<'_>,
    header_type: fb::MessageHeader,
    header: WIPOffset<UnionWIPOffset>,
    body: BodyBuilder,
    custom_metadata: Option<&CustomMetadata>,
) -> Result<EncodedMessage> {
    let (parts, body_length) = body.finish();
    let custom_metadata = custom_metadata.map(|m| {
        let pairs: Vec<_> = m
            .iter()
            .map(|(k, v)| {
                let key = fbb.create_string(k);
                let value = fbb.create_string(v);
                fb::KeyValue::create(
                    &mut fbb,
                    &fb::KeyValueArgs {
                        key: Some(key),
                        value: Some(value),
                    },
                )
            })
            .collect();
        fbb.create_vector(&pairs)
    });
    let msg = fb::Message::create(
        &mut fbb,
        &fb::MessageArgs {
            version: fb::MetadataVersion::V5,
            header_type,
            header: Some(header),
            bodyLength: body_length as i64,
            custom_metadata,
        },
    );
    fbb.finish(msg, None);
    frame(fbb.finished_data(), parts, body_length)
}

/// Encodes a message.
///
/// The body shares the tensor's buffers (nothing is copied until the message is written
/// or flattened), with one exception: a COO tensor whose coordinates are stored
/// column-major ([`CooOrder::ColumnMajor`]) is written with a row-major copy of its
/// coordinate matrix when [`WriteOptions::arrow_compatible`] is set (the default), because
/// Arrow C++ ignores `indicesStrides` when it expands or converts a COO tensor and would
/// read the column-major matrix as a different tensor. Without that option the matrix is
/// written as it is, with column-major strides.
///
/// ```
/// use arrow_tensor_ipc::{encode, SparseTensor, WriteOptions};
/// let t = SparseTensor::csr([2, 3], vec![0i32, 1, 2], vec![2, 0], vec![7u8, 9]).unwrap();
/// let m = encode(&t.into(), &WriteOptions::default()).unwrap();
/// assert_eq!(m.len() % 64, 0);
/// assert_eq!(m.header().len() % 64, 0);
/// ```
pub fn encode(message: &Message, options: &WriteOptions) -> Result<EncodedMessage> {
    match message {
        Message::Tensor(t) => encode_tensor(t),
        Message::SparseTensor(t) => encode_sparse(t, options),
    }
}

/// Encodes a dense tensor: row-major and column-major data as they are, any other layout
/// copied to row-major.
pub fn encode_tensor(t: &Tensor) -> Result<EncodedMessage> {
    let w = t.value_type().byte_width();
    let n = t.len() * w;
    let (data, strides) = if t.is_row_major() {
        (
            t.data().slice_with_length(0, n),
            row_major_strides(t.shape(), w),
        )
    } else if t.is_column_major() {
        (
            t.data().slice_with_length(0, n),
            column_major_strides(t.shape(), w),
        )
    } else {
        (t.try_row_major_bytes()?, row_major_strides(t.shape(), w))
    };
    let mut fbb = FlatBufferBuilder::with_capacity(256 + 64 * t.ndim());
    let mut body = BodyBuilder::new();
    let (offset, length) = body.push(&data);
    let (type_type, type_) = value_type_union(&mut fbb, t.value_type());
    let shape = dims(&mut fbb, t.shape(), t.dim_names());
    let strides: Vec<i64> = strides.iter().map(|&s| s as i64).collect();
    let strides = fbb.create_vector(&strides);
    let buf = fb::Buffer::new(offset, length);
    let tensor = fb::Tensor::create(
        &mut fbb,
        &fb::TensorArgs {
            type_type,
            type_: Some(type_),
            shape: Some(shape),
            strides: Some(strides),
            data: Some(&buf),
        },
    );
    finish_message(
        fbb,
        fb::MessageHeader::Tensor,
        tensor.as_union_value(),
        body,
        t.custom_metadata(),
    )
}

fn check_arrow_index(
    options: &WriteOptions,
    role: &'static str,
    t: IndexType,
    needed: usize,
) -> Result<()> {
    if !options.arrow_compatible {
        return Ok(());
    }
    if !t.arrow_readable() {
        return fail(ErrorKind::NotArrowCompatible(format!(
            "{role} type {t}: Arrow C++ reads no uint64 index"
        )));
    }
    if needed as u64 > t.max_value() {
        return fail(ErrorKind::IndexTypeTooNarrow {
            role,
            index_type: t,
            needed: needed as u64,
            note: " (Arrow C++ checks index array lengths against the type's maximum)",
        });
    }
    Ok(())
}

/// Encodes a sparse tensor: see [`encode`] (in particular for the one case in which the
/// coordinates are copied rather than shared).
pub fn encode_sparse(t: &SparseTensor, options: &WriteOptions) -> Result<EncodedMessage> {
    let mut fbb = FlatBufferBuilder::with_capacity(512 + 64 * t.ndim());
    let mut body = BodyBuilder::new();
    let nnz = t.nnz();
    let (index_type, index) = match t.index() {
        SparseIndex::Coo(c) => {
            let it = c.indices().index_type();
            check_arrow_index(options, "COO indicesType", it, nnz.max(t.ndim()))?;
            // Arrow C++ ignores indicesStrides when it expands or converts a COO tensor:
            // for it, write column-major coordinates transposed to row-major.
            let row_major;
            let c = if options.arrow_compatible && c.order() == CooOrder::ColumnMajor {
                row_major = c.to_row_major();
                &row_major
            } else {
                c
            };
            let (off, len) = body.push(c.indices().buffer());
            let w = it.byte_width() as i64;
            let strides: [i64; 2] = if nnz == 0 || t.ndim() == 0 {
                [w, w]
            } else {
                match c.order() {
                    CooOrder::RowMajor => [t.ndim() as i64 * w, w],
                    CooOrder::ColumnMajor => [w, nnz as i64 * w],
                }
            };
            let canonical = if t.is_validated() {
                c.is_canonical()
            } else {
                c.is_canonical() && c.first_unsorted().is_none()
            };
            let ty = index_int(&mut fbb, it);
            let strides = fbb.create_vector(&strides);
            let buf = fb::Buffer::new(off, len);
            let coo = fb::SparseTensorIndexCOO::create(
                &mut fbb,
                &fb::SparseTensorIndexCOOArgs {
                    indicesType: Some(ty),
                    indicesStrides: Some(strides),
                    indicesBuffer: Some(&buf),
                    isCanonical: canonical,
                },
            );
            (
                fb::SparseTensorIndex::SparseTensorIndexCOO,
                coo.as_union_value(),
            )
        }
        SparseIndex::Csx(c) => {
            check_arrow_index(
                options,
                "CSX indptrType",
                c.indptr().index_type(),
                c.indptr().len(),
            )?;
            check_arrow_index(options, "CSX indicesType", c.indices().index_type(), nnz)?;
            let (p_off, p_len) = body.push(c.indptr().buffer());
            let (i_off, i_len) = body.push(c.indices().buffer());
            let pt = index_int(&mut fbb, c.indptr().index_type());
            let it = index_int(&mut fbb, c.indices().index_type());
            let (pb, ib) = (fb::Buffer::new(p_off, p_len), fb::Buffer::new(i_off, i_len));
            let csx = fb::SparseMatrixIndexCSX::create(
                &mut fbb,
                &fb::SparseMatrixIndexCSXArgs {
                    compressedAxis: match c.axis() {
                        CompressedAxis::Row => fb::SparseMatrixCompressedAxis::Row,
                        CompressedAxis::Column => fb::SparseMatrixCompressedAxis::Column,
                    },
                    indptrType: Some(pt),
                    indptrBuffer: Some(&pb),
                    indicesType: Some(it),
                    indicesBuffer: Some(&ib),
                },
            );
            (
                fb::SparseTensorIndex::SparseMatrixIndexCSX,
                csx.as_union_value(),
            )
        }
        SparseIndex::Csf(c) => {
            let longest = |a: &[IndexArray]| a.iter().map(IndexArray::len).max().unwrap_or(0);
            let ptr_type = crate::sparse::csf::common_type(c.indptr());
            let idx_type = crate::sparse::csf::common_type(c.indices());
            check_arrow_index(options, "CSF indptrType", ptr_type, longest(c.indptr()))?;
            check_arrow_index(options, "CSF indicesType", idx_type, longest(c.indices()))?;
            let unit = |t: IndexType| match options.csf_lengths {
                CsfLengths::Elements => t.byte_width() as i64,
                CsfLengths::Bytes => 1,
            };
            let mut place = |arrays: &[IndexArray], t: IndexType| -> Vec<fb::Buffer> {
                arrays
                    .iter()
                    .map(|a| {
                        let (off, len) = body.push(a.buffer());
                        fb::Buffer::new(off, len / unit(t))
                    })
                    .collect()
            };
            let ptr_bufs = place(c.indptr(), ptr_type);
            let idx_bufs = place(c.indices(), idx_type);
            let pt = index_int(&mut fbb, ptr_type);
            let it = index_int(&mut fbb, idx_type);
            let ptr_bufs = fbb.create_vector(&ptr_bufs);
            let idx_bufs = fbb.create_vector(&idx_bufs);
            let order: Vec<i32> = c.axis_order().iter().map(|&a| a as i32).collect();
            let order = fbb.create_vector(&order);
            let csf = fb::SparseTensorIndexCSF::create(
                &mut fbb,
                &fb::SparseTensorIndexCSFArgs {
                    indptrType: Some(pt),
                    indptrBuffers: Some(ptr_bufs),
                    indicesType: Some(it),
                    indicesBuffers: Some(idx_bufs),
                    axisOrder: Some(order),
                },
            );
            (
                fb::SparseTensorIndex::SparseTensorIndexCSF,
                csf.as_union_value(),
            )
        }
    };
    let (v_off, v_len) = body.push(t.values_buffer());
    let (type_type, type_) = value_type_union(&mut fbb, t.value_type());
    let shape = dims(&mut fbb, t.shape(), t.dim_names());
    let data = fb::Buffer::new(v_off, v_len);
    let sparse = fb::SparseTensor::create(
        &mut fbb,
        &fb::SparseTensorArgs {
            type_type,
            type_: Some(type_),
            shape: Some(shape),
            non_zero_length: nnz as i64,
            sparseIndex_type: index_type,
            sparseIndex: Some(index),
            data: Some(&data),
        },
    );
    finish_message(
        fbb,
        fb::MessageHeader::SparseTensor,
        sparse.as_union_value(),
        body,
        t.custom_metadata(),
    )
}
