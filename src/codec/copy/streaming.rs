//! Large copies with non-temporal stores (x86-64), at the same speed whatever the distance
//! between destination and source modulo the page.
//!
//! This is one of the crate's few `unsafe` sites, kept because of a measured gap: on a CPU
//! with a 32 MiB last-level cache, copying 1 GiB with the C library's `memcpy` to a
//! destination 64 bytes ahead of its source modulo 4 KiB ran at about a quarter of the
//! speed it reaches at other distances, and the loop below runs at full speed at every
//! distance (`compare`'s `dense_*_encode_*` rows, where an encoded message puts its body 64
//! bytes past a page-aligned start). On a CPU with a 480 MiB last-level cache the same
//! `memcpy` runs at full speed at every distance and size, and non-temporal stores at half
//! of it; so the loop is used only where the last-level cache is at most
//! [`STREAMING_MAX_LLC`] (or its size is unknown). The SSE2 instructions used are part of
//! every x86-64 CPU; on other architectures the copy is `copy_from_slice`. Miri checks the loop (with ordinary stores, as it runs no inline
//! assembly): `cargo +nightly miri test --lib codec::copy::streaming`.

#![allow(unsafe_code)]

use std::mem::MaybeUninit;

/// Pieces at least this long are copied with [`copy`]'s streaming loop; shorter ones with
/// `copy_from_slice` (cached stores, which suit data read again soon).
pub(super) const STREAMING_MIN: usize = 4 << 20;

/// Appends `src` to `out` through [`copy`].
pub(super) fn extend(out: &mut Vec<u8>, src: &[u8]) {
    out.reserve(src.len());
    let len = out.len();
    let spare = out.spare_capacity_mut();
    let (dst, _) = spare.split_at_mut(src.len());
    copy(dst, src);
    // SAFETY: `copy` initialised the first `src.len()` bytes of the spare capacity (it
    // writes every byte of `dst`, which has `src.len()` bytes), and the capacity holds them
    // (reserved above).
    unsafe { out.set_len(len + src.len()) };
}

/// The bytes of `out`, every one of which has been written.
pub(super) fn assume_written(out: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: callers pass memory whose every byte they have written (`write_to_uninit`
    // copies pieces whose lengths add up to `out.len()`); `MaybeUninit<u8>` and `u8` have
    // the same layout.
    unsafe { &mut *(out as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

/// Copies `src` into `dst` (the same length): with non-temporal stores when `src` is at
/// least [`STREAMING_MIN`] long on x86-64, else with `copy_from_slice`. Writes every byte of
/// `dst`.
pub(super) fn copy(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    assert_eq!(
        dst.len(),
        src.len(),
        "copy between slices of different lengths"
    );
    #[cfg(target_arch = "x86_64")]
    if src.len() >= STREAMING_MIN && streaming_pays() {
        stream(dst, src);
        return;
    }
    copy_plain(dst, src);
}

/// The largest last-level cache for which large pieces are streamed: CPUs with more (a
/// newer generation) copy faster with cached stores (see the module's notes).
const STREAMING_MAX_LLC: u64 = 64 << 20;

/// Whether this CPU streams large pieces: its last-level cache is at most
/// [`STREAMING_MAX_LLC`], or its size is unknown. Read once.
fn streaming_pays() -> bool {
    if cfg!(miri) {
        // Miri runs without the file system; the loop is what it checks.
        return true;
    }
    static PAYS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PAYS.get_or_init(|| last_level_cache().is_none_or(|b| b <= STREAMING_MAX_LLC))
}

/// The size in bytes of the largest cache of CPU 0, from Linux's sysfs; `None` elsewhere
/// or when it cannot be read.
fn last_level_cache() -> Option<u64> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    dir.filter_map(|e| {
        let size = std::fs::read_to_string(e.ok()?.path().join("size")).ok()?;
        cache_size(&size)
    })
    .max()
}

/// A sysfs cache size (`48K`, `32M`, `491520K`, `1024`) in bytes.
fn cache_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, unit) = match t.strip_suffix(['K', 'M', 'G']) {
        Some(d) => (d, t.get(d.len()..)?),
        None => (t, ""),
    };
    let n: u64 = digits.parse().ok()?;
    let shift = match unit {
        "K" => 10,
        "M" => 20,
        "G" => 30,
        _ => 0,
    };
    n.checked_mul(1 << shift)
}

/// `copy_from_slice` into memory not yet initialised.
fn copy_plain(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    let n = dst.len().min(src.len());
    // SAFETY: `n` bytes lie inside both slices, which do not overlap (`&mut` and `&`);
    // `MaybeUninit<u8>` has the layout of `u8`.
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<u8>(), n) };
}

/// The streaming copy: `copy_from_slice` up to the first 64-byte aligned destination
/// address, then 64 bytes at a time (four unaligned 16-byte loads, four aligned
/// non-temporal stores, the source prefetched [`AHEAD`] bytes ahead), then `copy_from_slice` for the last bytes, then a store fence so
/// that the stores are ordered before whatever the caller does next (hand the bytes to
/// another thread, for instance).
#[cfg(target_arch = "x86_64")]
fn stream(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    #[cfg(not(miri))]
    use std::arch::x86_64::_mm_sfence;
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_prefetch, _MM_HINT_NTA};
    // Miri runs no inline assembly, which the non-temporal store is: it checks the same
    // accesses as an aligned ordinary store (alignment included).
    #[cfg(miri)]
    use std::arch::x86_64::_mm_store_si128 as _mm_stream_si128;
    #[cfg(not(miri))]
    use std::arch::x86_64::_mm_stream_si128;
    const LINE: usize = 64;
    /// How far ahead of the loads the source is prefetched.
    const AHEAD: usize = 1024;
    let head = dst.as_ptr().align_offset(LINE).min(src.len());
    let (dst_head, dst) = dst.split_at_mut(head);
    let (src_head, src) = src.split_at(head);
    copy_plain(dst_head, src_head);
    let lines = src.len() / LINE * LINE;
    let (dst_lines, dst_tail) = dst.split_at_mut(lines);
    let (src_lines, src_tail) = src.split_at(lines);
    for (d, s) in dst_lines
        .chunks_exact_mut(LINE)
        .zip(src_lines.chunks_exact(LINE))
    {
        let d = d.as_mut_ptr().cast::<__m128i>();
        let s = s.as_ptr().cast::<__m128i>();
        // SAFETY: `d` and `s` point to 64 bytes each, inside `dst_lines` and `src_lines`,
        // so every 16-byte access at offsets 0, 16, 32 and 48 stays inside its slice. The
        // loads are the unaligned kind; the stores need 16-byte alignment, which `d` has
        // (64-byte aligned: `dst_head` ends at the first such address, and every chunk is
        // 64 bytes). The slices do not overlap (`&mut` and `&`). SSE2 is part of x86-64.
        // The prefetch address may lie past the end of `src` (`wrapping_add`: no claim that
        // it is in bounds); a prefetch never faults and reads nothing into the program.
        unsafe {
            _mm_prefetch::<_MM_HINT_NTA>(s.cast::<u8>().wrapping_add(AHEAD).cast::<i8>());
            let a = _mm_loadu_si128(s);
            let b = _mm_loadu_si128(s.add(1));
            let c = _mm_loadu_si128(s.add(2));
            let e = _mm_loadu_si128(s.add(3));
            _mm_stream_si128(d, a);
            _mm_stream_si128(d.add(1), b);
            _mm_stream_si128(d.add(2), c);
            _mm_stream_si128(d.add(3), e);
        }
    }
    copy_plain(dst_tail, src_tail);
    // Non-temporal stores are weakly ordered: the fence makes them visible before any
    // later store, such as the one that publishes the buffer to another thread.
    // SAFETY: a fence has no operands; SSE is part of x86-64.
    #[cfg(not(miri))]
    unsafe {
        _mm_sfence()
    };
    // Miri has no `sfence`; it treats the non-temporal stores as ordinary ones, which a
    // sequentially consistent fence orders.
    #[cfg(miri)]
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fills `dst` with a marker, copies `src` into `dst[at..]` with `f`, and checks the
    /// copy and that nothing around it changed.
    fn check(
        f: fn(&mut [MaybeUninit<u8>], &[u8]),
        src: &[u8],
        at: usize,
        dst: &mut [MaybeUninit<u8>],
    ) {
        dst.fill(MaybeUninit::new(0xAA));
        f(&mut dst[at..at + src.len()], src);
        let got = assume_written(dst);
        assert!(got[at..at + src.len()] == *src, "len {} at {at}", src.len());
        assert!(
            got[..at].iter().all(|&b| b == 0xAA),
            "before, len {}",
            src.len()
        );
        assert!(
            got[at + src.len()..].iter().all(|&b| b == 0xAA),
            "after, len {}",
            src.len()
        );
    }

    /// The streaming loop alone at every length up to three lines and every source and
    /// destination offset modulo 64 (head, lines and tail in every combination).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn stream_copies_exactly_at_every_offset() {
        let src: Vec<u8> = (0..400).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut dst = vec![MaybeUninit::new(0u8); 400];
        // Miri checks a sample of the same cases (it interprets every byte access).
        let lens: Vec<usize> = if cfg!(miri) {
            vec![0, 1, 63, 64, 65, 127, 128, 129, 192]
        } else {
            (0..=192).collect()
        };
        let dst_offs: Vec<usize> = if cfg!(miri) {
            vec![0, 1, 15, 16, 63]
        } else {
            (0..64).collect()
        };
        for &len in &lens {
            for src_off in [0, 1, 17, 63] {
                for &dst_off in &dst_offs {
                    check(stream, &src[src_off..src_off + len], dst_off, &mut dst);
                }
            }
        }
    }

    /// [`copy`] just below, at and above [`STREAMING_MIN`], from unaligned addresses.
    #[cfg(not(miri))]
    #[test]
    fn copy_around_the_threshold() {
        let src: Vec<u8> = (0..STREAMING_MIN + 200).map(|i| (i % 251) as u8).collect();
        let mut dst = vec![MaybeUninit::new(0u8); STREAMING_MIN + 300];
        for len in [STREAMING_MIN - 1, STREAMING_MIN, STREAMING_MIN + 129] {
            check(copy, &src[3..3 + len], 41, &mut dst);
        }
    }

    #[cfg(not(miri))]
    #[test]
    fn cache_sizes_parse() {
        assert_eq!(cache_size("48K\n"), Some(48 << 10));
        assert_eq!(cache_size("491520K"), Some(491_520 << 10));
        assert_eq!(cache_size("32M"), Some(32 << 20));
        assert_eq!(cache_size("1G"), Some(1 << 30));
        assert_eq!(cache_size("1024"), Some(1024));
        assert_eq!(cache_size("K"), None);
        assert_eq!(cache_size("12X"), None);
        assert_eq!(cache_size("99999999999999999999G"), None);
    }

    #[test]
    fn extend_appends() {
        let src: Vec<u8> = (0..STREAMING_MIN + 5).map(|i| (i % 253) as u8).collect();
        let mut out = vec![1u8, 2, 3];
        extend(&mut out, &src);
        assert_eq!(out.len(), 3 + src.len());
        assert_eq!(&out[..3], &[1, 2, 3]);
        assert!(out[3..] == src[..]);
    }
}
