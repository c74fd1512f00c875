//! Fuzz target: see `fuzz/record_batch_target.rs`.
#![no_main]

#[path = "../record_batch_target.rs"]
mod target;

libfuzzer_sys::fuzz_target!(|data: &[u8]| target::record_batches(data));
