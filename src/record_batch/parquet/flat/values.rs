//! The value encodings of one data page of a flat, required column, decoded in chunks:
//! `PLAIN`, `BYTE_STREAM_SPLIT`, `DELTA_BINARY_PACKED`, and dictionary indices in the
//! RLE / bit-packed hybrid. Each decoder keeps only its place in the page; the page's
//! (decompressed) value bytes are handed to every call (no IO here). It yields the raw
//! bits of each value widened to `u64` (an `INT32` or `FLOAT` value in the low 32 bits),
//! and resumes where it stopped, so a page can be split across batches.
//!
//! Every length and count comes from the page and is checked against its bytes: a
//! decoder never reads past them, never allocates by a count the page claims, and returns
//! a reason (`Err(String)`) naming the byte where the encoding breaks.

/// Values decoded per chunk: the chunk lives on the stack of the column's fill loop.
pub(super) const CHUNK: usize = 1024;

/// The value decoder of one data page.
pub(super) enum Values {
    /// `PLAIN`: `width` little-endian bytes per value.
    Plain { width: usize, at: usize },
    /// `BYTE_STREAM_SPLIT`: byte `k` of value `i` at `k * count + i`.
    Split {
        width: usize,
        count: usize,
        next: usize,
    },
    /// `DELTA_BINARY_PACKED`.
    Delta(Delta),
    /// `RLE_DICTIONARY` (or `PLAIN_DICTIONARY`): indices into the column chunk's dictionary.
    Dictionary(Hybrid),
}

impl Values {
    /// `PLAIN` values of `width` bytes; `count` values must be there.
    pub(super) fn plain(data: &[u8], width: usize, count: usize) -> Result<Self, String> {
        need(data.len(), count, width, "PLAIN")?;
        Ok(Values::Plain { width, at: 0 })
    }

    /// `BYTE_STREAM_SPLIT` values of `width` bytes: `count` values exactly.
    pub(super) fn split(data: &[u8], width: usize, count: usize) -> Result<Self, String> {
        if count.checked_mul(width) != Some(data.len()) {
            return Err(format!(
                "BYTE_STREAM_SPLIT data of {} bytes for {count} values of {width} bytes",
                data.len()
            ));
        }
        Ok(Values::Split {
            width,
            count,
            next: 0,
        })
    }

    /// Dictionary indices: a bit-width byte, then the hybrid runs.
    pub(super) fn dictionary(data: &[u8]) -> Result<Self, String> {
        let width = *data
            .first()
            .ok_or("a dictionary-encoded page without its bit-width byte")?;
        if width > 32 {
            return Err(format!("dictionary indices of {width} bits (at most 32)"));
        }
        Ok(Values::Dictionary(Hybrid::new(u32::from(width))))
    }

    /// Fills `out` with the next values (all of it unless the page's bytes end first, which
    /// is an error: the caller asks only for values the page holds). A dictionary-encoded
    /// page yields its indices, for the caller to look up (see [`Values::indexes`]).
    pub(super) fn next(&mut self, data: &[u8], out: &mut [u64]) -> Result<(), String> {
        match self {
            Values::Plain { width, at } => {
                let end = at.saturating_add(out.len().saturating_mul(*width));
                let bytes = data.get(*at..end).ok_or("PLAIN values end early")?;
                if *width == 8 {
                    for (o, b) in out.iter_mut().zip(bytes.chunks_exact(8)) {
                        *o = u64::from_le_bytes(b.try_into().unwrap_or_default());
                    }
                } else {
                    for (o, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                        *o = u64::from(u32::from_le_bytes(b.try_into().unwrap_or_default()));
                    }
                }
                *at = end;
                Ok(())
            }
            Values::Split { width, count, next } => {
                let end = next.saturating_add(out.len());
                if end > *count {
                    return Err("BYTE_STREAM_SPLIT values end early".to_string());
                }
                out.fill(0);
                for k in 0..*width {
                    let start = k * *count;
                    let stream = data
                        .get(start + *next..start + end)
                        .ok_or("BYTE_STREAM_SPLIT values end early")?;
                    for (o, &b) in out.iter_mut().zip(stream) {
                        *o |= u64::from(b) << (8 * k);
                    }
                }
                *next = end;
                Ok(())
            }
            Values::Delta(delta) => delta.next(data, out),
            Values::Dictionary(hybrid) => {
                // The indices follow the bit-width byte; the caller looks them up.
                hybrid.next(data.get(1..).unwrap_or_default(), out)
            }
        }
    }
}

impl Values {
    /// Whether [`Values::next`] yields dictionary indices.
    pub(super) fn indexes(&self) -> bool {
        matches!(self, Values::Dictionary(_))
    }
}

/// Whether `len` bytes hold `count` values of `width` bytes.
fn need(len: usize, count: usize, width: usize, what: &str) -> Result<(), String> {
    match count.checked_mul(width) {
        Some(n) if n <= len => Ok(()),
        _ => Err(format!(
            "{what} data of {len} bytes for {count} values of {width} bytes"
        )),
    }
}

/// The `PLAIN` values of a dictionary page, widened: `count` values of `width` bytes.
pub(super) fn plain_all(data: &[u8], width: usize, count: usize) -> Result<Vec<u64>, String> {
    need(data.len(), count, width, "dictionary page")?;
    let mut out = vec![0u64; count];
    let mut values = Values::Plain { width, at: 0 };
    values.next(data, &mut out)?;
    Ok(out)
}

/// `width` low bits set.
fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The `width`-bit value (at most 64) starting at bit `bit` of `data`, little-endian bit
/// order; bits past the end of `data` read as zero.
fn bits_at(data: &[u8], bit: usize, width: u32) -> u64 {
    let byte = bit / 8;
    let mut window = [0u8; 16];
    match data.get(byte..byte + 16) {
        Some(s) => window.copy_from_slice(s),
        None => {
            let s = data.get(byte..).unwrap_or_default();
            for (w, &b) in window.iter_mut().zip(s) {
                *w = b;
            }
        }
    }
    ((u128::from_le_bytes(window) >> (bit % 8)) as u64) & mask(width)
}

/// Unpacks `out.len()` values of `width` bits from `data` starting at bit `bit`.
fn unpack(data: &[u8], bit: usize, width: u32, out: &mut [u64]) {
    if width == 0 {
        out.fill(0);
        return;
    }
    let w = width as usize;
    // Values one by one up to the next byte boundary (a read that stopped inside a group
    // of eight resumes there), then whole groups of eight values, which start on a byte
    // (every group of a hybrid run and of a miniblock does), through a copy of the loop
    // for their width.
    let mut done = 0;
    let mut bit = bit;
    while !bit.is_multiple_of(8) && done < out.len() {
        if let Some(o) = out.get_mut(done) {
            *o = bits_at(data, bit, width);
        }
        done += 1;
        bit += w;
    }
    let out = out.get_mut(done..).unwrap_or_default();
    let mut done = 0;
    if width <= 32 {
        let start = bit / 8;
        let groups = (out.len() / 8).min(data.len().saturating_sub(start) / w);
        let src = data.get(start..start + groups * w).unwrap_or_default();
        let dst = out.get_mut(..groups * 8).unwrap_or_default();
        macro_rules! by_width {
            ($($n:literal)*) => {
                match width {
                    $($n => unpack_groups::<$n>(src, dst),)*
                    _ => {}
                }
            };
        }
        by_width!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
        done = dst.len();
    }
    let mut at = bit + done * w;
    for o in out.iter_mut().skip(done) {
        *o = bits_at(data, at, width);
        at += w;
    }
}

/// Unpacks groups of eight `W`-bit values (`W` bytes each) from `src` into `out`.
#[inline(never)]
fn unpack_groups<const W: usize>(src: &[u8], out: &mut [u64]) {
    let mask = (1u64 << W) - 1;
    for (group, bytes) in out.chunks_exact_mut(8).zip(src.chunks_exact(W)) {
        let mut buf = [0u8; 32];
        for (b, &x) in buf.iter_mut().zip(bytes) {
            *b = x;
        }
        let lo = u128::from_le_bytes(buf[..16].try_into().unwrap_or_default());
        let hi = u128::from_le_bytes(buf[16..].try_into().unwrap_or_default());
        for (i, o) in group.iter_mut().enumerate() {
            let b = i * W;
            let v = if b + W <= 128 {
                lo >> b
            } else if b >= 128 {
                hi >> (b - 128)
            } else {
                (lo >> b) | (hi << (128 - b))
            };
            *o = v as u64 & mask;
        }
    }
}

/// An unsigned LEB128 varint at `*at`, advancing past it.
fn varint(data: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *data
            .get(*at)
            .ok_or_else(|| format!("a varint runs past the page's end at byte {}", *at))?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(format!("a varint longer than 10 bytes before byte {}", *at))
}

/// A zigzag-encoded varint.
fn zigzag_varint(data: &[u8], at: &mut usize) -> Result<u64, String> {
    let v = varint(data, at)?;
    Ok((v >> 1) ^ (v & 1).wrapping_neg())
}

/// The RLE / bit-packed hybrid of dictionary indices.
pub(super) struct Hybrid {
    width: u32,
    /// The next run header's byte.
    at: usize,
    run: Run,
}

/// The run being read.
enum Run {
    /// No run started.
    None,
    /// `left` more copies of `value`.
    Repeat { value: u64, left: usize },
    /// `left` more bit-packed values, the next at bit `bit` of the data.
    Packed { bit: usize, left: usize },
}

impl Hybrid {
    fn new(width: u32) -> Self {
        Hybrid {
            width,
            at: 0,
            run: Run::None,
        }
    }

    fn next(&mut self, data: &[u8], mut out: &mut [u64]) -> Result<(), String> {
        while !out.is_empty() {
            match &mut self.run {
                Run::None => self.start_run(data)?,
                Run::Repeat { value, left } => {
                    let n = (*left).min(out.len());
                    let (now, rest) = out.split_at_mut(n);
                    now.fill(*value);
                    out = rest;
                    *left -= n;
                    if *left == 0 {
                        self.run = Run::None;
                    }
                }
                Run::Packed { bit, left } => {
                    let n = (*left).min(out.len());
                    let (now, rest) = out.split_at_mut(n);
                    unpack(data, *bit, self.width, now);
                    *bit += n * self.width as usize;
                    out = rest;
                    *left -= n;
                    if *left == 0 {
                        self.run = Run::None;
                    }
                }
            }
        }
        Ok(())
    }

    /// Reads the next run header (and an RLE run's value).
    fn start_run(&mut self, data: &[u8]) -> Result<(), String> {
        let header_at = self.at;
        if header_at >= data.len() {
            return Err(format!(
                "the dictionary indices end at byte {header_at} before the page's values do"
            ));
        }
        let header = varint(data, &mut self.at)?;
        let count = usize::try_from(header >> 1).unwrap_or(usize::MAX);
        if header & 1 == 1 {
            // `count` groups of eight values, `width` bytes per group.
            let bytes = count.saturating_mul(self.width as usize);
            let available = data.len().saturating_sub(self.at);
            // A last run may stop inside its final group: take what its bytes hold.
            let values = if bytes <= available {
                count.saturating_mul(8)
            } else {
                available * 8 / (self.width.max(1) as usize)
            };
            if values == 0 {
                return Err(format!("an empty bit-packed run at byte {header_at}"));
            }
            self.run = Run::Packed {
                bit: self.at * 8,
                left: values,
            };
            self.at = self.at.saturating_add(bytes).min(data.len());
        } else {
            if count == 0 {
                return Err(format!("an empty RLE run at byte {header_at}"));
            }
            let n = (self.width as usize).div_ceil(8);
            let bytes = data.get(self.at..self.at + n).ok_or_else(|| {
                format!("an RLE run's value runs past the end at byte {header_at}")
            })?;
            let mut value = 0u64;
            for (i, &b) in bytes.iter().enumerate() {
                value |= u64::from(b) << (8 * i);
            }
            self.at += n;
            self.run = Run::Repeat { value, left: count };
        }
        Ok(())
    }
}

/// `DELTA_BINARY_PACKED` values, summed in wrapping 64-bit arithmetic (the low 32 bits
/// are those of wrapping 32-bit arithmetic, for `INT32` columns).
pub(super) struct Delta {
    at: usize,
    /// Values per miniblock and miniblocks per block.
    per_mini: usize,
    minis: usize,
    /// Values the header announces and not yet returned.
    left: usize,
    /// The last value returned; `None` before the first.
    last: Option<u64>,
    first: u64,
    min_delta: u64,
    /// The bit widths of the current block's miniblocks.
    widths: Vec<u8>,
    /// The current miniblock (`minis` when a new block starts next), its first bit and the
    /// values of it already read.
    mini: usize,
    mini_bit: usize,
    in_mini: usize,
    /// Bits per value of the page's physical type (32 or 64).
    type_bits: u32,
}

/// The largest number of miniblocks per block taken (writers use 4).
const MAX_MINIBLOCKS: usize = 1 << 10;

impl Delta {
    /// Reads the header; the page must hold `count` values (the header's total must agree).
    pub(super) fn new(data: &[u8], count: usize, type_bits: u32) -> Result<Self, String> {
        let mut at = 0;
        let block = varint(data, &mut at)?;
        let minis = varint(data, &mut at)?;
        let total = varint(data, &mut at)?;
        let first = zigzag_varint(data, &mut at)?;
        let (block, minis) = (
            usize::try_from(block).unwrap_or(usize::MAX),
            usize::try_from(minis).unwrap_or(usize::MAX),
        );
        if minis == 0 || minis > MAX_MINIBLOCKS || block == 0 || block % minis != 0 {
            return Err(format!(
                "DELTA_BINARY_PACKED blocks of {block} values in {minis} miniblocks"
            ));
        }
        let per_mini = block / minis;
        if per_mini % 8 != 0 {
            return Err(format!(
                "DELTA_BINARY_PACKED miniblocks of {per_mini} values (not a multiple of 8)"
            ));
        }
        if usize::try_from(total).ok() != Some(count) {
            return Err(format!(
                "a DELTA_BINARY_PACKED header of {total} values in a page of {count}"
            ));
        }
        Ok(Delta {
            at,
            per_mini,
            minis,
            left: count,
            last: None,
            first,
            min_delta: 0,
            widths: Vec::new(),
            mini: minis,
            mini_bit: 0,
            in_mini: 0,
            type_bits,
        })
    }

    fn next(&mut self, data: &[u8], mut out: &mut [u64]) -> Result<(), String> {
        if out.len() > self.left {
            return Err("DELTA_BINARY_PACKED values end early".to_string());
        }
        self.left -= out.len();
        if self.last.is_none() {
            let Some((o, rest)) = out.split_first_mut() else {
                return Ok(());
            };
            *o = self.first;
            self.last = Some(self.first);
            out = rest;
        }
        let mut last = self.last.unwrap_or(self.first);
        while !out.is_empty() {
            if self.in_mini == self.per_mini || self.mini == self.minis {
                self.next_miniblock(data, out.len() + self.left)?;
            }
            let width = u32::from(self.widths.get(self.mini).copied().unwrap_or(0));
            let n = (self.per_mini - self.in_mini).min(out.len());
            let (now, rest) = out.split_at_mut(n);
            let bit = self.mini_bit.saturating_add(self.in_mini * width as usize);
            unpack(data, bit, width, now);
            let min_delta = self.min_delta;
            for o in now.iter_mut() {
                last = last.wrapping_add(min_delta.wrapping_add(*o));
                *o = last;
            }
            self.in_mini += n;
            out = rest;
        }
        self.last = Some(last);
        Ok(())
    }

    /// Moves to the next miniblock, reading a block header when the block is done.
    /// `remaining`: the values still to be read from the page, this miniblock's on.
    fn next_miniblock(&mut self, data: &[u8], remaining: usize) -> Result<(), String> {
        if self.mini < self.minis {
            let width = usize::from(self.widths.get(self.mini).copied().unwrap_or(0));
            self.mini_bit = self
                .mini_bit
                .saturating_add(self.per_mini.saturating_mul(width));
            self.mini += 1;
        }
        if self.mini == self.minis {
            self.at = self.mini_bit.div_ceil(8).max(self.at);
            let block_at = self.at;
            self.min_delta = zigzag_varint(data, &mut self.at)?;
            let widths = data
                .get(self.at..self.at.saturating_add(self.minis))
                .ok_or_else(|| {
                    format!(
                        "a DELTA_BINARY_PACKED block header runs past the end at byte {block_at}"
                    )
                })?;
            self.widths.clear();
            self.widths.extend_from_slice(widths);
            self.at += self.minis;
            self.mini = 0;
            self.mini_bit = self.at * 8;
        }
        self.in_mini = 0;
        // The miniblock's bytes must be there for the values still to come from it.
        let width = self.widths.get(self.mini).copied().unwrap_or(0);
        if u32::from(width) > self.type_bits {
            return Err(format!(
                "a DELTA_BINARY_PACKED miniblock of {width}-bit deltas at byte {}",
                self.mini_bit / 8
            ));
        }
        let width = usize::from(width);
        let end_bit = self
            .mini_bit
            .saturating_add(self.per_mini.min(remaining).saturating_mul(width));
        if end_bit.div_ceil(8) > data.len() {
            return Err(format!(
                "a DELTA_BINARY_PACKED miniblock runs past the page's end at byte {}",
                self.mini_bit / 8
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;

    fn all(mut values: Values, data: &[u8], n: usize) -> Result<Vec<u64>, String> {
        let mut out = vec![0; n];
        // In uneven steps, to resume inside runs and miniblocks.
        let mut at = 0;
        for step in [1, 7, 64, usize::MAX].iter().cycle() {
            if at == n {
                break;
            }
            let k = (*step).min(n - at);
            values.next(data, &mut out[at..at + k])?;
            at += k;
        }
        Ok(out)
    }

    #[test]
    fn hybrid_runs_of_both_kinds() {
        // Width 3: an RLE run of 5 copies of 6, then one bit-packed group 0..8.
        let mut data = vec![3u8, 5 << 1, 6, (1 << 1) | 1];
        let packed: u32 = (0..8).map(|v: u32| v << (3 * v)).sum();
        data.extend_from_slice(&packed.to_le_bytes()[..3]);
        let values = Values::dictionary(&data).unwrap();
        let got = all(values, &data, 13).unwrap();
        assert_eq!(got, [6, 6, 6, 6, 6, 0, 1, 2, 3, 4, 5, 6, 7]);
        // One value more than the runs hold.
        let values = Values::dictionary(&data).unwrap();
        let e = all(values, &data, 14).unwrap_err();
        assert!(e.contains("end at byte"), "{e}");
        // Indices wider than 32 bits.
        assert!(Values::dictionary(&[33]).is_err());
    }

    #[test]
    fn every_bit_width_unpacks() {
        let mut rng = 0x1234_5678_u64;
        for width in 1..=64u32 {
            let values: Vec<u64> = (0..100)
                .map(|_| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    rng & mask(width)
                })
                .collect();
            let mut bytes = vec![0u8; (100 * width as usize).div_ceil(8)];
            for (i, v) in values.iter().enumerate() {
                for b in 0..width as usize {
                    if v >> b & 1 == 1 {
                        let bit = i * width as usize + b;
                        bytes[bit / 8] |= 1 << (bit % 8);
                    }
                }
            }
            for start in [0usize, 3, 8] {
                let mut out = vec![0; 100 - start];
                unpack(&bytes, start * width as usize, width, &mut out);
                assert_eq!(out, values[start..], "width {width} from {start}");
            }
        }
    }

    /// The example of the Parquet encodings document: 1..=5 in one block, then 7, 5, 3, 1,
    /// 2, 3, 4, 5 with a negative minimum delta.
    #[test]
    fn delta_binary_packed() {
        fn varint(mut v: u64, out: &mut Vec<u8>) {
            while v >= 0x80 {
                out.push(v as u8 | 0x80);
                v >>= 7;
            }
            out.push(v as u8);
        }
        fn block(values: &[i64]) -> Vec<u8> {
            // Header: 128 values per block, 4 miniblocks, the count, the first value.
            let mut out = vec![0x80, 0x01, 4];
            varint(values.len() as u64, &mut out);
            let first = values[0];
            varint(((first << 1) ^ (first >> 63)) as u64, &mut out);
            let deltas: Vec<i64> = values.windows(2).map(|w| w[1] - w[0]).collect();
            if deltas.is_empty() {
                return out;
            }
            let min = *deltas.iter().min().unwrap();
            varint(((min << 1) ^ (min >> 63)) as u64, &mut out);
            let width = deltas
                .iter()
                .map(|d| 64 - ((d - min) as u64).leading_zeros())
                .max()
                .unwrap();
            out.extend_from_slice(&[width as u8, 0, 0, 0]);
            let mut bits = vec![0u8; (32 * width as usize).div_ceil(8)];
            for (i, d) in deltas.iter().enumerate() {
                let v = (d - min) as u64;
                for b in 0..width as usize {
                    if v >> b & 1 == 1 {
                        let bit = i * width as usize + b;
                        bits[bit / 8] |= 1 << (bit % 8);
                    }
                }
            }
            out.extend_from_slice(&bits);
            out
        }
        for values in [
            vec![1i64, 2, 3, 4, 5],
            vec![7, 5, 3, 1, 2, 3, 4, 5],
            vec![-3],
            vec![9, -9, 9, -9, 0],
        ] {
            let data = block(&values);
            let delta = Delta::new(&data, values.len(), 64).unwrap();
            let got = all(Values::Delta(delta), &data, values.len()).unwrap();
            let got: Vec<i64> = got.into_iter().map(|v| v as i64).collect();
            assert_eq!(got, values);
        }
        // The header's count must be the page's.
        let data = block(&[1, 2, 3]);
        assert!(Delta::new(&data, 4, 64)
            .err()
            .unwrap()
            .contains("header of 3 values"));
        // A miniblock cut short.
        // Three 16-bit deltas need 6 bytes of the miniblock (of 64 written): keep 4.
        let data = block(&[1, 2, 30000, 4]);
        let short = &data[..data.len() - 60];
        let delta = Delta::new(short, 4, 64).unwrap();
        let e = all(Values::Delta(delta), short, 4).unwrap_err();
        assert!(e.contains("past the page's end"), "{e}");
        // Deltas wider than the type.
        let mut data = block(&[1, 2]);
        data[6] = 33;
        let delta = Delta::new(&data, 2, 32).unwrap();
        assert!(all(Values::Delta(delta), &data, 2)
            .unwrap_err()
            .contains("33-bit"));
    }

    #[test]
    fn plain_and_byte_stream_split() {
        let data: Vec<u8> = (0u8..24).collect();
        let got = all(Values::plain(&data, 4, 6).unwrap(), &data, 6).unwrap();
        assert_eq!(got[1], u64::from(u32::from_le_bytes([4, 5, 6, 7])));
        assert!(Values::plain(&data, 8, 4).is_err());
        let got = all(Values::split(&data, 4, 6).unwrap(), &data, 6).unwrap();
        assert_eq!(got[1], u64::from(u32::from_le_bytes([1, 7, 13, 19])));
        assert!(Values::split(&data, 8, 4).is_err());
        assert_eq!(
            plain_all(&data, 8, 3).unwrap()[2],
            u64::from_le_bytes(data[16..24].try_into().unwrap())
        );
        assert!(plain_all(&data, 8, 4).is_err());
    }
}
