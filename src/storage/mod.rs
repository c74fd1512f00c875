//! Object storage (feature `object-store`): the objects under a URL prefix, read and
//! written with a blocking API over the `object_store` crate (the one DataFusion,
//! delta-rs, lance and polars use), so that datasets and files can live where a cluster
//! keeps its data.
//!
//! A [`Store`] is a store and a prefix, opened from a URL:
//!
//! | URL | store |
//! | --- | --- |
//! | `s3://bucket/prefix` (also `s3a://`) | Amazon S3 and S3-compatible stores |
//! | `http://host/prefix`, `https://...` | a plain HTTP server (WebDAV for writes) |
//! | `file:///absolute/path` | the local file system |
//!
//! Credentials, region and endpoint come the way `object_store` reads them: from the
//! environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
//! `AWS_REGION`, `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`, ...) and then from
//! [`StorageOptions`], whose keys are the builder's configuration keys (`aws_endpoint`,
//! `aws_region`, `aws_access_key_id`, `aws_secret_access_key`, `aws_allow_http`,
//! `timeout`, `connect_timeout`, ...). Requests that fail with a server error or a dropped
//! connection are retried as `object_store` retries them; every error that remains is an
//! [`ErrorKind::ObjectStore`] naming the object's URL.
//!
//! The API is blocking: a private multi-threaded Tokio runtime runs the requests, and no
//! async type appears in it. Large objects are written with a multipart upload of
//! bounded memory ([`ObjectWriter`]); small ones with one put.

use crate::error::{ErrorKind, Result};
use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use object_store::path::Path as ObjectPath;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt, PutPayload, WriteMultipart};
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// Configuration of the stores a URL opens, on top of the environment: pairs of the
/// `object_store` builders' keys and values (`("aws_endpoint", "http://127.0.0.1:9000")`,
/// `("aws_allow_http", "true")`, `("timeout", "30s")`, ...). Unknown keys are refused when
/// the store is opened.
///
/// ```
/// use arrow_tensor_ipc::storage::StorageOptions;
/// let options = StorageOptions::new()
///     .with("aws_endpoint", "http://127.0.0.1:9000")
///     .with("aws_allow_http", "true");
/// assert_eq!(options.iter().count(), 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StorageOptions {
    pairs: Vec<(String, String)>,
}

impl StorageOptions {
    /// No options: the environment alone.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) one option.
    pub fn with(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let key = key.into();
        self.pairs.retain(|(k, _)| *k != key);
        self.pairs.push((key, value.into()));
        self
    }

    /// The options, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// The smallest part of [`Store::get_sized`]'s ranged GETs: an object of at most this
/// many bytes is fetched with one GET.
pub const RANGED_PART: u64 = 8 << 20;

/// How many ranged GETs [`Store::get_sized`] splits a larger object into (all in flight
/// at once): parts of `size / RANGED_IN_FLIGHT` bytes, at least [`RANGED_PART`].
pub const RANGED_IN_FLIGHT: usize = 4;

/// The URL schemes [`Store::open`] takes.
const SCHEMES: [&str; 5] = ["s3", "s3a", "http", "https", "file"];

/// Whether `location` is a URL of a scheme [`Store::open`] takes (`s3://`, `s3a://`,
/// `http://`, `https://`, `file://`), not a local path.
pub fn is_url(location: &str) -> bool {
    location
        .split_once("://")
        .is_some_and(|(scheme, _)| SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()))
}

/// Makes ring the process's rustls crypto provider (TLS of `https://` and S3 endpoints),
/// unless the process has chosen one already.
///
/// rustls marks its ring provider deprecated for lacking post-quantum key exchange; it
/// still speaks TLS 1.2 and 1.3 with the classical groups every store accepts, and it
/// builds in seconds where the aws-lc provider's C library takes about a minute.
fn install_tls() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        #[allow(deprecated)]
        let provider = rustls::crypto::ring::default_provider();
        let _ = provider.install_default();
    });
}

/// The runtime every store's requests run on.
fn runtime() -> Result<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<std::result::Result<tokio::runtime::Runtime, String>> =
        OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("arrow-tensor-ipc-storage")
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| {
            ErrorKind::ObjectStore {
                url: String::new(),
                reason: format!("cannot start the I/O runtime: {e}"),
            }
            .into()
        })
}

/// A store and a prefix in it, opened from a URL (see the [module documentation](self)).
/// Cheap to clone; shareable between threads.
#[derive(Clone)]
pub struct Store {
    store: Arc<dyn ObjectStore>,
    prefix: ObjectPath,
    /// The URL it was opened from, without a trailing `/`.
    url: String,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("url", &self.url).finish()
    }
}

impl Store {
    /// Opens the store and prefix of `url`, configured by the environment and `options`.
    ///
    /// A URL that does not parse, of a scheme not taken, or with an option the store does
    /// not know, is an [`ErrorKind::ObjectStore`]. Opening sends no request.
    pub fn open(url: &str, options: &StorageOptions) -> Result<Store> {
        install_tls();
        let fail = |reason: String| ErrorKind::ObjectStore {
            url: url.to_string(),
            reason,
        };
        if !is_url(url) {
            return Err(fail(format!(
                "not a URL of a store (schemes: {})",
                SCHEMES.join(", ")
            ))
            .into());
        }
        let parsed = url::Url::parse(url).map_err(|e| fail(e.to_string()))?;
        let scheme = parsed.scheme().to_ascii_lowercase();
        let (store, prefix): (Arc<dyn ObjectStore>, ObjectPath) = if scheme == "http"
            || scheme == "https"
        {
            // The server is the store; the URL's path is the prefix inside it.
            let mut base = parsed.clone();
            base.set_path("/");
            base.set_query(None);
            let mut builder = object_store::http::HttpBuilder::new().with_url(base.as_str());
            for (k, v) in options.iter() {
                let key: object_store::ClientConfigKey = k
                    .to_ascii_lowercase()
                    .parse()
                    .map_err(|e| fail(format!("option {k:?}: {e}")))?;
                builder = builder.with_config(key, v);
            }
            let store = builder.build().map_err(|e| fail(e.to_string()))?;
            let prefix =
                ObjectPath::from_url_path(parsed.path()).map_err(|e| fail(e.to_string()))?;
            (Arc::new(store), prefix)
        } else if scheme == "file" {
            let (_, prefix) =
                object_store::ObjectStoreScheme::parse(&parsed).map_err(|e| fail(e.to_string()))?;
            if let Some((k, _)) = options.iter().next() {
                return Err(fail(format!("option {k:?}: a file:// URL takes no options")).into());
            }
            (
                Arc::new(object_store::local::LocalFileSystem::new()),
                prefix,
            )
        } else {
            // S3: the environment first (AWS_*), then the options; the bucket from the URL.
            let (_, prefix) =
                object_store::ObjectStoreScheme::parse(&parsed).map_err(|e| fail(e.to_string()))?;
            let mut builder = object_store::aws::AmazonS3Builder::from_env().with_url(url);
            for (k, v) in options.iter() {
                let key: object_store::aws::AmazonS3ConfigKey = k
                    .to_ascii_lowercase()
                    .parse()
                    .map_err(|e| fail(format!("option {k:?}: {e}")))?;
                builder = builder.with_config(key, v);
            }
            let store = builder.build().map_err(|e| fail(e.to_string()))?;
            (Arc::new(store), prefix)
        };
        Ok(Store {
            store,
            prefix,
            url: url.trim_end_matches('/').to_string(),
        })
    }

    /// The URL the store was opened from (no trailing `/`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The URL of the object `rel` (a `/`-separated path under the prefix).
    pub fn url_of(&self, rel: &str) -> String {
        if rel.is_empty() {
            return self.url.clone();
        }
        format!("{}/{rel}", self.url)
    }

    /// The store's path of `rel`.
    fn path(&self, rel: &str) -> Result<ObjectPath> {
        let mut path = self.prefix.clone();
        for part in rel.split('/').filter(|p| !p.is_empty()) {
            let part =
                object_store::path::PathPart::parse(part).map_err(|e| ErrorKind::ObjectStore {
                    url: self.url_of(rel),
                    reason: format!("not a key inside the prefix: {e}"),
                })?;
            path = path.join(part);
        }
        Ok(path)
    }

    /// An error of the request for `rel`.
    fn error(&self, rel: &str, e: object_store::Error) -> crate::Error {
        let reason = match &e {
            object_store::Error::NotFound { .. } => "not found".to_string(),
            _ => e.to_string(),
        };
        ErrorKind::ObjectStore {
            url: self.url_of(rel),
            reason,
        }
        .into()
    }

    /// The whole object `rel`, checked against the length the store announced.
    pub fn get(&self, rel: &str) -> Result<Bytes> {
        let path = self.path(rel)?;
        runtime()?.block_on(async {
            let result = self
                .store
                .get(&path)
                .await
                .map_err(|e| self.error(rel, e))?;
            let size = result.meta.size;
            let bytes = result.bytes().await.map_err(|e| self.error(rel, e))?;
            if bytes.len() as u64 != size {
                return Err(ErrorKind::ObjectStore {
                    url: self.url_of(rel),
                    reason: format!(
                        "the body holds {} bytes, the store announced {size}",
                        bytes.len()
                    ),
                }
                .into());
            }
            Ok(bytes)
        })
    }

    /// The whole object `rel`, whose size the caller knows (from a listing or a HEAD) to
    /// be `size`: an object larger than [`RANGED_PART`] bytes is fetched as up to
    /// [`RANGED_IN_FLIGHT`] concurrent ranged GETs of equal parts, which a store serves
    /// faster than one long response (few parts, because some servers pay for every
    /// request in proportion to the object's size). Every response must describe an
    /// object of `size` bytes with one ETag, and the bytes must add up to `size`;
    /// otherwise the object changed while read, an [`ErrorKind::ObjectStore`] naming its
    /// URL.
    pub fn get_sized(&self, rel: &str, size: u64) -> Result<Bytes> {
        if size <= RANGED_PART {
            let bytes = self.get(rel)?;
            if bytes.len() as u64 != size {
                return Err(self.changed(rel, size, bytes.len() as u64));
            }
            return Ok(bytes);
        }
        let path = self.path(rel)?;
        let part = size.div_ceil(RANGED_IN_FLIGHT as u64).max(RANGED_PART);
        let ranges = (0..size.div_ceil(part)).map(|i| i * part..((i + 1) * part).min(size));
        runtime()?.block_on(async {
            let parts: Vec<(Bytes, Option<String>)> = futures_util::stream::iter(ranges)
                .map(|range| {
                    let path = &path;
                    async move {
                        let options = GetOptions {
                            range: Some(GetRange::Bounded(range.clone())),
                            ..GetOptions::default()
                        };
                        let result = self
                            .store
                            .get_opts(path, options)
                            .await
                            .map_err(|e| self.error(rel, e))?;
                        if result.meta.size != size || result.range != range {
                            return Err(self.changed(rel, size, result.meta.size));
                        }
                        let tag = result.meta.e_tag.clone();
                        let bytes = result.bytes().await.map_err(|e| self.error(rel, e))?;
                        if bytes.len() as u64 != range.end - range.start {
                            return Err(ErrorKind::ObjectStore {
                                url: self.url_of(rel),
                                reason: format!(
                                    "{} bytes came for a range of {}",
                                    bytes.len(),
                                    range.end - range.start
                                ),
                            }
                            .into());
                        }
                        Ok::<_, crate::Error>((bytes, tag))
                    }
                })
                .buffered(RANGED_IN_FLIGHT)
                .try_collect()
                .await?;
            if parts.windows(2).any(|w| w[0].1 != w[1].1) {
                return Err(ErrorKind::ObjectStore {
                    url: self.url_of(rel),
                    reason: "its ETag changed while it was read in parts".into(),
                }
                .into());
            }
            // Every part arrived with its exact length, so the total is `size`.
            let mut out = Vec::with_capacity(parts.iter().map(|(b, _)| b.len()).sum());
            for (bytes, _) in &parts {
                out.extend_from_slice(bytes);
            }
            Ok(Bytes::from(out))
        })
    }

    /// The error of an object whose size is not the one expected.
    fn changed(&self, rel: &str, expected: u64, found: u64) -> crate::Error {
        ErrorKind::ObjectStore {
            url: self.url_of(rel),
            reason: format!("holds {found} bytes, {expected} were expected: it changed while read"),
        }
        .into()
    }

    /// Bytes `range` of the object `rel`.
    pub fn get_range(&self, rel: &str, range: Range<u64>) -> Result<Bytes> {
        let path = self.path(rel)?;
        let want = range.end.saturating_sub(range.start);
        runtime()?.block_on(async {
            let bytes = self
                .store
                .get_range(&path, range)
                .await
                .map_err(|e| self.error(rel, e))?;
            if bytes.len() as u64 != want {
                return Err(ErrorKind::ObjectStore {
                    url: self.url_of(rel),
                    reason: format!("{} bytes came for a range of {want}", bytes.len()),
                }
                .into());
            }
            Ok(bytes)
        })
    }

    /// The size of the object `rel`, or `None` when there is none.
    pub fn size(&self, rel: &str) -> Result<Option<u64>> {
        let path = self.path(rel)?;
        runtime()?.block_on(async {
            match self.store.head(&path).await {
                Ok(meta) => Ok(Some(meta.size)),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(self.error(rel, e)),
            }
        })
    }

    /// Every object under the prefix, as its path relative to the prefix and its size, at
    /// most `max` of them (more is an [`ErrorKind::ObjectStore`]: a listing is input too).
    pub fn list(&self, max: usize) -> Result<Vec<(String, u64)>> {
        let prefix = self.prefix.clone();
        runtime()?.block_on(async {
            let mut stream = self.store.list(Some(&prefix));
            let mut out = Vec::new();
            while let Some(meta) = stream.next().await {
                let meta = meta.map_err(|e| self.error("", e))?;
                let rel: Vec<String> = meta
                    .location
                    .prefix_match(&prefix)
                    .map(|parts| parts.map(|p| p.as_ref().to_string()).collect())
                    .unwrap_or_default();
                if out.len() >= max {
                    return Err(ErrorKind::ObjectStore {
                        url: self.url.clone(),
                        reason: format!("lists more than {max} objects"),
                    }
                    .into());
                }
                out.push((rel.join("/"), meta.size));
            }
            Ok(out)
        })
    }

    /// Writes `bytes` as the object `rel` in one request: it appears whole or not at all.
    pub fn put(&self, rel: &str, bytes: impl Into<Bytes>) -> Result<()> {
        let path = self.path(rel)?;
        let payload = PutPayload::from(bytes.into());
        runtime()?.block_on(async {
            self.store
                .put(&path, payload)
                .await
                .map(drop)
                .map_err(|e| self.error(rel, e))
        })
    }

    /// Deletes the object `rel` (no error when there is none).
    pub fn delete(&self, rel: &str) -> Result<()> {
        let path = self.path(rel)?;
        runtime()?.block_on(async {
            match self.store.delete(&path).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(self.error(rel, e)),
            }
        })
    }

    /// A writer of the object `rel`: a multipart upload of parts of
    /// [`ObjectWriter::PART_BYTES`], at most two in flight, so that memory stays bounded
    /// whatever the object's size. The object appears when [`ObjectWriter::finish`]
    /// returns; a writer dropped before that aborts the upload.
    pub fn writer(&self, rel: &str) -> Result<ObjectWriter> {
        let path = self.path(rel)?;
        let upload = runtime()?
            .block_on(self.store.put_multipart(&path))
            .map_err(|e| self.error(rel, e))?;
        Ok(ObjectWriter {
            upload: Some(WriteMultipart::new_with_chunk_size(
                upload,
                ObjectWriter::PART_BYTES,
            )),
            url: self.url_of(rel),
            written: 0,
        })
    }
}

/// A multipart upload as a [`std::io::Write`] (see [`Store::writer`]).
pub struct ObjectWriter {
    upload: Option<WriteMultipart>,
    url: String,
    written: u64,
}

impl ObjectWriter {
    /// The size of each uploaded part (S3 takes parts of 5 MiB and more).
    pub const PART_BYTES: usize = 8 << 20;
    /// Parts in flight at once.
    const IN_FLIGHT: usize = 2;

    fn io_error(&self, e: object_store::Error) -> std::io::Error {
        std::io::Error::other(format!("object store {}: {e}", self.url))
    }

    /// Completes the upload: the object appears, whole. Returns its size.
    pub fn finish(mut self) -> Result<u64> {
        let Some(upload) = self.upload.take() else {
            return Ok(self.written);
        };
        let url = self.url.clone();
        runtime()?
            .block_on(upload.finish())
            .map_err(|e| ErrorKind::ObjectStore {
                url,
                reason: e.to_string(),
            })?;
        Ok(self.written)
    }
}

impl std::io::Write for ObjectWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let rt = runtime().map_err(std::io::Error::other)?;
        let Some(upload) = self.upload.as_mut() else {
            return Err(std::io::Error::other("the upload is finished"));
        };
        // Waits while two parts are in flight: the memory held is bounded by the parts.
        let waited = rt.block_on(upload.wait_for_capacity(Self::IN_FLIGHT));
        if let Err(e) = waited {
            return Err(self.io_error(e));
        }
        if let Some(upload) = self.upload.as_mut() {
            // (A full part is uploaded by a task spawned on the runtime.)
            let _context = rt.enter();
            upload.write(buf);
        }
        self.written += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for ObjectWriter {
    fn drop(&mut self) {
        if let (Some(upload), Ok(rt)) = (self.upload.take(), runtime()) {
            // An unfinished upload leaves no object; its parts are discarded.
            let _ = rt.block_on(upload.abort());
        }
    }
}
