//! The repository root, the pinned venv's Python and the scripts run in it, and scratch
//! directories, for the tests that compare with pyarrow, numpy and scipy
//! (`#[path = "common/venv.rs"] mod venv;`).

#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `$ARROW_TENSOR_PYTHON`, else `.venv/bin/python` (a missing venv fails the test).
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("ARROW_TENSOR_PYTHON") {
        return p.into();
    }
    let p = root().join(".venv/bin/python");
    assert!(
        p.exists(),
        "{} is missing: run scripts/venv.sh (it creates .venv with the pinned pyarrow, numpy \
         and scipy)",
        p.display()
    );
    p
}

/// An empty directory `target/<area>/<name>-<pid>`, made anew.
pub fn scratch(area: &str, name: &str) -> PathBuf {
    let dir = root()
        .join("target")
        .join(area)
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the scratch directory");
    dir
}

/// Runs `python SCRIPT MODE DIR` (`script` relative to the repository root) and parses
/// what it prints as one JSON value; a failing script or other output fails the test.
pub fn run_json(script: &str, mode: &str, dir: &Path) -> Value {
    let out = Command::new(python())
        .arg(root().join(script))
        .arg(mode)
        .arg(dir)
        .output()
        .unwrap_or_else(|e| panic!("run {script}: {e}"));
    assert!(
        out.status.success(),
        "{script} {mode} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{script} {mode}: not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
