//! Replays a committed fuzz corpus on stable Rust: every file of `fuzz/corpus/<corpus>/`
//! goes through the function the fuzzer runs, so that `cargo test` keeps every finding
//! fixed without a fuzzer.
//!
//! A test binary includes this file on its own (it needs nothing else of `tests/common`):
//!
//! ```ignore
//! #[path = "common/replay.rs"]
//! mod replay;
//!
//! replay::replay_corpus("decode_one", targets::decode_one);
//! ```

use std::path::{Path, PathBuf};

/// The files of `fuzz/corpus/<corpus>/`, sorted by path. Panics naming the directory when
/// it cannot be read or holds no file.
pub fn corpus_files(corpus: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(corpus);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            entry
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .path()
        })
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "empty corpus {}", dir.display());
    files
}

/// Runs `run` on the bytes of every file of `fuzz/corpus/<corpus>/` (in path order), goes on
/// past a file that panics, and then fails naming every file that did. Returns the files
/// replayed, for checks on what the corpus holds.
pub fn replay_corpus(corpus: &str, run: fn(&[u8])) -> Vec<PathBuf> {
    let files = corpus_files(corpus);
    let panicked: Vec<String> = files
        .iter()
        .filter(|path| {
            let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            std::panic::catch_unwind(|| run(&data)).is_err()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        panicked.is_empty(),
        "{corpus}: the target panicked on {} of {} files: {}",
        panicked.len(),
        files.len(),
        panicked.join(", ")
    );
    eprintln!("{corpus}: replayed {} files", files.len());
    files
}
