//! Finding an entry's tile: the buffer of each tile and the quotient by a multiplication.

/// The buffered entries of one tile.
#[derive(Default)]
pub(super) struct TileBuffer {
    /// The tile's index.
    pub(super) tile: Vec<usize>,
    /// Global coordinates, `rank` per entry.
    pub(super) coords: Vec<u64>,
    /// Values, little-endian, `width` bytes per entry.
    pub(super) values: Vec<u8>,
}

impl TileBuffer {
    pub(super) fn bytes(&self) -> usize {
        self.coords.capacity() * 8 + self.values.capacity()
    }
}

/// The tile the last entry went to, for the next entry's quick check.
pub(super) struct Last {
    pub(super) slot: usize,
    pub(super) bounds: Vec<(u64, u64)>,
}

/// Grids of at most this many tiles find a tile's buffer by its key in a table.
pub(super) const DENSE_SLOTS: u64 = 1 << 20;

/// `x / t` for `t >= 1`, by a multiplication by `inv = 1 / t` corrected to the exact
/// quotient (exact for `x < 2^52`; a division beyond).
#[inline]
pub(super) fn div(x: u64, t: u64, inv: f64) -> u64 {
    if x >= 1 << 52 || inv == 0.0 {
        return x / t;
    }
    let mut q = (x as f64 * inv) as u64;
    while q > 0 && q.saturating_mul(t) > x {
        q -= 1;
    }
    while (q + 1).saturating_mul(t) <= x {
        q += 1;
    }
    q
}
