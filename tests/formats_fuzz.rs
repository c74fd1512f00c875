//! Replays the `file_formats` fuzz corpus (`fuzz/corpus/file_formats/`: valid files of
//! each format written by numpy, scipy and by hand, and every finding) through the target
//! the fuzzer runs (`fuzz/formats_target.rs`), so that `cargo test` on stable catches
//! regressions without a fuzzer.

#[path = "../fuzz/formats_target.rs"]
mod target;

#[test]
fn replay_file_formats() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/file_formats");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(files.len() >= 20, "corpus {} too small", dir.display());
    // Each format has at least one seed.
    for (selector, reads) in [(0u8, "mtx"), (1, "tns"), (2, "npy"), (3, "npz")] {
        assert!(
            files.iter().any(|f| {
                let data = std::fs::read(f).unwrap();
                data.first() == Some(&selector)
                    && f.file_name().unwrap().to_string_lossy().starts_with(reads)
            }),
            "no {reads} seed"
        );
    }
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let result = std::panic::catch_unwind(|| target::file_formats(&data));
        assert!(result.is_ok(), "file_formats panicked on {}", f.display());
    }
}
