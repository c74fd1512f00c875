//! Compiles the Arrow flatbuffer schemas in `format/` into Rust code in `OUT_DIR/fbs` with
//! flatc 23.5.26, then patches the generated code (`patch_struct_alignment`,
//! `patch_vector_verifiers`).
//!
//! The flatc used is, in this order:
//! 1. the executable named by the `FLATC` environment variable;
//! 2. a `flatc` on `PATH` whose `--version` reports 23.5.26;
//! 3. one compiled here from the upstream sources in `vendor/flatbuffers-23.5.26/` and our
//!    entry point `build/flatc_rust.cpp` (parser, command line and Rust generator only),
//!    with the C++ compiler the `cc` crate finds (`CXX`, else `c++`), into `OUT_DIR/flatc`.
//!
//! So the build needs no network and no system flatbuffers installation, only a C++
//! compiler when neither 1 nor 2 applies.

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::process::Command;

const SCHEMAS: &[&str] = &[
    "format/Schema.fbs",
    "format/Tensor.fbs",
    "format/SparseTensor.fbs",
    "format/Message.fbs",
    "format/legacy/Message015.fbs",
];

/// The flatc release the patches below are written against.
const FLATC_VERSION: &str = "23.5.26";

/// Upstream flatbuffers sources (byte-identical to tag v23.5.26, see its README.md).
const VENDOR_DIR: &str = "vendor/flatbuffers-23.5.26";

/// The translation units of the vendored flatc, relative to `VENDOR_DIR`.
const VENDOR_SOURCES: &[&str] = &[
    "src/annotated_binary_text_gen.cpp",
    "src/binary_annotator.cpp",
    "src/code_generators.cpp",
    "src/flatc.cpp",
    "src/idl_gen_rust.cpp",
    "src/idl_parser.cpp",
    "src/reflection.cpp",
    "src/util.cpp",
];

/// Our `main` for the vendored flatc: registers the Rust generator only.
const FLATC_MAIN: &str = "build/flatc_rust.cpp";

fn main() {
    let out_dir = PathBuf::from(env_or_fail("OUT_DIR"));
    let fbs = out_dir.join("fbs");
    create_dir(&fbs);
    for s in SCHEMAS {
        println!("cargo:rerun-if-changed={s}");
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={VENDOR_DIR}");
    println!("cargo:rerun-if-changed={FLATC_MAIN}");
    println!("cargo:rerun-if-env-changed=FLATC");

    let flatc = find_flatc().unwrap_or_else(|| build_vendored_flatc(&out_dir.join("flatc")));
    let status = Command::new(&flatc)
        .args([
            "--rust",
            "--rust-module-root-file",
            "--gen-all",
            "--no-warnings",
            "-o",
        ])
        .arg(&fbs)
        .args(SCHEMAS)
        .status()
        .unwrap_or_else(|e| fail(format!("cannot run {}: {e}", flatc.display())));
    if !status.success() {
        fail(format!(
            "{} failed on {SCHEMAS:?}: {status}",
            flatc.display()
        ));
    }
    patch_struct_alignment(&fbs);
    patch_vector_verifiers(&fbs);
}

/// `$FLATC` if set (a warning if it is not version `FLATC_VERSION`), else a `flatc` on
/// `PATH` of version `FLATC_VERSION`, else `None`.
fn find_flatc() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("FLATC").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        match flatc_version(&path) {
            Ok(v) if v == FLATC_VERSION => {}
            Ok(v) => println!(
                "cargo:warning=FLATC={} is flatc {v}; build.rs patches the code of flatc {FLATC_VERSION}",
                path.display()
            ),
            Err(e) => fail(format!("FLATC={}: {e}", path.display())),
        }
        return Some(path);
    }
    let path = PathBuf::from("flatc");
    match flatc_version(&path) {
        Ok(v) if v == FLATC_VERSION => Some(path),
        _ => None,
    }
}

/// The version `flatc --version` reports (`flatc version 23.5.26`).
fn flatc_version(flatc: &Path) -> Result<String, String> {
    let out = Command::new(flatc)
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run `{} --version`: {e}", flatc.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    match text.trim().strip_prefix("flatc version ") {
        Some(v) if out.status.success() => Ok(v.to_string()),
        _ => Err(format!(
            "`{} --version` printed {:?}, not `flatc version X`",
            flatc.display(),
            text.trim()
        )),
    }
}

/// Compiles the vendored flatc into `dir` and returns the executable. Reuses the one
/// already there when it was linked by the same compiler command and is newer than every
/// source file.
fn build_vendored_flatc(dir: &Path) -> PathBuf {
    let host = env_or_fail("HOST"); // flatc runs on the build machine, whatever the target
    let vendor = Path::new(VENDOR_DIR);
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .target(&host)
        .host(&host)
        // Compiling fast matters more than flatc's speed on five small schemas.
        .opt_level(0)
        .debug(false)
        // Upstream code, compiled with warnings off (-w, /W0): they are not ours to act on.
        .warnings(false)
        .out_dir(dir.join("obj"))
        .include(vendor.join("include"))
        .include(vendor.join("src"))
        .files(VENDOR_SOURCES.iter().map(|s| vendor.join(s)))
        .file(FLATC_MAIN);
    let compiler = build
        .try_get_compiler()
        .unwrap_or_else(|e| fail(no_compiler(e)));
    if let Err(e) = Command::new(compiler.path()).arg("--version").output() {
        fail(no_compiler(format!(
            "cannot run `{}`: {e}",
            compiler.path().display()
        )));
    }
    if compiler.is_like_msvc() {
        build.flag("/EHsc"); // standard C++ exception handling, which the STL expects
    } else {
        build.flag("-fsigned-char"); // as upstream's CMakeLists.txt, on every platform
    }
    let compiler = build
        .try_get_compiler()
        .unwrap_or_else(|e| fail(no_compiler(e)));

    let exe = dir.join(format!("flatc{}", std::env::consts::EXE_SUFFIX));
    let stamp = dir.join("flatc.stamp");
    let fingerprint = format!(
        "flatbuffers {FLATC_VERSION}\n{:?} {:?}\n",
        compiler.path(),
        compiler.args()
    );
    if is_up_to_date(&exe, &stamp, &fingerprint, vendor) {
        return exe;
    }

    let objects = build.try_compile_intermediates().unwrap_or_else(|e| {
        fail(format!(
            "compiling the vendored flatc {FLATC_VERSION} failed: {e}. Set FLATC to a flatc \
             {FLATC_VERSION} executable to skip this step."
        ))
    });
    let mut link = compiler.to_command();
    link.args(&objects);
    if compiler.is_like_msvc() {
        link.arg(format!("-Fe{}", exe.display()));
    } else {
        link.arg("-o").arg(&exe);
    }
    let shown = format!(
        "{} {}",
        link.get_program().to_string_lossy(),
        link.get_args()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    );
    match link.status() {
        Ok(s) if s.success() => {}
        Ok(s) => fail(format!("linking the vendored flatc failed ({s}): {shown}")),
        Err(e) => fail(format!("cannot run the linker `{shown}`: {e}")),
    }
    write(&stamp, &fingerprint);
    exe
}

fn no_compiler(e: impl Display) -> String {
    format!(
        "no C++ compiler found to build the vendored flatc {FLATC_VERSION} ({e}). Install g++ \
         or clang++ (CXX selects the compiler), or set FLATC to a flatc {FLATC_VERSION} \
         executable."
    )
}

/// Whether `exe` was built by the compiler command in `fingerprint` after the last change
/// to the vendored sources and `FLATC_MAIN`.
fn is_up_to_date(exe: &Path, stamp: &Path, fingerprint: &str, vendor: &Path) -> bool {
    let built = match std::fs::metadata(exe).and_then(|m| m.modified()) {
        Ok(t) => t,
        Err(_) => return false,
    };
    if std::fs::read_to_string(stamp).ok().as_deref() != Some(fingerprint) {
        return false;
    }
    let mut sources = files_under(vendor);
    sources.push(PathBuf::from(FLATC_MAIN));
    sources.iter().all(|s| {
        std::fs::metadata(s)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t < built)
    })
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| fail(format!("read {}: {e}", dir.display())));
    for entry in entries.flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn env_or_fail(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| fail(format!("cargo did not set {name}")))
}

fn create_dir(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| fail(format!("create {}: {e}", dir.display())));
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap_or_else(|e| fail(format!("read {}: {e}", file.display())))
}

fn write(file: &Path, text: &str) {
    std::fs::write(file, text).unwrap_or_else(|e| fail(format!("write {}: {e}", file.display())));
}

/// Reports a build failure to cargo (which shows the build script's stderr) and stops.
fn fail(msg: impl Display) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1);
}

/// Verifies scalar vectors as Arrow C++ does (see `ScalarVector` in `src/gen.rs`): Arrow
/// writes empty `long` vectors whose (absent) elements are not 8-aligned.
fn patch_vector_verifiers(dir: &Path) {
    let mut patched = 0;
    for file in rust_files(dir) {
        let src = read(&file);
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
            write(&file, &out);
        }
    }
    if patched < 3 {
        fail(format!(
            "patched the scalar vector verifiers of {patched} generated files in {}, expected \
             at least 3 (Tensor, COO and CSF)",
            dir.display()
        ));
    }
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = files_under(dir);
    files.retain(|p| p.extension().is_some_and(|e| e == "rs"));
    files
}

/// Alignment of every flatbuffer struct in the schemas (both hold only 64-bit fields).
const STRUCT_ALIGNMENT: &[(&str, usize)] = &[("Buffer", 8), ("FieldNode", 8)];

/// flatc 23.5.26 generates `Push` impls for structs without `fn alignment()`. With the
/// `flatbuffers` 25 runtime the default alignment is that of the Rust type, a byte array
/// (1), so the builder places struct fields such as `Tensor.data` at offsets that are not
/// multiples of 8, which Arrow C++'s verifier rejects ("Invalid flatbuffers message").
/// Newer flatc emits the override; add it here.
fn patch_struct_alignment(dir: &Path) {
    for (name, align) in STRUCT_ALIGNMENT {
        let file = dir
            .join("org/apache/arrow/flatbuf")
            .join(format!("{}_generated.rs", snake(name)));
        let src = read(&file);
        let head = format!("impl<'b> flatbuffers::Push for {name} {{\n");
        if !src.contains(&head) {
            fail(format!("no Push impl for {name} in {}", file.display()));
        }
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
        write(&file, &patched);
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
