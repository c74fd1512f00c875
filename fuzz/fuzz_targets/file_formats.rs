//! Fuzz target: see `fuzz/formats_target.rs`.
#![no_main]

#[path = "../formats_target.rs"]
mod target;

libfuzzer_sys::fuzz_target!(|data: &[u8]| target::file_formats(data));
