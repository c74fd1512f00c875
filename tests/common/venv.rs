//! The repository root and the pinned venv's Python, for the tests that compare with
//! numpy and scipy (`#[path = "common/venv.rs"] mod venv;`).

#![allow(dead_code)]

use std::path::PathBuf;

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
        "{} is missing: run scripts/venv.sh (it creates .venv with numpy and scipy)",
        p.display()
    );
    p
}
