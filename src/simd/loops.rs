//! The portable loops whose order is fixed by the loop, not by the registers: each path compiles them
//! for its own registers ([`portable_loops!`]) and gives the portable path's bits. The compensated
//! ones (`axpy_compensated`, `dot_compensated`) live with the error-free transformations in
//! `compensated`; the plain ones are here.

/// `y ← y + alpha·((x − centre)·factor)`, element by element: each point value rounded as the formed
/// point's is, then [`axpy`](super::axpy)'s product and sum. Inlined into each path's `#[target_feature]` function,
/// which vectorises it for its registers; having no operation across elements, it gives the same bits
/// at every width.
#[inline(always)]
pub(super) fn axpy_affine(alpha: f64, x: &[f64], centre: &[f64], factor: f64, y: &mut [f64]) {
    for ((yi, &xi), &ci) in y.iter_mut().zip(x).zip(centre) {
        *yi += alpha * ((xi - ci) * factor);
    }
}

/// Columns a call of [`axpy_columns`] adds.
pub(crate) const AXPY_COLUMNS: usize = 8;

/// `y ← (…((y + alphas[0]·columns[0]) + alphas[1]·columns[1]) + …) + alphas[7]·columns[7]`, element
/// by element: each element meets [`axpy`](super::axpy)'s product and sum for each column in turn, so
/// the bits are those of eight axpys in that order, while `y` is read and written once. Only the
/// common prefix of the slices is used.
#[inline(always)]
pub(super) fn axpy_columns(
    alphas: &[f64; AXPY_COLUMNS],
    columns: [&[f64]; AXPY_COLUMNS],
    y: &mut [f64],
) {
    let n = columns.iter().fold(y.len(), |n, c| n.min(c.len()));
    let columns = columns.map(|c| &c[..n]);
    for (i, yi) in y[..n].iter_mut().enumerate() {
        let mut sum = *yi;
        for (alpha, column) in alphas.iter().zip(&columns) {
            sum += alpha * column[i];
        }
        *yi = sum;
    }
}

/// Rows a call of [`axpy_rows`] updates.
pub(crate) const AXPY_ROWS: usize = 4;

/// Elements of a row [`axpy_rows`] keeps in registers at a time: one 512-bit register, or two of 256.
const AXPY_ROWS_WIDTH: usize = 8;

/// `ys[r] ← (…((ys[r] + alphas[0][r]·columns[0]) + alphas[1][r]·columns[1]) + …)` for each of the
/// [`AXPY_ROWS`] rows, the columns in order, element by element: the bits of an [`axpy`](super::axpy)
/// for each column and row in that order. A block of eight elements of the four rows stays in registers
/// while every column passes, so the rows are read and written once, and their sums are four
/// independent chains of additions. Only the common prefix of the slices is used.
#[inline(always)]
pub(super) fn axpy_rows(
    alphas: &[[f64; AXPY_ROWS]],
    columns: &[&[f64]],
    mut ys: [&mut [f64]; AXPY_ROWS],
) {
    let count = alphas.len().min(columns.len());
    let (alphas, columns) = (&alphas[..count], &columns[..count]);
    let shortest = ys.iter().map(|y| y.len()).min().unwrap_or(0);
    let n = columns.iter().fold(shortest, |n, c| n.min(c.len()));
    let mut start = 0;
    while start + AXPY_ROWS_WIDTH <= n {
        let block = start..start + AXPY_ROWS_WIDTH;
        let mut sums = [[0.0f64; AXPY_ROWS_WIDTH]; AXPY_ROWS];
        for (sum, y) in sums.iter_mut().zip(&ys) {
            sum.copy_from_slice(&y[block.clone()]);
        }
        for (alpha, column) in alphas.iter().zip(columns) {
            let x: &[f64; AXPY_ROWS_WIDTH] = column[block.clone()].try_into().expect("a block");
            for (sum, &a) in sums.iter_mut().zip(alpha) {
                for (s, &v) in sum.iter_mut().zip(x) {
                    *s += a * v;
                }
            }
        }
        for (y, sum) in ys.iter_mut().zip(&sums) {
            y[block.clone()].copy_from_slice(sum);
        }
        start = block.end;
    }
    for i in start..n {
        for (r, y) in ys.iter_mut().enumerate() {
            let mut sum = y[i];
            for (alpha, column) in alphas.iter().zip(columns) {
                sum += alpha[r] * column[i];
            }
            y[i] = sum;
        }
    }
}

/// Every class's score of a sparse row, from weights stored column by column: column `j`'s weights of
/// the `k = scores.len()` classes at `w[j·k..(j + 1)·k]`. Each class's sum has the bits of
/// [`sparse_dot`](super::sparse_dot) on that class's weights: in the Sequential order one sum from
/// `+0`, left to right; in the Fast order entry `e` adds to lane `e mod 4` of each class (`lanes`
/// holds the `4k` lane sums), and the lanes fold as `(l₀ + l₂) + (l₁ + l₃)`. Each product is rounded and
/// then added, class by class, so every width gives the same bits. The multi-class perceptron's scores
/// of a sparse row: an entry reads its `k` weights from one place.
#[inline(always)]
pub(super) fn class_scores(
    w: &[f64],
    indices: &[super::SparseIndex],
    values: &[f64],
    summation: super::Summation,
    lanes: &mut [f64],
    scores: &mut [f64],
) {
    let k = scores.len();
    match summation {
        super::Summation::Sequential => {
            scores.fill(0.0);
            for (&j, &x) in indices.iter().zip(values) {
                let column = &w[j as usize * k..(j as usize + 1) * k];
                for (score, &weight) in scores.iter_mut().zip(column) {
                    *score += weight * x;
                }
            }
        }
        super::Summation::Fast => {
            let lanes = &mut lanes[..super::SPARSE_LANES * k];
            lanes.fill(0.0);
            for (e, (&j, &x)) in indices.iter().zip(values).enumerate() {
                let column = &w[j as usize * k..(j as usize + 1) * k];
                let lane = e % super::SPARSE_LANES;
                for (sum, &weight) in lanes[lane * k..(lane + 1) * k].iter_mut().zip(column) {
                    *sum += weight * x;
                }
            }
            let (l0, rest) = lanes.split_at(k);
            let (l1, rest) = rest.split_at(k);
            let (l2, l3) = rest.split_at(k);
            for (r, score) in scores.iter_mut().enumerate() {
                *score = (l0[r] + l2[r]) + (l1[r] + l3[r]);
            }
        }
    }
}

/// `portable_loops!("feature")`: the portable loops that vectorise themselves (`axpy_compensated`,
/// `dot_compensated`, `axpy_affine`, `axpy_columns`, `axpy_rows`, `class_scores`), compiled in the
/// invoking module for the CPU feature's registers.
/// Their order is fixed by the loop (element by element, or a fixed count of lanes), not by the
/// registers, so every path gives the portable path's bits.
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(unused_macros)
)]
macro_rules! portable_loops {
    ($feature:literal) => {
        /// The portable loop, compiled for this path's registers (element by element: the same bits).
        #[target_feature(enable = $feature)]
        pub(super) unsafe fn axpy_compensated(
            alpha: f64,
            x: &[f64],
            sum: &mut [f64],
            error: &mut [f64],
        ) {
            $crate::simd::compensated::axpy_compensated(alpha, x, sum, error)
        }

        /// The portable lanes, compiled for this path's registers (a fixed count of lanes: the same
        /// bits).
        #[target_feature(enable = $feature)]
        pub(super) unsafe fn dot_compensated(a: &[f64], b: &[f64]) -> $crate::simd::CompensatedDot {
            $crate::simd::compensated::dot_compensated(a, b)
        }

        /// The portable loop, compiled for this path's registers (element by element: the same bits).
        #[target_feature(enable = $feature)]
        pub(super) unsafe fn axpy_columns(
            alphas: &[f64; $crate::simd::loops::AXPY_COLUMNS],
            columns: [&[f64]; $crate::simd::loops::AXPY_COLUMNS],
            y: &mut [f64],
        ) {
            $crate::simd::loops::axpy_columns(alphas, columns, y)
        }

        /// The portable loop, compiled for this path's registers (element by element: the same bits).
        #[target_feature(enable = $feature)]
        pub(super) unsafe fn axpy_rows(
            alphas: &[[f64; $crate::simd::loops::AXPY_ROWS]],
            columns: &[&[f64]],
            ys: [&mut [f64]; $crate::simd::loops::AXPY_ROWS],
        ) {
            $crate::simd::loops::axpy_rows(alphas, columns, ys)
        }

        /// The portable loop, compiled for this path's registers (class by class: the same bits).
        #[target_feature(enable = $feature)]
        pub(super) unsafe fn class_scores(
            w: &[f64],
            indices: &[$crate::simd::SparseIndex],
            values: &[f64],
            summation: $crate::simd::Summation,
            lanes: &mut [f64],
            scores: &mut [f64],
        ) {
            $crate::simd::loops::class_scores(w, indices, values, summation, lanes, scores)
        }

        /// The portable loop, compiled for this path's registers (element by element: the same bits).
        #[target_feature(enable = $feature)]
        pub(super) unsafe fn axpy_affine(
            alpha: f64,
            x: &[f64],
            centre: &[f64],
            factor: f64,
            y: &mut [f64],
        ) {
            $crate::simd::loops::axpy_affine(alpha, x, centre, factor, y)
        }
    };
}
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(unused_imports)
)]
pub(super) use portable_loops;
