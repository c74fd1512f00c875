//! Generator of the inputs of scripts/bench-tile.sh (std only: `rustc -O` builds it in
//! seconds): `gen_tile_input tns FILE N` writes N distinct entries of a 2000^3 tensor as a
//! FROSTT file, `gen_tile_input mtx FILE N` N distinct entries of a 10^6 x 10^6 matrix as
//! a Matrix Market file. Coordinates are an injective walk (`k = (i * p + c) mod total`,
//! `p` prime to `total`), values pseudo-random with six decimals.

use std::io::{BufWriter, Write};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (kind, path, n) = match args.as_slice() {
        [_, k, p, n] => (k.as_str(), p.as_str(), n.parse::<u64>().expect("N")),
        _ => {
            eprintln!("usage: gen_tile_input tns|mtx FILE N");
            std::process::exit(2);
        }
    };
    let shape: Vec<u64> = match kind {
        "tns" => vec![2000, 2000, 2000],
        "mtx" => vec![1_000_000, 1_000_000],
        _ => {
            eprintln!("kind must be tns or mtx");
            std::process::exit(2);
        }
    };
    let total: u64 = shape.iter().product();
    let p: u64 = 1_000_000_007;
    let mut out = BufWriter::with_capacity(1 << 22, std::fs::File::create(path).expect("create"));
    if kind == "mtx" {
        writeln!(out, "%%MatrixMarket matrix coordinate real general").unwrap();
        writeln!(out, "{} {} {n}", shape[0], shape[1]).unwrap();
    }
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut line = Vec::with_capacity(64);
    for i in 0..n {
        let mut k = ((i as u128 * p as u128 + 12345) % total as u128) as u64;
        let mut coords = [0u64; 3];
        for d in (0..shape.len()).rev() {
            coords[d] = k % shape[d] + 1;
            k /= shape[d];
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        line.clear();
        for c in &coords[..shape.len()] {
            write!(line, "{c} ").unwrap();
        }
        writeln!(line, "{}.{:06}", rng % 100, (rng >> 20) % 1_000_000).unwrap();
        out.write_all(&line).unwrap();
    }
    out.flush().unwrap();
}
