//! Where a dataset's files live: a local directory, or (feature `object-store`) a prefix
//! of an object store. The reader and the writer go through [`Root`] for every byte.

use crate::error::Result;
use bytes::Bytes;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A dataset's directory or object-store prefix.
#[derive(Clone, Debug)]
pub(crate) enum Root {
    /// A local directory.
    Dir(PathBuf),
    /// A prefix of an object store.
    #[cfg(feature = "object-store")]
    Store(crate::storage::Store),
}

/// A file being written: a local file or a multipart upload.
pub(crate) enum Sink {
    File(std::io::BufWriter<std::fs::File>),
    #[cfg(feature = "object-store")]
    Object(std::io::BufWriter<crate::storage::ObjectWriter>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::File(f) => f.write(buf),
            #[cfg(feature = "object-store")]
            Sink::Object(o) => o.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::File(f) => f.flush(),
            #[cfg(feature = "object-store")]
            Sink::Object(o) => o.flush(),
        }
    }
}

impl Sink {
    /// Ends the file: flushed (a local file), or the upload completed (an object).
    pub(crate) fn finish(self) -> Result<()> {
        match self {
            Sink::File(mut f) => Ok(f.flush()?),
            #[cfg(feature = "object-store")]
            Sink::Object(o) => {
                let writer = o
                    .into_inner()
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                writer.finish().map(drop)
            }
        }
    }
}

impl Root {
    /// The object-store prefix of `url`, or the local directory `url` names when it is a
    /// path.
    #[cfg(feature = "object-store")]
    pub(crate) fn of(url: &str, storage: &crate::storage::StorageOptions) -> Result<Root> {
        if crate::storage::is_url(url) {
            Ok(Root::Store(crate::storage::Store::open(url, storage)?))
        } else {
            Ok(Root::Dir(PathBuf::from(url)))
        }
    }

    /// The directory or URL, for messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Root::Dir(d) => d.display().to_string(),
            #[cfg(feature = "object-store")]
            Root::Store(s) => s.url().to_string(),
        }
    }

    /// The local directory, if the dataset is in one.
    pub(crate) fn dir(&self) -> Option<&Path> {
        match self {
            Root::Dir(d) => Some(d),
            #[cfg(feature = "object-store")]
            Root::Store(_) => None,
        }
    }

    /// The bytes of file `rel`: read into memory, or memory-mapped (`mapped`, local files);
    /// an object of a store whose size is known (`size`) is read in concurrent parts and
    /// must still have that size.
    pub(crate) fn read(&self, rel: &str, mapped: bool, size: Option<u64>) -> Result<Bytes> {
        match self {
            Root::Dir(d) => {
                let path = d.join(rel);
                #[cfg(feature = "mmap")]
                if mapped {
                    #[allow(unsafe_code)]
                    // SAFETY: the dataset's `open_mmap` caller promised that its files are
                    // not truncated or modified while anything read from them is alive.
                    let map = unsafe { crate::map_file(&path)? };
                    return Ok(map);
                }
                let _ = (mapped, size);
                Ok(std::fs::read(&path)?.into())
            }
            #[cfg(feature = "object-store")]
            Root::Store(s) => match size {
                Some(size) => s.get_sized(rel, size),
                None => s.get(rel),
            },
        }
    }

    /// Creates the directory (when missing) and checks that it holds nothing, when `empty`.
    pub(crate) fn prepare(&self, empty: bool) -> Result<()> {
        match self {
            Root::Dir(dir) => {
                std::fs::create_dir_all(dir)?;
                if empty && std::fs::read_dir(dir)?.next().is_some() {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::DirectoryNotEmpty,
                        format!(
                            "{} is not empty (a dataset is written into an empty directory)",
                            dir.display()
                        ),
                    )
                    .into());
                }
                Ok(())
            }
            #[cfg(feature = "object-store")]
            Root::Store(s) => {
                if empty && !s.list(1)?.is_empty() {
                    return Err(crate::ErrorKind::ObjectStore {
                        url: s.url().to_string(),
                        reason:
                            "holds objects already (a dataset is written under an empty prefix)"
                                .into(),
                    }
                    .into());
                }
                Ok(())
            }
        }
    }

    /// A new file `rel` (its directories created).
    pub(crate) fn create(&self, rel: &str) -> Result<Sink> {
        match self {
            Root::Dir(dir) => {
                let full = dir.join(rel);
                if let Some(parent) = full.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                let file = std::fs::File::create(&full)?;
                Ok(Sink::File(std::io::BufWriter::with_capacity(1 << 20, file)))
            }
            #[cfg(feature = "object-store")]
            Root::Store(s) => Ok(Sink::Object(std::io::BufWriter::with_capacity(
                1 << 20,
                s.writer(rel)?,
            ))),
        }
    }

    /// Writes the small file `rel` (the manifest) whole: under a temporary name then
    /// renamed (a directory), or in one put (a store): a reader sees all of it or none.
    pub(crate) fn write_whole(&self, rel: &str, text: &str) -> Result<()> {
        match self {
            Root::Dir(dir) => {
                let tmp = dir.join(format!("{rel}.tmp"));
                {
                    let mut f = std::fs::File::create(&tmp)?;
                    f.write_all(text.as_bytes())?;
                    f.sync_all()?;
                }
                std::fs::rename(&tmp, dir.join(rel))?;
                Ok(())
            }
            #[cfg(feature = "object-store")]
            Root::Store(s) => s.put(rel, Bytes::from(text.to_string())),
        }
    }
}
