//! Replays every file of the fuzz corpora (`fuzz/corpus/<target>/`) through the same
//! target functions the fuzzer runs (`fuzz/targets.rs`), so `cargo test` on stable catches
//! regressions without a fuzzer. Findings are added to the corpora as files.

#[path = "../fuzz/targets.rs"]
mod targets;

use std::path::PathBuf;

fn replay(target: &str, run: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "empty corpus {}", dir.display());
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let result = std::panic::catch_unwind(|| run(&data));
        assert!(result.is_ok(), "{target} panicked on {}", f.display());
    }
    eprintln!("{target}: replayed {} files", files.len());
}

#[test]
fn replay_decode_one() {
    replay("decode_one", targets::decode_one);
}

#[test]
fn replay_read_stream() {
    replay("read_stream", targets::read_stream);
}

#[test]
fn replay_roundtrip() {
    replay("roundtrip", targets::roundtrip);
}
