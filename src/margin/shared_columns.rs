//! Which rows of a sparse working set share which columns, for the inner products of the span
//! ([`super::span`]).

use super::points::Points;

/// The rows joining a span by the columns they store: which rows share a column with which, so that
/// a new row's inner products are summed over the columns it shares with each earlier row only. A product for every pair through a scattered copy of the new row read every entry of every
/// pivot and took a vector of `d` values: half of a solve on the news20-shaped set of the README,
/// where two rows share a column or two of their 450. This holds one key a stored value (8 bytes).
pub(super) struct SharedColumns {
    /// `column << 32 | tag`, sorted: the tags of the rows that store each column, in increasing order.
    keys: Vec<u64>,
    /// The data row of each tag.
    rows: Vec<usize>,
}

impl SharedColumns {
    /// The columns of `rows`, each tagged by its position in `rows`.
    pub(super) fn new(data: Points<'_>, rows: &[usize]) -> Self {
        let mut keys: Vec<u64> = Vec::with_capacity(rows.iter().map(|&i| data.row(i).nnz()).sum());
        for (tag, &i) in rows.iter().enumerate() {
            keys.extend(
                data.row(i)
                    .entries()
                    .map(|(j, _)| ((j as u64) << 32) | tag as u64),
            );
        }
        keys.sort_unstable();
        SharedColumns {
            keys,
            rows: rows.to_vec(),
        }
    }

    /// `by_tag[s] += x_t · x_s` for every earlier tag `s < t` that shares a column with row `t`, the
    /// terms in the order of the columns.
    pub(super) fn products(&self, data: Points<'_>, t: usize, by_tag: &mut [f64]) {
        for (j, x) in data.row(self.rows[t]).entries() {
            let first = self.keys.partition_point(|&key| key < (j as u64) << 32);
            for &key in &self.keys[first..] {
                let (column, s) = ((key >> 32) as usize, (key & u64::from(u32::MAX)) as usize);
                if column != j || s >= t {
                    break;
                }
                let y = data
                    .row(self.rows[s])
                    .entries_in(j..j + 1)
                    .next()
                    .map_or(0.0, |(_, y)| y);
                by_tag[s] += x * y;
            }
        }
    }
}
