//! Decoding from bytes-like objects, memory-mapped paths and Python binary files, and
//! writing message streams to paths and binary files.

use crate::buffer::{source_buffer, type_name};
use crate::message::PyMessage;
use crate::{to_py_err, ArrowTensorError};
use arrow_tensor_ipc::{
    read_mmap, DecodedMessage, Message, MessageIter, MessageReader, MessageWriter, ReadOptions,
    WriteOptions,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::io::{Read, Write};
use std::path::PathBuf;

fn read_options(strict: bool) -> ReadOptions {
    if strict {
        ReadOptions::strict()
    } else {
        ReadOptions::permissive()
    }
}

fn wrap(d: DecodedMessage) -> PyMessage {
    PyMessage::new(d.message)
}

/// Every message of a bytes-like object, zero-copy (until an end-of-stream marker or the
/// end of the bytes).
#[pyfunction]
#[pyo3(signature = (data, strict = true))]
pub fn decode_all(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    strict: bool,
) -> PyResult<Vec<PyMessage>> {
    let buffer = source_buffer(data)?;
    let options = read_options(strict);
    let decoded = py.detach(|| MessageIter::new(buffer, &options).collect::<Result<Vec<_>, _>>());
    Ok(decoded.map_err(to_py_err)?.into_iter().map(wrap).collect())
}

/// Exactly one message from a bytes-like object, zero-copy: the bytes hold the message,
/// optionally followed by an end-of-stream marker.
#[pyfunction]
#[pyo3(signature = (data, strict = true))]
pub fn decode_one(py: Python<'_>, data: &Bound<'_, PyAny>, strict: bool) -> PyResult<PyMessage> {
    let buffer = source_buffer(data)?;
    let total = buffer.len();
    let options = read_options(strict);
    let result = py.detach(move || {
        let mut it = MessageIter::new(buffer, &options);
        let first = it.next().transpose()?;
        let more = match &first {
            Some(m) if (m.total_length() as usize) < total => it.next().transpose()?.is_some(),
            _ => false,
        };
        Ok::<_, arrow_tensor_ipc::Error>((first, more))
    });
    match result.map_err(to_py_err)? {
        (Some(_), true) => Err(ArrowTensorError::new_err(
            "the bytes hold more than one message (use arrow_tensor_ipc.read)",
        )),
        (Some(m), false) => Ok(wrap(m)),
        (None, _) => Err(ArrowTensorError::new_err(
            "no message: the bytes are empty or start with an end-of-stream marker",
        )),
    }
}

/// A Python binary file as [`std::io::Read`] (through its `readinto`, else `read`).
struct PyReader {
    file: Py<PyAny>,
}

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        Python::attach(|py| {
            let chunk = self
                .file
                .bind(py)
                .call_method1("read", (buf.len(),))
                .map_err(std::io::Error::other)?;
            if chunk.is_none() {
                // A non-blocking stream with nothing available: treat as the end.
                return Ok(0);
            }
            let bytes = chunk.cast::<PyBytes>().map_err(|_| {
                std::io::Error::other(format!(
                    "file.read returned {}, not bytes (open the file in binary mode)",
                    type_name(&chunk)
                ))
            })?;
            let data = bytes.as_bytes();
            let n = data.len().min(buf.len());
            buf[..n].copy_from_slice(&data[..n]);
            Ok(n)
        })
    }
}

/// A Python binary file as [`std::io::Write`] (through its `write`).
struct PyWriter {
    file: Py<PyAny>,
}

impl Write for PyWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Python::attach(|py| {
            let n = self
                .file
                .bind(py)
                .call_method1("write", (PyBytes::new(py, buf),))
                .map_err(std::io::Error::other)?;
            // Raw files may write less and say how much; buffered ones write everything.
            Ok(if n.is_none() {
                buf.len()
            } else {
                n.extract().map_err(std::io::Error::other)?
            })
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Python::attach(|py| {
            self.file
                .bind(py)
                .call_method0("flush")
                .map(drop)
                .map_err(std::io::Error::other)
        })
    }
}

enum Source {
    Memory(MessageIter),
    File(Box<MessageReader<PyReader>>),
}

/// A lazy iterator over the messages of a memory-mapped path, a bytes-like object or a
/// binary file. Stops after the first error, which it raises.
#[pyclass(module = "arrow_tensor_ipc._native")]
pub struct MessageStream {
    source: Source,
    done: bool,
}

#[pymethods]
impl MessageStream {
    /// The messages of a file, memory-mapped (zero-copy: the arrays of each message view
    /// the map, which stays open while any of them lives).
    #[staticmethod]
    #[pyo3(signature = (path, strict = true))]
    fn from_path(path: PathBuf, strict: bool) -> PyResult<Self> {
        // SAFETY: the documented contract of `from_path` (see `_native.pyi`): the file is
        // not modified or truncated while the stream or any message from it is alive, as
        // for `numpy.memmap`.
        let it = unsafe { read_mmap(&path, &read_options(strict)) }.map_err(to_py_err)?;
        Ok(MessageStream {
            source: Source::Memory(it),
            done: false,
        })
    }

    /// The messages of an object in an object store (`s3://`, `http(s)://`, `file://`),
    /// read into memory with one request; `storage_options` as for datasets.
    #[staticmethod]
    #[pyo3(signature = (url, strict, storage_options = None))]
    fn from_url(
        py: Python<'_>,
        url: &str,
        strict: bool,
        storage_options: Option<Vec<(String, String)>>,
    ) -> PyResult<Self> {
        let storage = crate::dataset::to_storage(storage_options);
        let bytes = py
            .detach(|| arrow_tensor_ipc::storage::Store::open(url, &storage)?.get(""))
            .map_err(to_py_err)?;
        Ok(MessageStream {
            source: Source::Memory(MessageIter::new(
                arrow_buffer::Buffer::from(bytes),
                &read_options(strict),
            )),
            done: false,
        })
    }

    /// The messages of a bytes-like object, zero-copy.
    #[staticmethod]
    #[pyo3(signature = (data, strict = true))]
    fn from_buffer(data: &Bound<'_, PyAny>, strict: bool) -> PyResult<Self> {
        Ok(MessageStream {
            source: Source::Memory(MessageIter::new(
                source_buffer(data)?,
                &read_options(strict),
            )),
            done: false,
        })
    }

    /// The messages of a binary file object, read with its `read` method as they are
    /// needed (each message's bytes are copied once, into memory the message owns).
    #[staticmethod]
    #[pyo3(signature = (file, strict = true))]
    fn from_file(file: &Bound<'_, PyAny>, strict: bool) -> PyResult<Self> {
        if !file.hasattr("read")? {
            return Err(PyTypeError::new_err(format!(
                "expected a binary file with a read method, got {}",
                type_name(file)
            )));
        }
        let reader = PyReader {
            file: file.clone().unbind(),
        };
        Ok(MessageStream {
            source: Source::File(Box::new(MessageReader::new(reader, &read_options(strict)))),
            done: false,
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<PyMessage>> {
        if self.done {
            return Ok(None);
        }
        let next = match &mut self.source {
            Source::Memory(it) => py.detach(|| it.next().transpose()),
            // Reading calls back into Python (file.read): keep the GIL.
            Source::File(r) => r.read_message(),
        };
        match next {
            Ok(Some(m)) => Ok(Some(wrap(m))),
            Ok(None) => {
                self.done = true;
                Ok(None)
            }
            Err(e) => {
                self.done = true;
                Err(to_py_err(e))
            }
        }
    }
}

fn write_all<W: Write>(
    writer: W,
    messages: &[PyRef<'_, PyMessage>],
    arrow_compatible: bool,
) -> arrow_tensor_ipc::Result<W> {
    let options = WriteOptions::default().with_arrow_compatible(arrow_compatible);
    let mut w = MessageWriter::new(writer, &options);
    for m in messages {
        let inner: &Message = &m.inner;
        w.write(inner)?;
    }
    w.finish()
}

/// Writes every message, then an end-of-stream marker, to a new file at `path` (vectored
/// writes: the bodies are not copied).
#[pyfunction]
#[pyo3(signature = (path, messages, arrow_compatible = true))]
pub fn write_path(
    path: PathBuf,
    messages: Vec<PyRef<'_, PyMessage>>,
    arrow_compatible: bool,
) -> PyResult<()> {
    let file =
        std::fs::File::create(&path).map_err(|e| to_py_err(arrow_tensor_ipc::Error::from(e)))?;
    write_all(file, &messages, arrow_compatible)
        .map(drop)
        .map_err(to_py_err)
}

/// Writes every message, then an end-of-stream marker, to a binary file object (its
/// `write` method).
#[pyfunction]
#[pyo3(signature = (file, messages, arrow_compatible = true))]
pub fn write_file(
    file: &Bound<'_, PyAny>,
    messages: Vec<PyRef<'_, PyMessage>>,
    arrow_compatible: bool,
) -> PyResult<()> {
    let writer = PyWriter {
        file: file.clone().unbind(),
    };
    write_all(writer, &messages, arrow_compatible)
        .map(drop)
        .map_err(to_py_err)
}

/// Writes every message, then an end-of-stream marker, as the object at `url` (a multipart
/// upload: memory stays bounded; the object appears whole when it completes).
#[pyfunction]
#[pyo3(signature = (url, messages, arrow_compatible = true, storage_options = None))]
pub fn write_url(
    url: &str,
    messages: Vec<PyRef<'_, PyMessage>>,
    arrow_compatible: bool,
    storage_options: Option<Vec<(String, String)>>,
) -> PyResult<()> {
    let storage = crate::dataset::to_storage(storage_options);
    let store = arrow_tensor_ipc::storage::Store::open(url, &storage).map_err(to_py_err)?;
    let writer = store.writer("").map_err(to_py_err)?;
    let writer = write_all(writer, &messages, arrow_compatible).map_err(to_py_err)?;
    writer.finish().map(drop).map_err(to_py_err)
}
