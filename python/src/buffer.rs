//! Memory shared with Python, both ways, without copies.
//!
//! - [`source_buffer`]: any object of the buffer protocol (bytes, memoryview, numpy arrays,
//!   pyarrow.Buffer, mmap, ...) as an [`arrow_buffer::Buffer`] that keeps the Python
//!   buffer export (and so the object) alive for as long as any slice of it lives.
//! - [`BufferView`]: a slice of a Rust [`Buffer`] exported to Python through the buffer
//!   protocol, read-only; numpy wraps it without copying (`numpy.frombuffer`).
//!
//! - [`new_bytes`]: a `bytes` object whose memory is handed out uninitialised, for
//!   `dumps` to copy each buffer once, straight into it; the object reaches Python only
//!   through [`NewBytes::finish`], which checks that every byte was written.
//!
//! These are the three `unsafe` sites of the extension: the first two are the buffer
//! protocol itself (reading memory that Python lent us, lending Rust memory to Python), the
//! third saves a zero-fill pass over every message `dumps` writes (pyo3's safe
//! `PyBytes::new_with` zero-fills first, which costs about a third of the copy).

use arrow_buffer::Buffer;
use arrow_tensor_ipc::EncodedMessage;
use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::ffi::c_int;
use std::mem::MaybeUninit;

/// A Python buffer export, held until the last [`Buffer`] slice over it is dropped.
struct PyOwner {
    buffer: PyUntypedBuffer,
    /// Bytes from the export's pointer: `len_bytes` of a C-contiguous export, or the
    /// extent of a strided array with non-negative strides (its pointer is its first
    /// element, so the extent starts there).
    len: usize,
}

impl AsRef<[u8]> for PyOwner {
    fn as_ref(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `0..len` from the export's pointer lies inside the memory of the export (checked when
        // the owner was made: a C-contiguous export of `len_bytes`, or the extent of a
        // strided array with non-negative strides), and the export stays valid while
        // `self.buffer` is held (PyBuffer_Release runs on drop). The exporter may still
        // mutate a writable buffer: callers are told not to mutate a source while messages
        // over it are in use (as with numpy.frombuffer); Rust never writes through it.
        unsafe { std::slice::from_raw_parts(self.buffer.buf_ptr() as *const u8, self.len) }
    }
}

/// The whole memory of a C-contiguous buffer-protocol object, zero-copy.
///
/// Fails with `TypeError` for objects without the buffer protocol or whose buffer is not
/// C-contiguous.
pub fn source_buffer(obj: &Bound<'_, PyAny>) -> PyResult<Buffer> {
    let buffer = PyUntypedBuffer::get(obj).map_err(|_| {
        PyTypeError::new_err(format!(
            "expected a bytes-like object (bytes, memoryview, numpy array, pyarrow.Buffer), got {}",
            type_name(obj)
        ))
    })?;
    if !buffer.is_c_contiguous() {
        return Err(PyBufferError::new_err(
            "the buffer is not C-contiguous (make a contiguous copy first)",
        ));
    }
    let len = buffer.len_bytes();
    Ok(own(PyOwner { buffer, len }))
}

/// The memory a strided array covers (`item_size + sum((shape[i] - 1) * strides[i])`
/// bytes from its first element; none when it has no element), zero-copy, with the export's
/// shape, byte strides and item size. Negative strides are refused (`ValueError`; the Python layer
/// copies such arrays first).
pub fn strided_source(obj: &Bound<'_, PyAny>) -> PyResult<(Buffer, Vec<usize>, Vec<usize>, usize)> {
    let buffer = PyUntypedBuffer::get(obj).map_err(|_| {
        PyTypeError::new_err(format!(
            "expected an array with the buffer protocol, got {}",
            type_name(obj)
        ))
    })?;
    if buffer.suboffsets().is_some() {
        return Err(PyBufferError::new_err(
            "indirect (suboffset) buffers are not supported",
        ));
    }
    let shape = buffer.shape().to_vec();
    let mut strides = Vec::with_capacity(shape.len());
    for &s in buffer.strides() {
        strides.push(usize::try_from(s).map_err(|_| {
            pyo3::exceptions::PyValueError::new_err("negative strides are not supported")
        })?);
    }
    let item_size = buffer.item_size();
    let len = if shape.contains(&0) {
        0
    } else {
        shape
            .iter()
            .zip(&strides)
            .try_fold(buffer.item_size(), |acc, (&d, &s)| {
                acc.checked_add((d - 1).checked_mul(s)?)
            })
            .ok_or_else(|| PyBufferError::new_err("array extent overflows"))?
    };
    Ok((own(PyOwner { buffer, len }), shape, strides, item_size))
}

fn own(owner: PyOwner) -> Buffer {
    Buffer::from(bytes::Bytes::from_owner(owner))
}

/// The Python type name of an object, for error messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// A read-only byte buffer shared with a message (no copy), exported through the buffer
/// protocol: `numpy.frombuffer(view, dtype)` gives a read-only array over the same memory,
/// which keeps the view, and so the message's memory, alive.
#[pyclass(module = "arrow_tensor_ipc._native", frozen)]
pub struct BufferView {
    buffer: Buffer,
}

impl BufferView {
    /// A view of `buffer`.
    pub fn new(buffer: Buffer) -> Self {
        BufferView { buffer }
    }
}

#[pymethods]
impl BufferView {
    fn __len__(&self) -> usize {
        self.buffer.len()
    }

    /// Address of the first byte (for tests that prove zero copy).
    #[getter]
    fn address(&self) -> usize {
        self.buffer.as_ptr() as usize
    }

    /// # Safety
    /// Called by Python with a valid `Py_buffer` to fill (the buffer protocol).
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        let (ptr, len) = {
            let b = &slf.get().buffer;
            (b.as_ptr(), b.len())
        };
        let len = ffi::Py_ssize_t::try_from(len)
            .map_err(|_| PyBufferError::new_err("buffer too large"))?;
        // SAFETY: `view` comes from Python's buffer machinery. PyBuffer_FillInfo fills it
        // as a read-only 1-D unsigned-byte buffer over `ptr..ptr + len` and takes a new
        // reference to `slf`, which owns the (immutable, shared) Buffer: the memory stays
        // valid until the consumer releases the view. Writable requests are refused by
        // PyBuffer_FillInfo (readonly = 1), so Python never writes Rust's shared memory.
        let rc = unsafe {
            ffi::PyBuffer_FillInfo(
                view,
                slf.as_ptr(),
                ptr as *mut std::ffi::c_void,
                len,
                1,
                flags,
            )
        };
        if rc == -1 {
            return Err(PyErr::fetch(slf.py()));
        }
        Ok(())
    }
}

/// A new `bytes` object whose memory is not yet initialised: Python code cannot see it
/// until [`NewBytes::finish`] has checked that its [`Filler`] wrote every byte.
pub struct NewBytes<'py> {
    obj: Bound<'py, PyBytes>,
    len: usize,
    data: *const MaybeUninit<u8>,
}

/// The memory of a [`NewBytes`], written front to back by [`Filler::put_message`]. It holds no Python reference, so it may be filled on another thread
/// while the GIL is released.
pub struct Filler<'a> {
    out: &'a mut [MaybeUninit<u8>],
    filled: usize,
    overrun: bool,
}

impl Filler<'_> {
    /// Writes `message` at the current position (as
    /// [`EncodedMessage::write_to_uninit`] copies it); a message longer than the room left
    /// writes nothing and makes [`NewBytes::finish`] fail.
    pub fn put_message(&mut self, message: &EncodedMessage) {
        match message.write_to_uninit(&mut self.out[self.filled..]) {
            Ok(written) => self.filled += written.len(),
            Err(_) => self.overrun = true,
        }
    }
}

impl<'py> NewBytes<'py> {
    /// The `bytes` object, once `filler` (this object's own) has written exactly every byte;
    /// otherwise an error, and the unfinished object is dropped unseen.
    pub fn finish(self, filler: Filler<'_>) -> PyResult<Bound<'py, PyBytes>> {
        let own = std::ptr::eq(filler.out.as_ptr(), self.data) && filler.out.len() == self.len;
        if !own || filler.overrun || filler.filled != self.len {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "internal error: a message of {} bytes was written with {} bytes{}",
                self.len,
                filler.filled,
                if filler.overrun { " and more" } else { "" }
            )));
        }
        Ok(self.obj)
    }
}

/// A new `bytes` object of `len` bytes, not yet initialised, and the [`Filler`] that must
/// write all of it before [`NewBytes::finish`] hands the object out.
pub fn new_bytes<'py>(py: Python<'py>, len: usize) -> PyResult<(NewBytes<'py>, Filler<'py>)> {
    let n = ffi::Py_ssize_t::try_from(len)
        .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("message too large"))?;
    // SAFETY: PyBytes_FromStringAndSize(NULL, n) returns a new reference to a bytes object
    // of n bytes whose contents are uninitialised, or NULL with an exception set (turned
    // into Err). PyBytes_AsString gives its buffer: n writable bytes (plus a terminating
    // NUL), valid while the object lives. The object is fresh and referenced only by the
    // returned NewBytes, which hands it out (finish) only after checking that the Filler
    // over this very memory wrote all n bytes; until then no Python code can reach it.
    // Exposing the bytes as MaybeUninit<u8> makes no claim that they are initialised. The
    // slice lives for 'py, as long as the GIL token, and the object lives at least as long
    // as the NewBytes that owns it, which the caller keeps until finish.
    unsafe {
        let obj =
            Bound::from_owned_ptr_or_err(py, ffi::PyBytes_FromStringAndSize(std::ptr::null(), n))?
                .cast_into_unchecked::<PyBytes>();
        let data = ffi::PyBytes_AsString(obj.as_ptr()) as *mut MaybeUninit<u8>;
        let out = std::slice::from_raw_parts_mut(data, len);
        Ok((
            NewBytes { obj, len, data },
            Filler {
                out,
                filled: 0,
                overrun: false,
            },
        ))
    }
}
