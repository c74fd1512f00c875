//! Local scratch (not committed).
use std::hint::black_box;

#[inline(always)]
fn m0(chunk: &[f64; 64]) -> u64 {
    let mut mask = 0u64;
    for (k, group) in chunk.chunks_exact(8).enumerate() {
        let mut flags = [0u8; 8];
        for (f, v) in flags.iter_mut().zip(group) {
            *f = u8::from(*v != 0.0);
        }
        let bits = u64::from_le_bytes(flags).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        mask |= bits << (8 * k);
    }
    mask
}
#[inline(always)]
fn m1(chunk: &[f64; 64]) -> u64 {
    let mut mask = 0u64;
    for (k, group) in chunk.chunks_exact(8).enumerate() {
        let mut flags = [0u8; 8];
        for (f, v) in flags.iter_mut().zip(group) {
            *f = u8::from((v.to_bits() << 1) != 0);
        }
        let bits = u64::from_le_bytes(flags).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        mask |= bits << (8 * k);
    }
    mask
}
#[inline(always)]
fn m2(chunk: &[f64; 64]) -> u64 {
    let mut flags = [0u8; 64];
    for (f, v) in flags.iter_mut().zip(chunk) {
        let x = v.to_bits() << 1;
        *f = ((x | x.wrapping_neg()) >> 63) as u8;
    }
    let mut mask = 0u64;
    for (k, g) in flags.chunks_exact(8).enumerate() {
        let b = u64::from_le_bytes(g.try_into().unwrap()).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        mask |= b << (8 * k);
    }
    mask
}
#[inline(always)]
fn m3(chunk: &[f64; 64]) -> u64 {
    let mut flags = [0u8; 64];
    for (f, v) in flags.iter_mut().zip(chunk) {
        *f = u8::from(*v != 0.0);
    }
    let mut mask = 0u64;
    for (k, g) in flags.chunks_exact(8).enumerate() {
        let b = u64::from_le_bytes(g.try_into().unwrap()).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        mask |= b << (8 * k);
    }
    mask
}

fn run(name: &str, data: &[f64], f: impl Fn(&[f64; 64]) -> u64) {
    let t = std::time::Instant::now();
    let mut c = 0u64;
    for _ in 0..10 {
        for ch in black_box(data).chunks_exact(64) {
            c += u64::from(f(ch.try_into().unwrap()).count_ones());
        }
    }
    eprintln!("{name}: {:?} per pass ({c})", t.elapsed() / 10);
}

fn main() {
    let n = 4096 * 4096;
    let mut data = vec![0.0f64; n];
    let mut s = 1u64;
    for _ in 0..1_000_000 {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        data[(s >> 33) as usize % n] = 1.0;
    }
    let small = &data[..65536];
    for _ in 0..2 {
        run("m0 big", &data, m0);
        run("m1 big", &data, m1);
        run("m2 big", &data, m2);
        run("m3 big", &data, m3);
        let t = std::time::Instant::now();
        for _ in 0..256 {
            run_q(small, m0);
        }
        eprintln!("m0 small x256 {:?}", t.elapsed() / 10);
        let t = std::time::Instant::now();
        for _ in 0..256 {
            run_q(small, m2);
        }
        eprintln!("m2 small x256 {:?}", t.elapsed() / 10);
        let t = std::time::Instant::now();
        for _ in 0..256 {
            run_q(small, m3);
        }
        eprintln!("m3 small x256 {:?}", t.elapsed() / 10);
    }
}
fn run_q(data: &[f64], f: impl Fn(&[f64; 64]) -> u64) {
    let mut c = 0u64;
    for _ in 0..10 {
        for ch in black_box(data).chunks_exact(64) {
            c += u64::from(f(ch.try_into().unwrap()).count_ones());
        }
    }
    black_box(c);
}
