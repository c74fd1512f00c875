//! Loops compiled a second time for AVX-512 and chosen at run time when the CPU has it.
//!
//! A library built for the default x86-64 target may use SSE2 only, whose 16-byte registers
//! and missing narrowing moves leave loops that turn coordinates of one integer width into
//! another (splitting a row-major coordinate matrix into columns, interleaving columns into
//! rows) scalar. [`run`] runs a closure inside a function compiled with the AVX-512
//! features of x86-64-v4 when the running CPU reports all of them, so that the loops the
//! closure inlines are vectorized for those registers; elsewhere (another CPU or
//! architecture, or Miri) it calls the closure as it is. Both run the same safe code and
//! give the same results: the tests of each loop run both copies against its definition
//! (Miri, which has no AVX-512, runs the plain one).
//!
//! Setting the environment variable `ARROW_TENSOR_IPC_WIDE_VECTORS` to `0` keeps the plain
//! loops (read once per process); running the `compare` example's COO table rows
//! (`--only coo_table_coo`) with and without it shows what the copy gains.

// Used by the COO tables only: the interleaving of a table's coordinate columns and the
// split of a coordinate matrix into columns, where the copy pays (about 10% and more of
// the `compare` example's `coo_table_*` rows, run with and without ENV).
#![cfg_attr(not(feature = "record-batch"), allow(dead_code))]

/// The environment variable that turns the AVX-512 loops off when `0` (read once).
const ENV: &str = "ARROW_TENSOR_IPC_WIDE_VECTORS";

/// Whether [`ENV`] allows the AVX-512 loops: unless it is `0`.
pub(crate) fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os(ENV).is_none_or(|v| v != "0"))
}

/// Runs `f`, compiled for AVX-512 when `wide` (callers pass [`enabled`], tests both values)
/// and the CPU has it; else as it is. The closure must be marked `#[inline(always)]` and
/// reach its loop through `#[inline(always)]` functions, so that the loop is compiled
/// inside the AVX-512 function rather than called from it:
/// `run(enabled(), #[inline(always)] || kernel(..))`.
#[inline(always)]
pub(crate) fn run<R>(wide: bool, f: impl FnOnce() -> R) -> R {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if wide && has_avx512() {
        #[allow(unsafe_code)]
        // SAFETY: `avx512` is compiled with the target features `has_avx512` has just found
        // on the running CPU, which is all that calling it requires; it only calls `f`.
        return unsafe { avx512(f) };
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = wide;
    f()
}

/// Whether the running CPU has every feature [`avx512`] is compiled with (the standard
/// library detects them once and caches the answer).
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn has_avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512cd")
}

/// Calls `f` in a function compiled for the AVX-512 features of x86-64-v4.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512cd")]
fn avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::run;

    #[test]
    fn both_ways_run_the_closure_once_and_give_its_result() {
        for wide in [false, true] {
            let mut calls = 0;
            let cols: Vec<Vec<i16>> = run(
                wide,
                #[inline(always)]
                || {
                    calls += 1;
                    let coords: Vec<i64> = (0..3000).collect();
                    (0..3)
                        .map(|d| {
                            coords
                                .iter()
                                .skip(d)
                                .step_by(3)
                                .map(|&v| v as i16)
                                .collect()
                        })
                        .collect()
                },
            );
            assert_eq!(calls, 1);
            assert_eq!(cols[0].len(), 1000);
            assert_eq!(cols[2][999], 2999);
        }
    }
}
