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
    patch_struct_alignment(&out);
    patch_vector_verifiers(&out);
}

/// Verifies scalar vectors as Arrow C++ does (see `ScalarVector` in `src/gen.rs`): Arrow
/// writes empty `long` vectors whose (absent) elements are not 8-aligned.
fn patch_vector_verifiers(dir: &std::path::Path) {
    let mut patched = 0;
    for file in rust_files(dir) {
        let src = std::fs::read_to_string(&file).expect("read generated file");
        let mut out = src.clone();
        for t in ["i64", "i32"] {
            out = out.replace(
                &format!(
                    "visit_field::<flatbuffers::ForwardsUOffset<flatbuffers::Vector<'_, {t}>>>"
                ),
                &format!(
                    "visit_field::<flatbuffers::ForwardsUOffset<crate::gen::ScalarVector<{t}>>>"
                ),
            );
        }
        if out != src {
            patched += 1;
            std::fs::write(&file, out).expect("write patched file");
        }
    }
    assert!(
        patched >= 3,
        "expected to patch the Tensor, COO and CSF verifiers"
    );
}

fn rust_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)
        .expect("read generated dir")
        .flatten()
    {
        let p = entry.path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out
}

/// Alignment of every flatbuffer struct in the schemas (both hold only 64-bit fields).
const STRUCT_ALIGNMENT: &[(&str, usize)] = &[("Buffer", 8), ("FieldNode", 8)];

/// flatc 23.5.26 generates `Push` impls for structs without `fn alignment()`. With the
/// `flatbuffers` 25 runtime the default alignment is that of the Rust type, a byte array
/// (1), so the builder places struct fields such as `Tensor.data` at offsets that are not
/// multiples of 8, which Arrow C++'s verifier rejects ("Invalid flatbuffers message").
/// Newer flatc emits the override; add it here.
fn patch_struct_alignment(dir: &std::path::Path) {
    for (name, align) in STRUCT_ALIGNMENT {
        let file = dir
            .join("org/apache/arrow/flatbuf")
            .join(format!("{}_generated.rs", snake(name)));
        let src = std::fs::read_to_string(&file).expect("read generated struct");
        let head = format!("impl<'b> flatbuffers::Push for {name} {{\n");
        assert!(
            src.contains(&head),
            "no Push impl for {name} in {}",
            file.display()
        );
        if src.contains("fn alignment()") {
            continue; // a flatc that already emits it
        }
        let patched = src.replacen(
            &head,
            &format!(
                "{head}    #[inline]\n    fn alignment() -> flatbuffers::PushAlignment {{\n        flatbuffers::PushAlignment::new({align})\n    }}\n"
            ),
            1,
        );
        std::fs::write(&file, patched).expect("write patched struct");
    }
}

fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}
