//! A reader of the Thrift compact protocol, far enough to check a Parquet footer's schema
//! and page headers before the `parquet` crate decodes them.

/// What `check_pages` and the direct reader (`flat`) read of a page header.
pub(super) struct PageHeader {
    /// The page type (field 1): 0 data, 1 index, 2 dictionary, 3 data v2; -1 when absent.
    pub(super) page_type: i64,
    pub(super) uncompressed: i64,
    pub(super) compressed: i64,
    /// The values of a data page (0 for other pages).
    pub(super) values: u64,
    /// The bytes of repetition and definition levels at the start of a v2 data page, stored
    /// uncompressed (0 for other pages).
    pub(super) levels: i64,
    /// Whether the page's data after its levels goes through the column chunk's codec:
    /// `false` only for a v2 data page whose `is_compressed` is false.
    pub(super) codec_applied: bool,
    /// The encoding of a data page's values or of a dictionary page; -1 when absent.
    pub(super) encoding: i64,
    /// The nulls of a v2 data page.
    pub(super) nulls: i64,
    /// The values of a dictionary page (field 7).
    pub(super) dictionary_values: i64,
}

/// The compact-protocol types of a boolean field whose value is true / false.
pub(super) const TRUE: u8 = 1;
pub(super) const FALSE: u8 = 2;
pub(super) const I32: u8 = 5;
pub(super) const LIST: u8 = 9;
pub(super) const STRUCT: u8 = 12;

/// Deepest nesting of Thrift values followed while skipping.
pub(super) const SKIP_DEPTH: usize = 32;

pub(super) const STOP: u8 = 0;

pub(super) fn zigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A reader of the Thrift compact protocol over a byte slice: every method returns `None`
/// when the bytes end or break the encoding.
pub(super) struct Thrift<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) at: usize,
}

impl Thrift<'_> {
    /// A `PageHeader`: its type (field 1), fields 2 and 3 (sizes), `num_values` (field 1)
    /// and the encoding (field 2, v2: 4) of a data page header (field 5) or a v2 data page
    /// header (field 8), and of the latter the nulls (field 2), level lengths (fields 5
    /// and 6) and `is_compressed` (field 7); of a dictionary page header (field 7) its
    /// `num_values` (field 1) and encoding (field 2).
    pub(super) fn page_header(&mut self) -> Option<PageHeader> {
        let mut header = PageHeader {
            page_type: -1,
            uncompressed: -1,
            compressed: -1,
            values: 0,
            levels: 0,
            codec_applied: true,
            encoding: -1,
            nulls: 0,
            dictionary_values: 0,
        };
        let mut last_id = 0i16;
        loop {
            let (kind, id) = self.field(&mut last_id)?;
            match (id, kind) {
                (_, STOP) => break,
                (1, I32) => header.page_type = zigzag(self.varint()?),
                (2, I32) => header.uncompressed = zigzag(self.varint()?),
                (3, I32) => header.compressed = zigzag(self.varint()?),
                (5 | 8, STRUCT) => {
                    let v2 = id == 8;
                    let mut inner_id = 0i16;
                    loop {
                        let (k, i) = self.field(&mut inner_id)?;
                        match (i, k) {
                            (_, STOP) => break,
                            (1, I32) => header.values = zigzag(self.varint()?).max(0) as u64,
                            (2, I32) if !v2 => header.encoding = zigzag(self.varint()?),
                            (4, I32) if v2 => header.encoding = zigzag(self.varint()?),
                            (2, I32) if v2 => header.nulls = zigzag(self.varint()?),
                            (5 | 6, I32) if v2 => {
                                header.levels = header.levels.saturating_add(zigzag(self.varint()?))
                            }
                            (7, TRUE | FALSE) if v2 => header.codec_applied = k == TRUE,
                            _ => self.skip(k, 1)?,
                        }
                    }
                }
                (7, STRUCT) => {
                    let mut inner_id = 0i16;
                    loop {
                        let (k, i) = self.field(&mut inner_id)?;
                        match (i, k) {
                            (_, STOP) => break,
                            (1, I32) => header.dictionary_values = zigzag(self.varint()?),
                            (2, I32) => header.encoding = zigzag(self.varint()?),
                            _ => self.skip(k, 1)?,
                        }
                    }
                }
                _ => self.skip(kind, 0)?,
            }
        }
        Some(header)
    }

    pub(super) fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    pub(super) fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    pub(super) fn advance(&mut self, n: u64) -> Option<()> {
        let end = (self.at as u64).checked_add(n)?;
        if end > self.bytes.len() as u64 {
            return None;
        }
        self.at = end as usize;
        Some(())
    }

    /// The next field header of a struct: its type and id (`STOP` ends the struct).
    pub(super) fn field(&mut self, last_id: &mut i16) -> Option<(u8, i16)> {
        let b = self.byte()?;
        let kind = b & 0x0f;
        if kind == STOP {
            return Some((STOP, 0));
        }
        let delta = (b >> 4) as i16;
        let id = if delta == 0 {
            zigzag(self.varint()?) as i16
        } else {
            last_id.wrapping_add(delta)
        };
        *last_id = id;
        Some((kind, id))
    }

    pub(super) fn list_header(&mut self) -> Option<(u8, u64)> {
        let b = self.byte()?;
        let size = match b >> 4 {
            15 => self.varint()?,
            n => u64::from(n),
        };
        Some((b & 0x0f, size))
    }

    /// Skips one value of type `kind` (list elements use the same codes, booleans there
    /// taking one byte).
    pub(super) fn skip(&mut self, kind: u8, depth: usize) -> Option<()> {
        if depth > SKIP_DEPTH {
            return None;
        }
        match kind {
            1 | 2 => Some(()),
            3 => self.advance(1),
            4..=6 => self.varint().map(|_| ()),
            7 => self.advance(8),
            8 => {
                let n = self.varint()?;
                self.advance(n)
            }
            9 | 10 => {
                let (elem, size) = self.list_header()?;
                for _ in 0..size {
                    if elem == 1 || elem == 2 {
                        self.advance(1)?;
                    } else {
                        // Every element takes at least one byte: a size past the end fails
                        // here without looping over it.
                        let before = self.at;
                        self.skip(elem, depth + 1)?;
                        if self.at == before {
                            return None;
                        }
                    }
                }
                Some(())
            }
            11 => {
                let size = self.varint()?;
                if size == 0 {
                    return Some(());
                }
                let kinds = self.byte()?;
                for _ in 0..size {
                    let before = self.at;
                    self.skip(kinds >> 4, depth + 1)?;
                    self.skip(kinds & 0x0f, depth + 1)?;
                    if self.at == before {
                        return None;
                    }
                }
                Some(())
            }
            STRUCT => {
                let mut last_id = 0i16;
                loop {
                    let (k, _) = self.field(&mut last_id)?;
                    if k == STOP {
                        return Some(());
                    }
                    self.skip(k, depth + 1)?;
                }
            }
            _ => None,
        }
    }
}
