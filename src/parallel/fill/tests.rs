//! The writer's contract, small enough for Miri
//! (`cargo +nightly miri test --lib parallel::fill`).

use super::*;

#[test]
fn ranges_filled_by_several_threads() {
    let bounds = [0, 3, 3, 7, 10];
    for _ in 0..2 {
        let out = fill_parallel(10, &bounds, |p, mut w| {
            let n = w.len();
            w.fill_to(n / 2, 0u32);
            w.fill_to(n, p as u32 + 1);
            if n > 0 {
                w.set(0, 100 + p as u32);
            }
            w.finish()
        })
        .unwrap();
        assert_eq!(out, [100, 1, 1, 102, 0, 3, 3, 103, 4, 4]);
    }
}

#[test]
fn an_unfilled_range_is_an_error() {
    // Nothing written, part written, all but the last element.
    for upto in [0, 2, 4] {
        let r = fill_parallel(9, &[0, 5, 9], |_, mut w| {
            w.fill_to(upto, 1u64);
            w.finish()
        });
        assert!(
            matches!(r.unwrap_err().kind(), ErrorKind::WorkerFailed { .. }),
            "{upto}"
        );
    }
    // One part of three left short.
    let r = fill_parallel(6, &[0, 2, 4, 6], |p, mut w| {
        let n = w.len() - usize::from(p == 1);
        w.fill_to(n, 7u8);
        w.finish()
    });
    assert!(matches!(
        r.unwrap_err().kind(),
        ErrorKind::WorkerFailed { .. }
    ));
}

#[test]
fn a_job_error_is_returned() {
    let r = fill_parallel(4, &[0, 2, 4], |p, mut w| {
        if p == 0 {
            return fail(ErrorKind::NegativeBodyLength(-1));
        }
        w.fill_to(2, 1i16);
        w.finish()
    });
    assert!(matches!(
        r.unwrap_err().kind(),
        ErrorKind::NegativeBodyLength(-1)
    ));
}

#[test]
fn writes_stay_in_the_initialised_prefix() {
    let out = fill_parallel(5, &[0, 5], |_, mut w| {
        assert_eq!(w.initialised(), 0);
        w.fill_to(2, 1.5f64);
        // Within the prefix: no change; past the range: clamped.
        w.fill_to(1, 9.0);
        assert_eq!(w.initialised(), 2);
        let set_ahead = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            w.set(2, 3.0);
        }));
        assert!(set_ahead.is_err());
        w.set(1, -1.0);
        let beyond = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            w.initialised_mut(1..3);
        }));
        assert!(beyond.is_err());
        w.fill_to(usize::MAX, 0.25);
        let mut part = w.initialised_mut(3..5);
        part.set(1, 8.0);
        assert_eq!(w.initialised(), 5);
        w.finish()
    })
    .unwrap();
    assert_eq!(out, [1.5, -1.0, 0.25, 0.25, 8.0]);
}

#[test]
fn rows_and_values_appended() {
    let (out, sums) = fill_parallel_with(11, &[0, 6, 11], "a test", |p, mut w| {
        if p == 0 {
            // Two whole rows fit; the third row does not.
            w.extend_rows([[1u16, 2, 3], [4, 5, 6], [7, 8, 9]].into_iter());
            assert_eq!(w.initialised(), 6);
        } else {
            w.extend_rows([[10u16, 11]].into_iter());
            // Values past the range are dropped.
            w.extend([12u16, 13, 14, 15].into_iter());
            assert_eq!(w.initialised(), 5);
        }
        Ok((w.finish()?, p))
    })
    .unwrap();
    assert_eq!(out, [1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 14]);
    assert_eq!(sums, [0, 1]);
    // A short row source leaves the range unfilled: an error, not a vector.
    let r = fill_parallel_with(4, &[0, 4], "a test", |_, mut w| {
        w.extend_rows([[1u8, 2]].into_iter());
        assert_eq!(w.initialised(), 2);
        Ok((w.finish()?, ()))
    });
    assert!(matches!(
        r.unwrap_err().kind(),
        ErrorKind::WorkerFailed { .. }
    ));
}

#[test]
fn bounds_must_split_the_output() {
    for bounds in [&[][..], &[0], &[1, 4], &[0, 3], &[0, 3, 2, 4]] {
        let r = fill_parallel(4, bounds, |_, mut w| {
            w.fill_to(usize::MAX, 0i32);
            w.finish()
        });
        assert!(
            matches!(r.unwrap_err().kind(), ErrorKind::Internal { invariant }
                if invariant == &format!("output ranges {bounds:?} do not split 0..4")),
            "{bounds:?}"
        );
    }
    let empty: Vec<u32> = fill_parallel(0, &[0, 0, 0], |_, w| w.finish()).unwrap();
    assert!(empty.is_empty());
}

#[test]
fn a_panicking_job_is_an_error() {
    let r = fill_parallel(4, &[0, 2, 4], |p, mut w| {
        assert!(p != 1, "job 1 fails");
        w.fill_to(2, 0u16);
        w.finish()
    });
    assert!(matches!(
        r.unwrap_err().kind(),
        ErrorKind::WorkerFailed { .. }
    ));
}

#[test]
fn pairs_keep_each_parts_prefix_in_order() {
    // Part 0 fills its ranges, part 1 writes nothing, part 2 a part of its ranges,
    // part 3 all but one value: the prefixes follow each other.
    let bounds_a = [0, 4, 8, 14, 18];
    let bounds_b = [0, 2, 4, 7, 9];
    // One thread per part, fewer threads than parts, one thread.
    for threads in [4, 2, 1] {
        let (a, b, r) = fill_parallel_pair(
            (18, &bounds_a),
            (9, &bounds_b),
            threads,
            "a test",
            |p, mut a, mut b| {
                let rows = [2, 0, 1, 1][p];
                for k in 0..rows {
                    assert!(a.push_row([10 * p as u16 + k as u16, 100]));
                    assert!(b.push(p as u8 * 10 + k as u8));
                }
                if p == 0 {
                    // Full: nothing more fits, nothing is written.
                    assert!(!a.push_row([7, 7]));
                    assert!(!a.push(7));
                    assert!(!b.push(7));
                }
                Ok((a.finish_prefix(), b.finish_prefix(), rows))
            },
        )
        .unwrap();
        assert_eq!(a, [0, 100, 1, 100, 20, 100, 30, 100]);
        assert_eq!(b, [0, 1, 20, 30]);
        assert_eq!(r, [2, 0, 1, 1]);
    }
}

#[test]
fn pairs_report_errors_and_foreign_proofs() {
    let r = fill_parallel_pair::<u8, u8, (), _>(
        (4, &[0, 2, 4]),
        (2, &[0, 1, 2]),
        2,
        "a test",
        |p, a, b| {
            if p == 1 {
                return fail(ErrorKind::NegativeBodyLength(-2));
            }
            Ok((a.finish_prefix(), b.finish_prefix(), ()))
        },
    );
    assert!(matches!(
        r.unwrap_err().kind(),
        ErrorKind::NegativeBodyLength(-2)
    ));
    // A job returning each output's proof for the other: not their ranges.
    let r = fill_parallel_pair::<u8, u8, (), _>(
        (4, &[0, 2, 4]),
        (4, &[0, 2, 4]),
        2,
        "a test",
        |_, a, b| Ok((b.finish_prefix(), a.finish_prefix(), ())),
    );
    assert!(matches!(
        r.unwrap_err().kind(),
        ErrorKind::WorkerFailed { .. }
    ));
    // Ranges of both outputs must name the same parts.
    let r = fill_parallel_pair::<u8, u8, (), _>(
        (2, &[0, 2]),
        (2, &[0, 1, 2]),
        2,
        "a test",
        |_, a, b| Ok((a.finish_prefix(), b.finish_prefix(), ())),
    );
    assert!(matches!(
        r.unwrap_err().kind(),
        ErrorKind::Internal { invariant } if invariant.contains("different numbers of parts")
    ));
}
