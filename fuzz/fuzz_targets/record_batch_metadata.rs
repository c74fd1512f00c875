//! Fuzz target: see `fuzz/metadata_target.rs`.
#![no_main]

#[path = "../metadata_target.rs"]
mod target;

libfuzzer_sys::fuzz_target!(|data: &[u8]| target::record_batch_metadata(data));
