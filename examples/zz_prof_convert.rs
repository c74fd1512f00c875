use arrow_tensor_ipc::convert::{self, ConvertOptions};
use arrow_tensor_ipc::{SparseFormat, Tensor};
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args[1].as_str();
    let shape: Vec<usize> = args[2].split('x').map(|s| s.parse().unwrap()).collect();
    let what = args[3].as_str();
    let total: usize = shape.iter().product();
    let mut data = vec![0.0f64; total];
    let mut s = 0x243F_6A88_85A3_08D3u64;
    let mut placed = 0;
    while placed < 1_000_000 {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let p = (z % total as u64) as usize;
        if data[p] == 0.0 {
            data[p] = 1.0 + (z >> 32) as f64 % 1000.0;
            placed += 1;
        }
    }
    let t = Tensor::from_vec(shape, data).unwrap();
    let f = match kind {
        "coo" => SparseFormat::Coo,
        "csr" => SparseFormat::Csr,
        "csc" => SparseFormat::Csc,
        _ => SparseFormat::Csf,
    };
    let o = ConvertOptions::default().with_threads(
        std::env::var("ZZ_THREADS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
    );
    let sp = convert::from_dense(&t, f, &o).unwrap();
    let t0 = std::time::Instant::now();
    let iters: usize = args.get(4).map(|s| s.parse().unwrap()).unwrap_or(30);
    for _ in 0..iters {
        if what == "to" {
            std::hint::black_box(convert::from_dense(&t, f, &o).unwrap());
        } else {
            std::hint::black_box(convert::to_dense(&sp).unwrap());
        }
    }
    eprintln!("{:?} per iter", t0.elapsed() / iters.max(1) as u32);
}
