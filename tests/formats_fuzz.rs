//! Replays the `file_formats` fuzz corpus (`fuzz/corpus/file_formats/`: valid files of
//! each format written by numpy, scipy and by hand, and every finding) through the target
//! the fuzzer runs (`fuzz/formats_target.rs`), so that `cargo test` on stable catches
//! regressions without a fuzzer.

#[path = "../fuzz/formats_target.rs"]
mod target;

#[path = "common/replay.rs"]
mod replay;

#[test]
fn replay_file_formats() {
    let files = replay::replay_corpus("file_formats", target::file_formats);
    assert!(files.len() >= 20, "corpus file_formats too small");
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
}
