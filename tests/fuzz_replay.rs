//! Replays every file of the fuzz corpora (`fuzz/corpus/<target>/`) through the same
//! target functions the fuzzer runs (`fuzz/targets.rs`), so `cargo test` on stable catches
//! regressions without a fuzzer. Findings are added to the corpora as files.

#[path = "../fuzz/targets.rs"]
mod targets;

#[path = "common/replay.rs"]
mod replay;

#[test]
fn replay_decode_one() {
    replay::replay_corpus("decode_one", targets::decode_one);
}

#[test]
fn replay_read_stream() {
    replay::replay_corpus("read_stream", targets::read_stream);
}

#[test]
fn replay_roundtrip() {
    replay::replay_corpus("roundtrip", targets::roundtrip);
}
