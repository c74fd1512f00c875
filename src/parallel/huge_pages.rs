//! Advice that a large output about to be written from scratch be backed by transparent
//! huge pages (Linux `madvise(MADV_HUGEPAGE)`, as numpy advises for its large arrays): the
//! kernel then maps it 2 MiB at a time, one page fault where 4 KiB pages take 512.
//!
//! Outputs of at least [`MIN_BYTES`] get the advice for the whole 2 MiB pages inside their
//! allocation. Setting the environment variable `ARROW_TENSOR_IPC_HUGE_PAGES` to `0` turns it
//! off (read at every large allocation), for systems where huge-page faults stall, such as
//! a kernel set to compact memory synchronously on them (`defrag` = `always`).

/// Outputs smaller than this are left to ordinary pages.
pub(crate) const MIN_BYTES: usize = 8 << 20;

/// The size of a transparent huge page on x86-64 and most aarch64 kernels.
const HUGE: usize = 2 << 20;

/// The environment variable that turns the advice off when `0`.
pub(crate) const ENV: &str = "ARROW_TENSOR_IPC_HUGE_PAGES";

/// Advises the kernel to back `buf`'s memory with huge pages, when it spans at least
/// [`MIN_BYTES`] and [`ENV`] does not turn the advice off. The kernel may ignore the advice;
/// a failure is ignored.
pub(crate) fn advise<T>(buf: &[std::mem::MaybeUninit<T>]) {
    if std::mem::size_of_val(buf) >= MIN_BYTES && enabled(std::env::var_os(ENV).as_deref()) {
        advise_range(buf);
    }
}

/// Whether the advice is on for this value of [`ENV`]: unless it is `0`.
fn enabled(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_none_or(|v| v != "0")
}

/// The whole huge pages inside `bytes` bytes from address `start`: their first address and
/// their length, `None` when there is none.
fn huge_range(start: usize, bytes: usize) -> Option<(usize, usize)> {
    let first = start.checked_next_multiple_of(HUGE)?;
    let end = start.checked_add(bytes)? & !(HUGE - 1);
    (end > first).then(|| (first, end - first))
}

/// Advises huge pages for the whole huge pages inside `buf`'s memory.
#[cfg(all(target_os = "linux", not(miri)))]
fn advise_range<T>(buf: &[std::mem::MaybeUninit<T>]) {
    let Some((first, len)) = huge_range(buf.as_ptr() as usize, std::mem::size_of_val(buf)) else {
        return;
    };
    #[allow(unsafe_code)]
    // SAFETY: [first, first + len) lies inside the memory `buf` borrows, which its
    // allocation owns. MADV_HUGEPAGE changes only which physical pages the kernel backs the
    // range with, never its contents, mapping or protection, so every reference into it
    // stays valid; the call reads and writes no memory of this process. Its result is
    // ignored: the advice is optional and a kernel without huge pages refuses it.
    unsafe {
        libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

/// Elsewhere there is nothing to advise.
#[cfg(not(all(target_os = "linux", not(miri))))]
fn advise_range<T>(_buf: &[std::mem::MaybeUninit<T>]) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_is_the_whole_huge_pages_inside() {
        // Aligned at both ends.
        assert_eq!(huge_range(4 * HUGE, 3 * HUGE), Some((4 * HUGE, 3 * HUGE)));
        // Unaligned: rounded inwards at both ends.
        assert_eq!(
            huge_range(4 * HUGE + 16, 3 * HUGE),
            Some((5 * HUGE, 2 * HUGE))
        );
        // Less than one whole huge page inside.
        assert_eq!(huge_range(HUGE + 1, HUGE), None);
        assert_eq!(huge_range(HUGE + 1, HUGE + 10), None);
        assert_eq!(huge_range(0, 0), None);
        // Near the top of the address space: no overflow.
        assert_eq!(huge_range(usize::MAX - 10, 100), None);
        assert_eq!(
            huge_range(usize::MAX - 3 * HUGE, 2 * HUGE),
            Some((usize::MAX - 3 * HUGE + 1, HUGE))
        );
    }

    #[test]
    fn only_zero_turns_the_advice_off() {
        assert!(enabled(None));
        assert!(enabled(Some("1".as_ref())));
        assert!(enabled(Some("".as_ref())));
        assert!(!enabled(Some("0".as_ref())));
    }

    /// The advised range gets the kernel's huge-page flag (`hg` among the `VmFlags` of its
    /// mapping in `/proc/self/smaps`), and the memory keeps what is written to it.
    #[cfg(all(target_os = "linux", not(miri)))]
    #[test]
    fn linux_flags_the_advised_range() {
        let mut v: Vec<u64> = Vec::with_capacity(MIN_BYTES / 8 * 2);
        advise_range(v.spare_capacity_mut());
        let (first, _) = huge_range(v.as_ptr() as usize, v.capacity() * 8).expect("a huge page");
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
        let mut inside = false;
        let mut flagged = None;
        for line in smaps.lines() {
            let head = line.split_whitespace().next().unwrap_or("");
            if let Some((a, b)) = head.split_once('-') {
                if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
                {
                    inside = a <= first && first < b;
                    continue;
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    flagged = Some(flags.split_whitespace().any(|f| f == "hg"));
                }
            }
        }
        assert_eq!(flagged, Some(true), "the advised mapping lacks the hg flag");
        v.extend(0..v.capacity() as u64);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64));
    }
}
