//! Fuzz target: see `fuzz/parquet_target.rs`.
#![no_main]

#[path = "../parquet_target.rs"]
mod target;

libfuzzer_sys::fuzz_target!(
    init: {
        // libFuzzer's hook aborts on any panic, even one `ParquetBatches` contains.
        let _ = std::panic::take_hook();
    },
    |data: &[u8]| target::parquet(data)
);
