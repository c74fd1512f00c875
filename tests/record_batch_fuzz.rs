//! Replays the corpus of the structure-aware `record_batch_metadata` fuzz target
//! (`fuzz/corpus/record_batch_metadata/`) through the target's own body, and runs it on
//! a deterministic sweep of inputs, so that every finding stays fixed on stable Rust.

#[path = "../fuzz/metadata_target.rs"]
mod target;

#[path = "common/replay.rs"]
mod replay;

#[test]
fn corpus_replays_without_panic() {
    replay::replay_corpus("record_batch_metadata", target::record_batch_metadata);
}

/// Inputs from a fixed pseudo-random sequence: each builds some batch with extreme
/// metadata and runs every conversion on it.
#[test]
fn pseudo_random_inputs_never_panic() {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for len in 0..2000usize {
        let bytes: Vec<u8> = (0..len % 200)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        target::record_batch_metadata(&bytes);
    }
}
