//! Local scratch (not committed).
use std::hint::black_box;
fn main() {
    let n = 4096 * 4096;
    let mut data = vec![0.0f64; n];
    for i in (0..n).step_by(16) {
        data[i] = 1.0;
    }
    for _ in 0..3 {
        let t = std::time::Instant::now();
        let mut c = 0u64;
        for _ in 0..10 {
            c ^= black_box(&data).iter().fold(0u64, |a, &v| a | v.to_bits());
        }
        eprintln!("or bits: {:?} per pass ({c})", t.elapsed() / 10);
        let t = std::time::Instant::now();
        let mut c = 0u64;
        for _ in 0..10 {
            c += black_box(&data)
                .iter()
                .fold(0u64, |a, &v| a + u64::from(v != 0.0));
        }
        eprintln!("count nz: {:?} per pass ({c})", t.elapsed() / 10);
    }
}
