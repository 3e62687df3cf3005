//! The corral's QR factorisation kept current: a column appended by Gram–Schmidt, a column deleted
//! and the triangle restored by Givens rotations, and back substitution.

use super::*;
use crate::simd::AXPY_COLUMNS;

/// Columns of `R` rotated together when a deletion restores the triangle (see `delete_column`).
const ROTATION_BLOCK: usize = 16;

/// Entries of every column of `Q` that the queued rotations are applied to together (see
/// `apply_rotations`): 512 bytes a column, so that the slices of the columns a minor cycle's
/// deletions rotate (a thousand columns at most in `benches/margin_passes`) stay in the core's L2 cache.
const Q_ROW_BLOCK: usize = 64;

/// The rotation `[c s; −s c]` of entries `i, i+1` of a column of `R` (or of `Qᵀ·z_B`).
#[inline(always)]
fn rotate_rows(column: &mut [f64], i: usize, c: f64, s: f64) {
    let (x, y) = (column[i], column[i + 1]);
    column[i] = c * x + s * y;
    column[i + 1] = c * y - s * x;
}

impl Corral<'_> {
    /// Append the column of `row` to the factorisation, or return its coefficients `Qᵀe` when it depends
    /// on the columns already there.
    pub(super) fn append(&mut self, row: usize) -> Result<(), Vec<f64>> {
        self.apply_rotations();
        if self.columns.len() >= self.problem.dim() {
            // Q already spans the whole space: every column depends on it, and its coefficients are
            // still needed by Carathéodory's reduction.
            let e = self.column_of(row);
            return Err(self.qt_times(&e, false));
        }
        let mut batch = self.project(&[row]);
        self.append_projected(&mut batch, 0)
    }

    /// `z_B`, the sum of the bases' points.
    pub(super) fn base_sum(&self) -> Vec<f64> {
        let mut sum = vec![0.0; self.problem.dim()];
        let mut buffer = Vec::new();
        for &b in self.base.iter().flatten() {
            let point = self.problem.point(b, &mut buffer);
            axpy(self.problem.labels[b], point, &mut sum);
        }
        sum
    }

    /// Recompute `Qᵀ·z_B` from scratch (after a base changed).
    pub(super) fn refresh_qtb(&mut self) {
        self.apply_rotations();
        let base_sum = self.base_sum();
        self.qtb = self.qt_times(&base_sum, false);
        self.qtb_valid = true;
    }

    /// Solve `R·x = c` for the leading `c.len()` columns.
    pub(super) fn back_substitute(&self, c: &[f64]) -> Vec<f64> {
        self.back_substitute_each(vec![c.to_vec()])
            .pop()
            .unwrap_or_default()
    }

    /// Solve `R·x = y` for each `y` of `ys`, all of one length, each column of `R` read once for a
    /// block of them; each solution has the bits it has alone. `R` is stored by columns, and the
    /// solution column by column (`xⱼ ← xⱼ/rⱼⱼ`, then `x₀..ⱼ ← x₀..ⱼ − xⱼ·r₀..ⱼ,ⱼ`) is what each
    /// entry's bits are defined by; it runs [`AXPY_COLUMNS`] columns at a time: the block's own triangle
    /// first, then every row above it takes the block's columns in the same order in one pass
    /// ([`simd::axpy_columns`](crate::simd::axpy_columns)), so each entry meets the same operations
    /// in the same order. Column by column, each step waited on a division and on the entry the step
    /// before had just stored, and read and wrote `x` once a column.
    pub(super) fn back_substitute_each(&self, mut ys: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
        for xs in ys.chunks_mut(super::implicit::PASS_BLOCK) {
            back_substitute_columns(&self.r, xs);
        }
        ys
    }

    /// Delete column `position` and restore the triangle with Givens rotations.
    pub(super) fn delete_column(&mut self, position: usize) {
        self.r.remove(position);
        let gone = self.columns.remove(position);
        self.column_of[gone] = usize::MAX;
        for (k, &c) in self.columns.iter().enumerate().skip(position) {
            self.column_of[c] = k;
        }
        let m = self.r.len();
        // Block by block of columns: a block takes the rotations found before it, then, column by column,
        // gives the rotation that zeroes that column's subdiagonal, applied to the rest of the block.
        // Every entry meets the same rotations in the same order as when each rotation sweeps its two
        // rows across the whole triangle, so the bits are the same, but a block is read once and its
        // columns are independent (one column alone would be a chain of dependent rotations).
        let mut rotations: Vec<Option<(f64, f64)>> = Vec::with_capacity(m - position);
        for start in (position..m).step_by(ROTATION_BLOCK) {
            let block = &mut self.r[start..(start + ROTATION_BLOCK).min(m)];
            for (i, rotation) in (position..).zip(&rotations) {
                if let Some((c, s)) = *rotation {
                    block
                        .iter_mut()
                        .for_each(|column| rotate_rows(column, i, c, s));
                }
            }
            for k in 0..block.len() {
                let i = start + k;
                let (a, b) = (block[k][i], block[k][i + 1]);
                let h = a.hypot(b);
                let rotation = (h != 0.0).then(|| (a / h, b / h));
                if let Some((c, s)) = rotation {
                    block[k..]
                        .iter_mut()
                        .for_each(|column| rotate_rows(column, i, c, s));
                }
                rotations.push(rotation);
            }
        }
        for (i, rotation) in (position..).zip(&rotations) {
            if let Some((c, s)) = *rotation {
                self.rotate_q(i, c, s);
            }
        }
        // `Q`'s last column (index m) leaves when the rotations are applied; none queued after this one
        // reaches it, since the columns are then fewer.
        self.qtb.truncate(m);
        // Back in the triangle: the rotations left rounding residues where they eliminated the
        // subdiagonal, which is zero, and the shifted columns' last row is the spare again.
        for (j, column) in self.r.iter_mut().enumerate() {
            column.truncate(j + 2);
            column[j + 1] = 0.0;
        }
        self.forget_column(position);
    }

    /// Group `g` lost its base: make its heaviest remaining member the base. The columns `zⱼ − z_old` of
    /// the group become `(zⱼ − z_old) − (z_new − z_old)`, a rank-one change `E − e_new·1_gᵀ` with `e_new`
    /// already in the span of `Q`, so only `R` changes: two sweeps of Givens rotations restore the
    /// triangle (`O(m² + r·m)` rather than a refactorisation), then the new base's own column is deleted.
    pub(super) fn rebase(&mut self, g: usize) {
        self.qtb_valid = false;
        let candidate = self
            .columns
            .iter()
            .enumerate()
            .filter(|&(_, &c)| self.problem.group(c) == g)
            .max_by(|a, b| {
                self.weight[*a.1]
                    .total_cmp(&self.weight[*b.1])
                    .then(b.0.cmp(&a.0))
            });
        let Some((position, &new_base)) = candidate else {
            self.base[g] = None;
            return;
        };
        let m = self.r.len();
        let mut alpha: Vec<f64> = self.r[position].clone();
        alpha.resize(m, 0.0);
        let update: Vec<f64> = self
            .columns
            .iter()
            .map(|&c| {
                if self.problem.group(c) == g {
                    -1.0
                } else {
                    0.0
                }
            })
            .collect();
        // Sweep 1: rotate α onto e₀ from the bottom; R becomes upper Hessenberg.
        for i in (0..m.saturating_sub(1)).rev() {
            let h = alpha[i].hypot(alpha[i + 1]);
            if h == 0.0 {
                continue;
            }
            let (c, s) = (alpha[i] / h, alpha[i + 1] / h);
            alpha[i] = h;
            alpha[i + 1] = 0.0;
            self.rotate(i, c, s, 0);
        }
        // The rank-one term now only touches row 0.
        for (column, &b) in self.r.iter_mut().zip(&update) {
            column[0] += alpha[0] * b;
        }
        // Sweep 2: remove the subdiagonal.
        for i in 0..m.saturating_sub(1) {
            let (a, b) = (self.r[i][i], self.r[i][i + 1]);
            let h = a.hypot(b);
            if h == 0.0 {
                continue;
            }
            self.rotate(i, a / h, b / h, i);
        }
        self.base[g] = Some(new_base);
        self.delete_column(position);
        // The rank-one change moved the group's columns, and their lengths.
        self.measure_columns();
    }

    /// Apply the rotation `[c s; −s c]` to rows `i, i+1` of `R` (columns `from..`) and the matching
    /// rotation to columns `i, i+1` of `Q`. Columns left of `i` end above row `i` (the triangle), so the
    /// rotation leaves them alone.
    pub(super) fn rotate(&mut self, i: usize, c: f64, s: f64, from: usize) {
        for column in self.r.iter_mut().skip(from.max(i)) {
            rotate_rows(column, i, c, s);
        }
        self.rotate_q(i, c, s);
    }

    /// The rotation of rows `i, i+1` of `R` on `Qᵀ·z_B` at once and on the columns `i, i+1` of `Q` when
    /// `Q` is next read ([`Corral::apply_rotations`]).
    fn rotate_q(&mut self, i: usize, c: f64, s: f64) {
        if self.qtb_valid && i + 1 < self.qtb.len() {
            rotate_rows(&mut self.qtb, i, c, s);
        }
        if !self.implicit {
            self.pending.push((i, c, s));
        }
    }

    /// Apply the queued rotations to `Q` and drop the columns they pushed past the end. A minor cycle
    /// deletes a dozen columns in a row on the 2·10⁴ × 1000 problem of `benches/margin_passes`, each
    /// rotating hundreds of columns of `Q` (megabytes); applied at each deletion those rotations were a
    /// tenth of the solve, queued (with the AVX-512 rotation's unmasked loop) 7.5 %. `Q` is read once for
    /// all of them, a block of rows at a time, and every entry meets the same rotations in the same order
    /// (the kernel's rotation works element by element), so the bits are those of rotating at each
    /// deletion; past [`PARALLEL_PASS`] values the threads share the rows ([`by_rows::rotate_columns`]).
    pub(super) fn apply_rotations(&mut self) {
        if !self.pending.is_empty() {
            let length = self.q.first().map_or(0, |column| column.len());
            let threads = by_rows::on_threads(self.q.len() * length);
            by_rows::rotate_columns(&mut self.q, &self.pending, Q_ROW_BLOCK, threads);
            self.pending.clear();
        }
        self.q.truncate(self.columns.len());
    }
}

/// [`Corral::back_substitute_each`] on the columns `r` (column `j` holding `R[0..=j, j]`), for the
/// right-hand sides `xs`, all of one length, in place.
fn back_substitute_columns(r: &[Vec<f64>], xs: &mut [Vec<f64>]) {
    let m = xs.first().map_or(0, Vec::len);
    debug_assert!(xs.iter().all(|x| x.len() == m));
    let mut end = m;
    while end > 0 {
        let start = end.saturating_sub(AXPY_COLUMNS);
        // Each column is an allocation of its own, and the hardware prefetchers do not cross from one
        // to the next: a back substitution on the thousand columns of the hard 10⁴ × 1000 set of
        // `benches/margin_passes` waited at each column's start. Asking for the next one, its minor
        // cycles took 48.5–52.7 ms instead of 52.0–59.8 (session 35, AMD Zen 5, 28 whole solves
        // each, alternating). The next block's columns are asked for here.
        for k in start.saturating_sub(AXPY_COLUMNS)..start {
            crate::simd::prefetch_values(&r[k][..k]);
        }
        for x in xs.iter_mut() {
            for j in (start..end).rev() {
                x[j] /= r[j][j];
                let alpha = -x[j];
                // At most seven values: `axpy`'s arithmetic, inline rather than through the dispatch.
                for (xi, &rij) in x[start..j].iter_mut().zip(&r[j][start..j]) {
                    *xi += alpha * rij;
                }
            }
            if start > 0 {
                // Only a block of `AXPY_COLUMNS` columns has rows above it: the last is the top one.
                let columns: [&[f64]; AXPY_COLUMNS] =
                    std::array::from_fn(|k| &r[end - 1 - k][..start]);
                let alphas: [f64; AXPY_COLUMNS] = std::array::from_fn(|k| -x[end - 1 - k]);
                crate::simd::axpy_columns(&alphas, columns, &mut x[..start]);
            }
        }
        end = start;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::margin::Bias;
    use crate::margin::problem::{bits, scattered_rows};

    /// The back substitution by blocks of columns gives the bits of the textbook's column by column
    /// (divide, then one axpy over the rows above), at every size around the blocks, for several
    /// right-hand sides at once.
    #[test]
    fn a_back_substitution_by_blocks_has_the_bits_of_one_column_at_a_time() {
        for m in [0, 1, 2, 7, 8, 9, 15, 16, 17, 23, 64, 101, 300] {
            let values = scattered_rows(m + 1, m + 1);
            // Columns of an upper triangle with one spare row, diagonals well away from zero.
            let r: Vec<Vec<f64>> = (0..m)
                .map(|j| {
                    let mut column = values[j][..=j].to_vec();
                    column[j] = 1.5 + column[j].abs();
                    column.push(0.0);
                    column
                })
                .collect();
            let sides: Vec<Vec<f64>> = (0..3)
                .map(|k| {
                    values[m - k.min(m)]
                        .iter()
                        .take(m)
                        .map(|v| v * (k + 1) as f64)
                        .collect()
                })
                .collect();
            let mut want = sides.clone();
            for x in &mut want {
                for j in (0..m).rev() {
                    x[j] /= r[j][j];
                    let (head, rest) = x.split_at_mut(j);
                    crate::simd::axpy(-rest[0], &r[j][..j], head);
                }
            }
            let mut got = sides.clone();
            back_substitute_columns(&r, &mut got);
            assert_eq!(bits(&got), bits(&want), "m={m}");
            // And it solves the system.
            for (x, y) in got.iter().zip(&sides) {
                for (i, &yi) in y.iter().enumerate() {
                    let back: f64 = (i..m).map(|j| r[j][i] * x[j]).sum();
                    assert!(
                        (back - yi).abs() <= 1e-9 * (1.0 + yi.abs()),
                        "m={m} row {i}"
                    );
                }
            }
        }
    }

    /// The textbook deletion: remove the column, then each rotation sweeps its two rows across every
    /// column right of it and its two columns of `Q`.
    fn textbook_delete(r: &mut Vec<Vec<f64>>, q: &mut Vec<Aligned>, position: usize) {
        r.remove(position);
        let m = r.len();
        for j in position..m {
            let (a, b) = (r[j][j], r[j][j + 1]);
            let h = a.hypot(b);
            if h == 0.0 {
                continue;
            }
            let (c, s) = (a / h, b / h);
            for column in r.iter_mut().skip(j) {
                let (x, y) = (column[j], column[j + 1]);
                column[j] = c * x + s * y;
                column[j + 1] = -s * x + c * y;
            }
            for k in 0..q[j].len() {
                let (x, y) = (q[j][k], q[j + 1][k]);
                q[j][k] = c * x + s * y;
                q[j + 1][k] = -s * x + c * y;
            }
        }
        q.truncate(m);
        for (j, column) in r.iter_mut().enumerate() {
            column.truncate(j + 2);
            column[j + 1] = 0.0;
        }
    }

    /// `n` scattered rows in `dim` dimensions, through the origin.
    fn scattered_problem(n: usize, dim: usize) -> Problem<'static> {
        let mut problem = Problem::growing(Bias::ThroughOrigin, dim);
        for row in scattered_rows(n, dim) {
            problem.push(row, 1.0);
        }
        problem
    }

    /// A corral that every row of `problem` joined, in order (row 0 the base).
    fn every_row_joined<'a>(problem: &'a Problem<'a>) -> Corral<'a> {
        let mut corral = Corral::new(problem);
        corral.reset(&[(0, 1.0)]);
        for i in 1..problem.n() {
            assert!(corral.add(i), "row {i} joins");
        }
        corral
    }

    #[test]
    fn a_deletion_gives_the_bits_of_the_textbook_sweeps() {
        // 46 columns: blocks of 16 and a partial one, deletions at the first, inside and across a
        // block's edge, and the last column.
        let problem = scattered_problem(47, 60);
        for position in [0, 1, 15, 16, 20, 31, 44] {
            let mut corral = every_row_joined(&problem);
            assert_eq!(corral.columns.len(), 46);
            let (mut r, mut q) = (corral.r.clone(), corral.q.clone());
            textbook_delete(&mut r, &mut q, position);
            corral.delete_column(position);
            corral.apply_rotations();
            assert_eq!(bits(&corral.r), bits(&r), "R, deleting column {position}");
            assert_eq!(bits(&corral.q), bits(&q), "Q, deleting column {position}");
        }
    }

    #[test]
    fn queued_deletions_give_the_bits_of_deleting_one_at_a_time() {
        // Several deletions before `Q` is read: their rotations are applied together, and the columns
        // they push past the end are dropped once.
        let problem = scattered_problem(31, 40);
        let mut corral = every_row_joined(&problem);
        let (mut r, mut q) = (corral.r.clone(), corral.q.clone());
        for position in [3, 27, 0, 12, 12] {
            textbook_delete(&mut r, &mut q, position);
            corral.delete_column(position);
        }
        assert!(!corral.pending.is_empty(), "the rotations wait");
        assert_eq!(corral.q.len(), 30, "Q keeps its columns until it is read");
        corral.apply_rotations();
        assert_eq!(corral.q.len(), 25);
        assert_eq!(bits(&corral.r), bits(&r), "R");
        assert_eq!(bits(&corral.q), bits(&q), "Q");
        // An append after queued deletions reads Q with their rotations applied: the bits of applying
        // them first.
        let (mut queued, mut applied) = (every_row_joined(&problem), every_row_joined(&problem));
        let row = queued.columns[3];
        for corral in [&mut queued, &mut applied] {
            for position in [3, 27, 0, 12, 12] {
                corral.delete_column(position);
            }
        }
        applied.apply_rotations();
        assert!(queued.append(row).is_ok() && applied.append(row).is_ok());
        assert_eq!(bits(&queued.q), bits(&applied.q), "Q after the append");
        assert_eq!(bits(&queued.r), bits(&applied.r), "R after the append");
    }
}
