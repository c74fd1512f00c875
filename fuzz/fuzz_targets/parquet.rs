//! Fuzz target: see `fuzz/parquet_target.rs`.
#![no_main]

#[path = "../parquet_target.rs"]
mod target;

libfuzzer_sys::fuzz_target!(
    init: {
        // libFuzzer's hook aborts on any panic, even one `ParquetBatches` contains. Panics
        // of the `parquet` crate (a registry dependency) are contained and become errors;
        // a panic anywhere else (this crate's own Parquet decoding among it) aborts the run,
        // as the error it would be turned into would hide a bug of ours.
        let _ = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            let ours = info
                .location()
                .is_none_or(|l| !l.file().contains("/registry/"));
            if ours {
                eprintln!("{info}");
                std::process::abort();
            }
        }));
    },
    |data: &[u8]| target::parquet(data)
);
