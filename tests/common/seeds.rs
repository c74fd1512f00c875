//! Writes every message a suite decodes into a fuzz seed directory, when asked: with
//! `ARROW_TENSOR_IPC_SEED_DIR=<dir>` set, [`record`] stores each input once, named by a hash
//! of its bytes. `fuzz/seed.sh` runs the hostile-input suites this way so that the fuzzers
//! start from malformed messages of every kind, not only from valid ones.

use std::hash::Hasher;
use std::path::PathBuf;

/// The variable naming the directory to write seeds into.
pub const SEED_DIR_VAR: &str = "ARROW_TENSOR_IPC_SEED_DIR";

/// Stores `bytes` as `<dir>/m-<hash>` when the seed directory is set; does nothing otherwise.
pub fn record(bytes: &[u8]) {
    let Some(dir) = std::env::var_os(SEED_DIR_VAR) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    h.write(bytes);
    let path = dir.join(format!("m-{:016x}", h.finish()));
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&path, bytes))
        .unwrap_or_else(|e| panic!("writing seed {}: {e}", path.display()));
}
