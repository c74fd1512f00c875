//! The tool's side of inputs: `-` names standard input, every input is memory-mapped under
//! the contract the help states, and errors are worded as the tool words them (`NAME: AT:
//! WHAT`, "not a kind arrow-tensor reads").

use arrow_tensor_ipc::dataset::MANIFEST_FILE;
use arrow_tensor_ipc::input::{Input, InputOptions};
use arrow_tensor_ipc::{Error, ErrorKind};
use std::path::Path;

/// Whether a command-line path means standard input or output.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How an input is named in messages.
pub fn name_of(path: &Path) -> String {
    if is_stdio(path) {
        "standard input".into()
    } else {
        path.display().to_string()
    }
}

/// Opens `path` (`-`: standard input), memory-mapped; an error is the line to report.
pub fn open<'a>(path: &Path, options: &InputOptions<'a>) -> Result<Input<'a>, String> {
    #[cfg(feature = "object-store")]
    if let Some(url) = path
        .to_str()
        .filter(|u| arrow_tensor_ipc::storage::is_url(u))
    {
        // Credentials, region and endpoint from the environment (see the README).
        let storage = arrow_tensor_ipc::storage::StorageOptions::new();
        return Input::open_url(url, &storage, options).map_err(|e| format!("{url}: {}", text(&e)));
    }
    #[allow(unsafe_code)]
    // SAFETY: the tool's contract (stated in its help and the README): input files are not
    // modified or truncated while a command reads them; a copy of standard input is a
    // temporary file of the tool's own.
    let opened = unsafe {
        if is_stdio(path) {
            Input::from_reader_mmap(std::io::stdin(), options)
        } else {
            Input::open_mmap(path, options)
        }
    };
    opened.map_err(|e| {
        let name = name_of(path);
        match e.kind() {
            ErrorKind::UnsupportedKind { .. } if path.is_dir() => {
                format!("{name}: is a directory (not a tiled dataset: it holds no {MANIFEST_FILE})")
            }
            _ => format!("{name}: {}", text(&e)),
        }
    })
}

/// The file at `path` (an input's file or its copy), memory-mapped.
pub fn map(path: &Path) -> arrow_tensor_ipc::Result<bytes::Bytes> {
    #[allow(unsafe_code)]
    // SAFETY: as in `open`: the tool's contract on input files, and temporary copies of
    // its own.
    unsafe {
        arrow_tensor_ipc::map_file(path)
    }
}

/// An error as the tool words it: an input of a kind the library does not read is one
/// "arrow-tensor" does not read.
pub fn text(e: &Error) -> String {
    match e.kind() {
        ErrorKind::UnsupportedKind { found, kinds, .. } => {
            format!("{found}, not a kind arrow-tensor reads ({kinds})")
        }
        _ => e.to_string(),
    }
}

/// A tensor of an input that could not be read, as the verbs print it.
pub struct Failure {
    /// The byte offset of a failing tensor message.
    pub offset: Option<u64>,
    /// Where ("message at byte 40", "record batch 3", "the FROSTT file"; empty for a
    /// dataset, whose errors name the file).
    pub at: String,
    /// What went wrong.
    pub description: String,
}

impl Failure {
    /// The failure an error of an input's tensors reports.
    pub fn of(e: &Error) -> Failure {
        match (e.kind(), e.message_offset()) {
            (ErrorKind::InputTensorFailed { origin, source }, _) => Failure {
                offset: None,
                at: origin.to_string(),
                description: source.to_string(),
            },
            (kind, Some(offset)) => Failure {
                offset: Some(offset),
                at: format!("message at byte {offset}"),
                description: kind.to_string(),
            },
            (_, None) => Failure {
                offset: None,
                at: String::new(),
                description: e.to_string(),
            },
        }
    }

    /// `AT: DESCRIPTION`, or the description alone when there is no place.
    pub fn placed(&self) -> String {
        if self.at.is_empty() {
            self.description.clone()
        } else {
            format!("{}: {}", self.at, self.description)
        }
    }

    /// `NAME: AT: DESCRIPTION`.
    pub fn full(&self, name: &str) -> String {
        format!("{name}: {}", self.placed())
    }
}
