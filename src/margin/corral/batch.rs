//! Rows joining the corral a batch at a time: their columns projected on the factorisation together,
//! each column of `Q` read once for the whole batch, then appended one by one.
//!
//! The polish adds up to a few dozen violators in each major iteration ("multiple pricing"), and one by
//! one each append reads all of `Q` (`|S| × r` values, megabytes when the support has hundreds of rows)
//! from beyond the core's caches. Turning the Gram–Schmidt loops inside out makes that one read per
//! batch, with every row's column meeting the same operations in the same order, so the bits are those
//! of adding the rows one at a time.

use super::*;
use crate::simd::{axpy_dot, axpy_dot2};
use rayon::prelude::*;

/// The bytes of the batch's columns that [`modified_gram_schmidt`] takes through a block of `Q` together:
/// with the two columns of `Q` each step reads they should stay in a core's L1 data cache (48 KiB on
/// the Xeons measured, 32 KiB on many others).
const PROJECT_L1_BYTES: usize = 16 << 10;

/// The bytes of `Q`'s columns that [`modified_gram_schmidt`] takes the whole batch through before moving
/// on: they should stay in a core's L2 cache (2 MiB on the Xeons measured, 512 KiB–1 MiB on others).
const PROJECT_L2_BYTES: usize = 512 << 10;

/// What [`Corral::add_batch`] added.
pub(crate) struct Added {
    /// The rows that joined, in order.
    pub rows: Vec<usize>,
    /// It stopped because the next row's column would have passed the factorisation's budget.
    pub over_budget: bool,
}

/// A batch of rows' columns after the Gram–Schmidt pass over the columns of `Q` that stood when it was
/// made ([`Corral::project`]), waiting to be appended one by one ([`Corral::append_projected`]).
pub(super) struct Projection {
    rows: Vec<usize>,
    columns: Vec<Aligned>,
    coefficients: Vec<Vec<f64>>,
    /// Each column's length before the pass.
    sizes: Vec<f64>,
    /// The columns of `Q` the pass covered.
    projected: usize,
    /// Projected with `Q` implicit: the unit columns of the rows of the batch that joined since, in
    /// order (the explicit `Q` holds them itself).
    implicit: Option<Vec<Aligned>>,
    /// A lower bound of `κ(R)` when projected without `Q` ([`Corral::condition_estimate`]).
    condition: f64,
    /// Projected without `Q`: whether each column took the corrective second pass, and its length
    /// after the projection's passes.
    corrected: Vec<bool>,
    projected_sizes: Vec<f64>,
}

impl Corral<'_> {
    /// Add rows with weight zero, trying them in order as [`Corral::add`] would one by one, until `wanted`
    /// joined or as many were refused, the columns span the space (once a row joined), or the next
    /// column would pass `factor_values` (then [`Added::over_budget`]). The candidates' columns are
    /// projected on the factorisation a batch at a time ([`Corral::project`]), which reads `Q` once a
    /// batch instead of once a row, with the same bits as adding them one at a time.
    pub(crate) fn add_batch(
        &mut self,
        candidates: &[usize],
        wanted: usize,
        factor_values: usize,
    ) -> Added {
        let mut added = Added {
            rows: Vec::new(),
            over_budget: false,
        };
        self.apply_rotations();
        let mut refused = 0;
        let mut next = 0;
        while next < candidates.len() {
            // No more rows than can still join: where the support nearly spans the space (few
            // dimensions), a projection for every row wanted would mostly be thrown away.
            let room = self.problem.dim().saturating_sub(self.columns.len());
            let size = wanted.saturating_sub(added.rows.len()).min(room).max(1);
            let chunk = &candidates[next..(next + size).min(candidates.len())];
            next += chunk.len();
            // A row whose group has no base yet, or a member, or any row once the columns span the
            // space (`append` refuses it cheaply), takes `add`'s own path.
            let projectable: Vec<usize> = chunk
                .iter()
                .copied()
                .filter(|&i| {
                    room > 0 && !self.member[i] && self.base[self.problem.group(i)].is_some()
                })
                .collect();
            let mut batch = self.project(&projectable);
            for &i in chunk {
                if added.rows.len() >= wanted
                    || refused >= wanted
                    || (self.is_full() && !added.rows.is_empty())
                {
                    return added;
                }
                if !self.implicit
                    && self.values_with_one_more() > self.explicit_values.min(factor_values)
                {
                    // The rest of the batch is projected again without `Q`, in `append_projected`.
                    self.drop_q();
                }
                if self.values_with_one_more() > factor_values {
                    added.over_budget = true;
                    return added;
                }
                let joined = match projectable.iter().position(|&p| p == i) {
                    Some(k) if self.append_projected(&mut batch, k).is_ok() => {
                        self.member[i] = true;
                        self.weight[i] = 0.0;
                        self.rows.push(i);
                        true
                    }
                    Some(_) => false,
                    None => self.add(i),
                };
                if joined {
                    added.rows.push(i);
                } else {
                    refused += 1;
                }
            }
        }
        added
    }

    /// The first step of [`Corral::append`] for several rows at once: each row's column, with the
    /// modified Gram–Schmidt pass over the columns of `Q` as they stand. The loops are turned inside
    /// out, each column of `Q` read once for the whole batch (and used from the cache for every row)
    /// instead of once a row, but every row's column meets the same operations in the same order as in
    /// `append`, so the bits are the same.
    pub(super) fn project(&self, rows: &[usize]) -> Projection {
        if self.implicit {
            return self.project_implicitly(rows);
        }
        // A deletion whose rotations were all identities queues none but still leaves a column to drop.
        debug_assert!(
            self.pending.is_empty() && self.q.len() == self.columns.len(),
            "Q is read with its rotations applied and its dropped columns gone"
        );
        let (mut columns, sizes, mut coefficients) = self.unprojected(rows);
        modified_gram_schmidt(&self.q, &mut columns, &mut coefficients);
        Projection {
            rows: rows.to_vec(),
            columns,
            coefficients,
            sizes,
            projected: self.q.len(),
            implicit: None,
            condition: 1.0,
            corrected: vec![false; rows.len()],
            projected_sizes: vec![0.0; rows.len()],
        }
    }

    /// The batch's columns, their lengths, and their coefficients, zero, over the columns there are.
    fn unprojected(&self, rows: &[usize]) -> (Vec<Aligned>, Vec<f64>, Vec<Vec<f64>>) {
        let columns: Vec<Aligned> = rows.iter().map(|&i| self.column_of(i)).collect();
        let sizes = columns
            .iter()
            .map(|e| dot(e, e, Summation::Fast).sqrt())
            .collect();
        // Room for the columns the batch may add before a row's own, its diagonal and the spare row
        // below it (see `Corral::r`), so that the column of R is allocated once.
        let m = self.columns.len();
        let coefficients = rows
            .iter()
            .map(|_| {
                let mut c = Vec::with_capacity(m + rows.len() + 1);
                c.resize(m, 0.0);
                c
            })
            .collect();
        (columns, sizes, coefficients)
    }

    /// [`Corral::project`] without `Q`: a classical Gram–Schmidt pass through `R` (see `implicit`), each
    /// point of the support read once for the whole batch, and a second one for the columns that the
    /// first may have left short of orthogonal ([`Corral::needs_second_pass`]).
    fn project_implicitly(&self, rows: &[usize]) -> Projection {
        let (mut columns, sizes, mut coefficients) = self.unprojected(rows);
        self.implicit_pass(&mut columns, &mut coefficients);
        let condition = self.condition_estimate();
        let length = |e: &[f64]| dot(e, e, Summation::Fast).sqrt();
        let mut projected_sizes: Vec<f64> = columns.iter().map(|e| length(e)).collect();
        let again: Vec<usize> = (0..rows.len())
            .filter(|&k| self.needs_second_pass(sizes[k], projected_sizes[k], condition))
            .collect();
        let mut corrected = vec![false; rows.len()];
        if !again.is_empty() {
            let mut second: Vec<Aligned> = again
                .iter()
                .map(|&k| std::mem::take(&mut columns[k]))
                .collect();
            let mut second_coefficients: Vec<Vec<f64>> = again
                .iter()
                .map(|&k| std::mem::take(&mut coefficients[k]))
                .collect();
            self.implicit_pass(&mut second, &mut second_coefficients);
            for ((&k, e), c) in again.iter().zip(second).zip(second_coefficients) {
                projected_sizes[k] = length(&e);
                corrected[k] = true;
                columns[k] = e;
                coefficients[k] = c;
            }
        }
        Projection {
            rows: rows.to_vec(),
            columns,
            coefficients,
            sizes,
            projected: self.columns.len(),
            implicit: Some(Vec::new()),
            condition,
            corrected,
            projected_sizes,
        }
    }

    /// Finish appending the batch's column `k`: the rest of the Gram–Schmidt pass (over the columns
    /// appended since the projection), a second pass when the first cancelled most of the column
    /// ("twice is enough", see `REORTHOGONALISE`), and the new column of `Q` and `R`; or the column's
    /// coefficients when it depends on the columns already there. This is the polish's most frequent
    /// O(r·m) step, so it runs on the kernel's SIMD dot and axpy (fixed order, the same bits on every
    /// CPU).
    pub(super) fn append_projected(
        &mut self,
        batch: &mut Projection,
        k: usize,
    ) -> Result<(), Vec<f64>> {
        let current = self.implicit
            && batch
                .implicit
                .as_ref()
                .is_some_and(|fresh| batch.projected + fresh.len() == self.columns.len());
        if self.implicit && !current {
            // Projected with the `Q` since dropped: again, without it.
            let again = self.project_implicitly(&[batch.rows[k]]);
            batch.condition = again.condition;
            batch.columns[k] = again.columns.into_iter().next().unwrap_or_default();
            batch.coefficients[k] = again.coefficients.into_iter().next().unwrap_or_default();
            batch.corrected[k] = again.corrected[0];
            batch.projected_sizes[k] = again.projected_sizes[0];
        }
        let mut e = std::mem::take(&mut batch.columns[k]);
        let mut coefficients = std::mem::take(&mut batch.coefficients[k]);
        let size = batch.sizes[k];
        let columns = self.columns.len();
        if columns >= e.len() {
            return Err(coefficients);
        }
        coefficients.resize(columns, 0.0);
        let rest = if self.implicit {
            if current {
                let fresh = batch.implicit.as_deref().unwrap_or_default();
                sweep(fresh, &mut e, &mut coefficients[batch.projected..]);
            }
            let rest = dot(&e, &e, Summation::Fast).sqrt();
            // A corrected column is orthogonal to the projection's columns to about `κ(R)·u`; only
            // the sweep over the batch's own new columns can have spoiled that, by cancelling most
            // of it (the explicit `Q`'s criterion).
            let another = if batch.corrected[k] {
                rest <= REORTHOGONALISE * batch.projected_sizes[k]
            } else {
                self.needs_second_pass(size, rest, batch.condition)
            };
            if another {
                self.implicit_pass(
                    std::slice::from_mut(&mut e),
                    std::slice::from_mut(&mut coefficients),
                );
                dot(&e, &e, Summation::Fast).sqrt()
            } else {
                rest
            }
        } else {
            let since = batch.projected.min(self.q.len());
            sweep(&self.q[since..], &mut e, &mut coefficients[since..]);
            let rest = dot(&e, &e, Summation::Fast).sqrt();
            if rest <= REORTHOGONALISE * size {
                sweep(&self.q, &mut e, &mut coefficients);
                dot(&e, &e, Summation::Fast).sqrt()
            } else {
                rest
            }
        };
        if rest <= DEPENDENT * size.max(f64::MIN_POSITIVE) || rest == 0.0 {
            return Err(coefficients);
        }
        e.iter_mut().for_each(|x| *x /= rest);
        coefficients.push(rest);
        coefficients.push(0.0);
        self.r.push(coefficients);
        self.measure_appended();
        if self.qtb_valid {
            let base_sum = self.base_sum();
            self.qtb.push(dot(&e, &base_sum, Summation::Fast));
        }
        match batch.implicit.as_mut() {
            Some(fresh) if self.implicit => fresh.push(e),
            _ if self.implicit => {}
            _ => self.q.push(e),
        }
        self.column_of[batch.rows[k]] = self.columns.len();
        self.columns.push(batch.rows[k]);
        Ok(())
    }
}

/// The columns `es` each with one modified Gram–Schmidt pass over the columns `q`, their coefficients
/// added to `cs`: every column meets `q_0, q_1, …` in order, as [`sweep`] takes one, with the same
/// bits, but each column of `q` is read from beyond the core's caches once for the whole batch.
///
/// Every step `(q_j, e)` is a whole pass over `e` (its coefficient needs the product with the `e` that
/// the previous step left), so the steps are tiled for the caches: a block of `q` that stays in L2 meets
/// a few columns at a time that stay in L1. Taking each `q_j` through the whole batch in turn read every
/// column from L2 twice a step (17–18 % more time in the projections of the d = 1000 problems of
/// `benches/margin_passes`). Within a tile the columns take each step two at a time ([`axpy_dot2`]),
/// which reads `q_j` and `q_{j+1}` once for both: whole solves of 2·10⁴ × 1000 and 10⁴ × 500 took
/// 1.05–1.07 × less time (session 34, AMD Zen 5, five runs each, alternating).
fn modified_gram_schmidt<Q, E, C>(q: &[Q], es: &mut [E], cs: &mut [C])
where
    Q: AsRef<[f64]> + Sync,
    E: AsRef<[f64]> + AsMut<[f64]> + Send,
    C: AsMut<[f64]> + Send,
{
    // Each column's subtraction of `q_j` runs in one pass with its product with `q_{j+1}` (the next
    // step's coefficient), which halves the passes over the batch's columns.
    let mut next: Vec<f64> = match q.first() {
        Some(first) => es
            .iter()
            .map(|e| dot(first.as_ref(), e.as_ref(), Summation::Fast))
            .collect(),
        None => return,
    };
    let bytes = 8 * q[0].as_ref().len().max(1);
    let group = (PROJECT_L1_BYTES / bytes).max(1);
    let block = (PROJECT_L2_BYTES / bytes).max(1);
    let threads = rayon::current_num_threads();
    let work = q.len().saturating_mul(q[0].as_ref().len());
    if threads > 1 && es.len() > 1 && work >= PARALLEL_PASS {
        // The threads share the columns, each taking `Q` through its own core's caches.
        let share = es.len().div_ceil(threads);
        es.par_chunks_mut(share)
            .zip(cs.par_chunks_mut(share))
            .zip(next.par_chunks_mut(share))
            .for_each(|((es, cs), next)| tiled_gram_schmidt(q, es, cs, next, group, block));
        return;
    }
    tiled_gram_schmidt(q, es, cs, &mut next, group, block);
}

/// [`modified_gram_schmidt`] in tiles of `block` columns of `q` and `group` columns of `es`, from the
/// products `next` of the columns with `q_0`.
fn tiled_gram_schmidt<Q: AsRef<[f64]>, E: AsMut<[f64]>, C: AsMut<[f64]>>(
    q: &[Q],
    es: &mut [E],
    cs: &mut [C],
    next: &mut [f64],
    group: usize,
    block: usize,
) {
    for first in (0..q.len()).step_by(block) {
        let end = (first + block).min(q.len());
        let groups = es
            .chunks_mut(group)
            .zip(cs.chunks_mut(group))
            .zip(next.chunks_mut(group));
        for ((es, cs), ss) in groups {
            for j in first..end {
                let (column, following) = (q[j].as_ref(), q.get(j + 1).map(AsRef::as_ref));
                let mut k = 0;
                while k < es.len() {
                    cs[k].as_mut()[j] += ss[k];
                    match following {
                        Some(following) if k + 1 < es.len() => {
                            // Two columns at once: `column` and `following` read once for both.
                            cs[k + 1].as_mut()[j] += ss[k + 1];
                            let (left, right) = es.split_at_mut(k + 1);
                            let pair = (left[k].as_mut(), right[0].as_mut());
                            (ss[k], ss[k + 1]) =
                                axpy_dot2((-ss[k], -ss[k + 1]), column, pair, following);
                            k += 2;
                        }
                        Some(following) => {
                            ss[k] = axpy_dot(-ss[k], column, es[k].as_mut(), following);
                            k += 1;
                        }
                        None => {
                            axpy(-ss[k], column, es[k].as_mut());
                            k += 1;
                        }
                    }
                }
            }
        }
    }
}

/// One modified Gram–Schmidt pass of `e` over `columns`, adding each coefficient to `coefficients`:
/// `s = q·e`, `e ← e − s·q` column by column, each subtraction fused with the next column's product
/// (the bits of the separate dot and axpy, see [`axpy_dot`]); [`modified_gram_schmidt`] for one column.
fn sweep<Q: AsRef<[f64]> + Sync>(columns: &[Q], mut e: &mut [f64], mut coefficients: &mut [f64]) {
    modified_gram_schmidt(
        columns,
        std::slice::from_mut(&mut e),
        std::slice::from_mut(&mut coefficients),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::margin::Bias;
    use crate::margin::problem::bits;

    /// `n` points in `dim` coordinates, alternating labels, with row 7 a copy of row 1 and row 9 row 1
    /// moved along the difference of rows 2 and 0: with rows 0, 1 and 2 in the corral, their columns depend
    /// on its columns.
    fn problem(n: usize, dim: usize) -> Problem<'static> {
        let mut problem = Problem::growing(Bias::Free, dim);
        let mut rows = crate::margin::problem::scattered_rows(n, dim);
        rows[7] = rows[1].clone();
        rows[9] = (0..dim)
            .map(|j| rows[1][j] + 0.5 * (rows[2][j] - rows[0][j]))
            .collect();
        for (i, row) in rows.into_iter().enumerate() {
            problem.push(row, if i % 2 == 0 { 1.0 } else { -1.0 });
        }
        problem
    }

    /// The polish's loop before batches: `add` one row at a time (dropping `Q` where the batch does).
    fn one_by_one(
        corral: &mut Corral<'_>,
        candidates: &[usize],
        wanted: usize,
        budget: usize,
    ) -> Added {
        let mut added = Added {
            rows: Vec::new(),
            over_budget: false,
        };
        let mut refused = 0;
        for &i in candidates {
            if added.rows.len() >= wanted
                || refused >= wanted
                || (corral.is_full() && !added.rows.is_empty())
            {
                break;
            }
            if !corral.implicit && corral.values_with_one_more() > budget {
                corral.drop_q();
            }
            if corral.values_with_one_more() > budget {
                added.over_budget = true;
                break;
            }
            if corral.add(i) {
                added.rows.push(i);
            } else {
                refused += 1;
            }
        }
        added
    }

    #[test]
    fn a_batch_adds_the_rows_and_the_bits_of_adding_them_one_by_one() {
        let unlimited = usize::MAX;
        // (points, dimension, candidates, rows wanted, budget for the factorisation)
        let cases: [(usize, usize, Vec<usize>, usize, usize); 5] = [
            (40, 12, (3..30).collect(), 8, unlimited),
            // Dependent candidates (7 = 1, 9 between 2 and 4) among the first ones: refused, and the
            // batch goes on past them.
            (40, 12, vec![7, 9, 5, 6, 8, 10, 11, 12, 13], 4, unlimited),
            // Few dimensions: the columns span the space before the batch is through.
            (30, 5, (3..30).collect(), 8, unlimited),
            // A budget for `Q` and `R` of two columns, and `R` alone of three more: `Q` is dropped at
            // once, and the sixth column is refused.
            (40, 12, (3..30).collect(), 8, Corral::implicit_values_for(5)),
            (40, 12, (3..30).collect(), 1, unlimited),
        ];
        for (n, dim, candidates, wanted, budget) in cases {
            let problem = problem(n, dim);
            let start = [(0, 0.5), (1, 0.5), (2, 0.25), (4, 0.25)];
            let mut single = Corral::new(&problem);
            single.reset(&start);
            let mut batched = Corral::new(&problem);
            batched.reset(&start);
            let expected = one_by_one(&mut single, &candidates, wanted, budget);
            let got = batched.add_batch(&candidates, wanted, budget);
            let case = format!("n {n}, dim {dim}, wanted {wanted}, budget {budget}");
            assert!(!expected.rows.is_empty(), "{case}: the case adds rows");
            assert_eq!(got.rows, expected.rows, "{case}");
            assert_eq!(got.over_budget, expected.over_budget, "{case}");
            assert_eq!(batched.rows, single.rows, "{case}");
            assert_eq!(batched.columns, single.columns, "{case}");
            assert_eq!(bits(&batched.q), bits(&single.q), "{case}: Q");
            assert_eq!(batched.implicit, budget != unlimited, "{case}");
            if batched.implicit {
                // Without `Q` the batch's columns are swept against each other by modified
                // Gram–Schmidt, one by one through `R` by classical: the same factor to rounding.
                for (a, b) in batched.r.iter().zip(&single.r) {
                    for (x, y) in a.iter().zip(b) {
                        assert!((x - y).abs() < 1e-12, "{case}: R {x} against {y}");
                    }
                }
            } else {
                assert_eq!(bits(&batched.r), bits(&single.r), "{case}: R");
            }
            // Each case does what it is there for.
            if candidates[0] == 7 {
                assert!(!got.rows.contains(&7) && !got.rows.contains(&9), "{case}");
                assert_eq!(got.rows.len(), wanted, "{case}");
            }
            assert_eq!(batched.is_full(), dim == 5, "{case}");
            assert_eq!(got.over_budget, budget != unlimited, "{case}");
        }
    }

    #[test]
    fn the_tiled_projection_has_the_bits_of_one_column_at_a_time() {
        let (dim, m, n) = (13, 11, 7);
        let rows = crate::margin::problem::scattered_rows(m + n, dim);
        let q = rows[..m].to_vec();
        let start = |columns: usize| -> Vec<Vec<f64>> { vec![vec![0.25; columns]; n] };
        let mut expected = rows[m..].to_vec();
        let mut expected_c = start(m);
        for (e, c) in expected.iter_mut().zip(&mut expected_c) {
            sweep(&q, e, c);
        }
        // Tiles that divide neither count, one tile, and tiles of one.
        for (group, block) in [(2, 3), (3, 4), (n, m), (1, 1), (n + 5, m + 5)] {
            let mut es = rows[m..].to_vec();
            let mut cs = start(m);
            let mut next: Vec<f64> = es.iter().map(|e| dot(&q[0], e, Summation::Fast)).collect();
            tiled_gram_schmidt(&q, &mut es, &mut cs, &mut next, group, block);
            assert_eq!(bits(&es), bits(&expected), "group {group}, block {block}");
            assert_eq!(bits(&cs), bits(&expected_c), "group {group}, block {block}");
        }
        // The untiled entry point too, on columns long enough to be tiled.
        let long: Vec<Vec<f64>> = crate::margin::problem::scattered_rows(m + n, 8192);
        let mut es = long[m..].to_vec();
        let mut cs = start(m);
        modified_gram_schmidt(&long[..m], &mut es, &mut cs);
        for (k, (e, c)) in es.iter().zip(&cs).enumerate() {
            let (mut one, mut one_c) = (long[m + k].clone(), vec![0.25; m]);
            sweep(&long[..m], &mut one, &mut one_c);
            assert_eq!(bits(std::slice::from_ref(e)), bits(&[one]), "column {k}");
            assert_eq!(bits(std::slice::from_ref(c)), bits(&[one_c]), "column {k}");
        }
    }

    #[test]
    fn a_projection_on_threads_gives_each_column_the_bits_of_one_column_alone() {
        // Past `PARALLEL_PASS` the threads share the batch's columns: each keeps its bits.
        let (dim, m, n) = (1024, 130, 5);
        assert!(m * dim >= PARALLEL_PASS);
        let rows = crate::margin::problem::scattered_rows(m + n, dim);
        let q = &rows[..m];
        let project = |threads: usize| {
            let (mut es, mut cs) = (rows[m..].to_vec(), vec![vec![0.5; m]; n]);
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| modified_gram_schmidt(q, &mut es, &mut cs));
            (bits(&es), bits(&cs))
        };
        let (mut alone, mut alone_c) = (rows[m..].to_vec(), vec![vec![0.5; m]; n]);
        for (e, c) in alone.iter_mut().zip(&mut alone_c) {
            sweep(q, e, c);
        }
        assert_eq!(project(2), (bits(&alone), bits(&alone_c)));
        assert_eq!(project(3), project(1));
    }
}
