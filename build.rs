//! Compiles the Arrow flatbuffer schemas in `format/` into Rust code in `OUT_DIR`.
//!
//! `flatc` comes from the `flatc` crate, which builds a vendored copy of the compiler with
//! cmake, so the build needs no network and no system flatbuffers installation.

use std::path::PathBuf;
use std::process::Command;

const SCHEMAS: &[&str] = &[
    "format/Schema.fbs",
    "format/Tensor.fbs",
    "format/SparseTensor.fbs",
    "format/Message.fbs",
    "format/legacy/Message015.fbs",
];

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let out = out.join("fbs");
    std::fs::create_dir_all(&out).expect("create OUT_DIR/fbs");
    for s in SCHEMAS {
        println!("cargo:rerun-if-changed={s}");
    }
    println!("cargo:rerun-if-changed=build.rs");

    let status = Command::new(flatc::flatc())
        .args([
            "--rust",
            "--rust-module-root-file",
            "--gen-all",
            "--no-warnings",
            "-o",
        ])
        .arg(&out)
        .args(SCHEMAS)
        .status()
        .expect("run the vendored flatc");
    assert!(status.success(), "flatc failed on {SCHEMAS:?}: {status}");
}
