//! The full pass: `w·xᵢ` for every row at the kernel's speed, and a rigorous margin from those fast
//! values.
//!
//! A pass reads every stored value once with the fixed-order SIMD dot product ([`Summation::Fast`]),
//! split over the available threads by blocks of rows. A fast value is not exact, but its error has a
//! bound that holds for any order of summation (Higham, *Accuracy and Stability of Numerical
//! Algorithms*, eq. 3.5): `|fl(w·x) − w·x| ≤ γₖ·Σⱼ|wⱼxⱼ| ≤ γₖ·‖w‖·‖x‖`, with `k` the number of stored
//! terms plus one and `γₖ = k·u/(1 − k·u)`. With `‖x‖ ≤ R` that bounds every row's error without
//! another pass. Only rows whose margin is within that bound of the smallest are evaluated again in
//! twice working precision ([`super::accurate`]), so certifying a separator costs one pass plus a few
//! rows.

use rayon::prelude::*;

use super::Bias;
use super::accurate::{TINY, UNIT_ROUNDOFF, dot2, gamma, norm_bounds, point_dot2_plus, round_down};
use super::points::Points;
use super::problem::Problem;
use crate::dataset::{Dataset, RowArrays};
use crate::simd::Summation;

/// Rows per block of a parallel pass: large enough that a block costs far more than its scheduling.
const BLOCK_ROWS: usize = 2048;
/// How many rows ahead a pass over sparse rows asks for the weights of their columns.
const SCAN_AHEAD: usize = 4;
/// Passes over fewer stored values than this stay on the calling thread.
const PARALLEL_VALUES: usize = 1 << 18;

/// `w·xᵢ` for every point, in [`Summation::Fast`] order over the row and then plus the constant's product
/// (as [`Point::dot`](super::points::Point::dot)), written into `scores` (resized to `n`).
pub(super) fn scores_into(points: Points<'_>, w: &[f64], scores: &mut Vec<f64>) {
    let d = points.data().n_features();
    match points.constant() {
        Some(c) => {
            row_scores_into(points.data(), &w[..d], scores);
            let tail = c * w[d];
            scores.iter_mut().for_each(|s| *s += tail);
        }
        None => row_scores_into(points.data(), w, scores),
    }
}

/// `w·xᵢ` for every row of the dataset.
fn row_scores_into(data: &Dataset, w: &[f64], scores: &mut Vec<f64>) {
    let n = data.n_samples();
    let d = data.n_features();
    scores.clear();
    scores.resize(n, 0.0);
    let rows = data.row_arrays();
    let dense = match rows {
        RowArrays::Dense { values, .. } => Some(values),
        RowArrays::Sparse { .. } => None,
    };
    let points = Points::from(data);
    // Rows in order: the hardware prefetchers follow their entries, not their gathers.
    let weights_ahead = points
        .sparse_ahead()
        .filter(|_| points.gathers_miss_cache());
    let fill = |(block, out): (usize, &mut [f64])| {
        let first = block * BLOCK_ROWS;
        match (dense, weights_ahead) {
            // Short rows: the same sums, without a call per row (which costs more than the row).
            (Some(x), _) if d <= 32 => {
                let rows = &x[first * d..(first + out.len()) * d];
                match d {
                    ..=4 => short_dots::<4>(rows, w, out),
                    5..=8 => short_dots::<8>(rows, w, out),
                    9..=16 => short_dots::<16>(rows, w, out),
                    _ => short_dots::<32>(rows, w, out),
                }
            }
            // Longer rows: many at once where the path has a kernel for it (AVX-512, up to 128
            // values: 10⁵ × 100 took 1.1 × less time than with a call per row).
            (Some(x), _) => crate::simd::dots_fast(&x[first * d..(first + out.len()) * d], w, out),
            (None, Some(ahead)) => {
                let last = first + out.len();
                for (k, s) in out.iter_mut().enumerate() {
                    let i = first + k;
                    if i + SCAN_AHEAD < last {
                        ahead.weights(i + SCAN_AHEAD, w);
                    }
                    *s = rows.row(i).dot(w, Summation::Fast);
                }
            }
            (None, None) => {
                for (k, s) in out.iter_mut().enumerate() {
                    *s = rows.row(first + k).dot(w, Summation::Fast);
                }
            }
        }
    };
    if data.nnz() >= PARALLEL_VALUES && rayon::current_num_threads() > 1 {
        scores.par_chunks_mut(BLOCK_ROWS).enumerate().for_each(fill);
    } else {
        scores.chunks_mut(BLOCK_ROWS).enumerate().for_each(fill);
    }
}

/// Working-set points a parallel block of [`problem_scores_into`] holds at least: well above a task's
/// scheduling cost.
const BLOCK_VALUES: usize = 1 << 16;
/// Pricings over fewer values than this stay on the calling thread: a full pass's [`PARALLEL_VALUES`].
/// It was 2²¹ while a solve ran outside rayon's pool, each parallel step waking a sleeping thread: a
/// parallel pricing of the support's 10⁶ values (2·10⁴ × 1000) then slowed the solve by more than it
/// gained. On the pool (session 35, AMD Zen 5, three runs of 7–11 solves each, alternating) 2¹⁸ took
/// 2·10⁴ × 1000 and the hard 10⁴ × 1000 1.02–1.04 × faster, with 10⁴ × 100 and 10⁵ × 100 the same;
/// 2¹⁶ made those two 1.07–1.1 × slower.
const PARALLEL_PRICING: usize = PARALLEL_VALUES;

/// `w·zₖ` for the working set's points `rows`, each as [`Problem::dot_fast`] computes it alone, written
/// into `scores` (resized to `rows.len()`); split over the available threads by blocks of points when
/// they hold at least [`PARALLEL_PRICING`] values. The exact solve prices thousands of points a major
/// iteration where the support is large (8000 points of 1000 coordinates on the 2·10⁴ × 1000 set of
/// `benches/margin_passes`), a pass over the working set as memory-bound as the full pass. Points held in
/// a copy are read a run of consecutive points at a time by the kernel that reads many rows at once
/// ([`crate::simd::dots_fast`]): on the 10⁴ × 100 set, whose 866 points are copied, a full pricing each
/// major iteration took 10 % of the solve a product at a time and 7 % so (session 41, AMD Zen 4).
pub(super) fn problem_scores_into(
    problem: &Problem<'_>,
    rows: &[usize],
    w: &[f64],
    scores: &mut Vec<f64>,
) {
    problem_scores_split(problem, rows, w, scores, PARALLEL_PRICING);
}

/// [`problem_scores_into`], in parallel from `parallel_values` values (the tests' view of both paths).
fn problem_scores_split(
    problem: &Problem<'_>,
    rows: &[usize],
    w: &[f64],
    scores: &mut Vec<f64>,
    parallel_values: usize,
) {
    scores.clear();
    scores.resize(rows.len(), 0.0);
    let dim = problem.dim().max(1);
    let contiguous = problem.contiguous().filter(|_| w.len() == dim);
    let fill = |(block, out): (&[usize], &mut [f64])| {
        if let Some(points) = contiguous {
            // A run of consecutive points in one call (a full pricing asks for every point but the
            // active set's, in order): the bits of a product a row.
            let mut start = 0;
            while start < block.len() {
                let first = block[start];
                let run = block[start..]
                    .iter()
                    .enumerate()
                    .take_while(|&(k, &i)| i == first + k)
                    .count();
                let rows = &points[first * dim..(first + run) * dim];
                crate::simd::dots_fast(rows, w, &mut out[start..start + run]);
                start += run;
            }
            return;
        }
        let mut buffer = Vec::new();
        // Four points at a time: rows read in place share the loads of `w` and the centre.
        let mut fours = block.chunks_exact(4);
        let mut outs = out.chunks_exact_mut(4);
        for (four, s) in (&mut fours).zip(&mut outs) {
            let rows = [four[0], four[1], four[2], four[3]];
            s.copy_from_slice(&problem.dot_fast4(rows, w, &mut buffer));
        }
        for (s, &i) in outs.into_remainder().iter_mut().zip(fours.remainder()) {
            *s = problem.dot_fast(i, w, &mut buffer);
        }
    };
    let block = BLOCK_VALUES.div_ceil(dim);
    if rows.len().saturating_mul(dim) >= parallel_values && rayon::current_num_threads() > 1 {
        rows.par_chunks(block)
            .zip(scores.par_chunks_mut(block))
            .for_each(fill);
    } else {
        fill((rows, scores.as_mut_slice()));
    }
}

/// `w·x` in the [`Summation::Fast`] order for consecutive rows of `w.len() ≤ LANES` values: products in
/// lanes, then the order's tree of halvings (`h = 16, 8, 4, 2, 1`). The tree's steps above `LANES` would
/// add zero lanes, which change nothing (the order's lanes start at `+0`, so no `−0` arises but a zero
/// result, which the final `+ 0.0` turns positive as that start does).
fn short_dots<const LANES: usize>(rows: &[f64], w: &[f64], out: &mut [f64]) {
    let d = w.len().max(1);
    debug_assert!(w.len() <= LANES && LANES <= 32 && rows.len() == out.len() * w.len());
    // Padded to whole lanes with zero weights: a lane past the row holds x·0 = ±0 (x from the next
    // row), which changes no sum but a zero's sign, and the final `+ 0.0` makes a zero result +0 as
    // the order's +0 start does.
    let mut weights = [0.0; LANES];
    weights[..w.len()].copy_from_slice(w);
    let dot = |window: &[f64; LANES]| {
        let mut lanes = [0.0; LANES];
        for l in 0..LANES {
            lanes[l] = window[l] * weights[l];
        }
        let mut h = LANES / 2;
        while h >= 2 {
            for l in 0..h {
                lanes[l] += lanes[l + h];
            }
            h /= 2;
        }
        (lanes[0] + lanes[1]) + 0.0
    };
    // Rows with a whole window of `LANES` values from their start are read in place: a copy into
    // padded lanes was read back before its stores had landed, at a cost that changed with the
    // compiler's layout of the copy (10⁶ × 10 took 1.5 × longer after an unrelated change).
    let windowed = if rows.len() >= LANES {
        ((rows.len() - LANES) / d + 1).min(out.len())
    } else {
        0
    };
    for (k, s) in out[..windowed].iter_mut().enumerate() {
        let window: &[f64; LANES] = rows[k * d..k * d + LANES]
            .try_into()
            .expect("a window of LANES values");
        *s = dot(window);
    }
    for (k, s) in out.iter_mut().enumerate().skip(windowed) {
        let mut padded = [0.0; LANES];
        padded[..w.len()].copy_from_slice(&rows[k * d..k * d + w.len()]);
        *s = dot(&padded);
    }
}

/// A rigorous lower bound on the exact margin `minᵢ yᵢ(w·xᵢ + b)/‖w‖` of the stored data, from the fast
/// `scores` of [`scores_into`] for this `w`. Rows whose bound is not clearly above the smallest margin are
/// evaluated again in twice working precision.
///
/// Returns the bound and the number of rows evaluated again.
pub(super) fn certified_lower(data: Points<'_>, w: &[f64], b: f64, scores: &[f64]) -> (f64, usize) {
    certified_lower_skipping(data, w, b, scores, true)
}

/// [`certified_lower`], with the rows above one that passed skipped or not (the tests' view of both).
fn certified_lower_skipping(
    data: Points<'_>,
    w: &[f64],
    b: f64,
    scores: &[f64],
    skipping: bool,
) -> (f64, usize) {
    let (norm2, e) = dot2(w, w);
    let (norm_lo, norm_hi) = norm_bounds(
        &[norm2.sqrt()],
        &[e / (2.0 * norm2.sqrt().max(f64::MIN_POSITIVE))],
    );
    if norm_lo <= 0.0 || !norm_hi.is_finite() {
        return (f64::NEG_INFINITY, 0);
    }
    // ‖xᵢ‖ ≤ R, with R itself computed to a few units in the last place.
    let radius = data.radius() * (1.0 + 64.0 * UNIT_ROUNDOFF);
    let labels = data.labels();
    // The error of a fast value with `terms` stored terms (plus the bias and one rounding of the sum).
    let error_of = |terms: usize| {
        let g = gamma(terms + 2);
        (g * norm_hi * radius + 4.0 * TINY * (terms + 2) as f64) * (1.0 + 4.0 * g)
    };
    let dense_error = error_of(data.n_features());
    let row_error = |i: usize| {
        if data.is_sparse() {
            error_of(data.row(i).nnz())
        } else {
            dense_error
        }
    };
    // Each row's margin numerator lies in [value − error, value + error].
    let interval = |i: usize| {
        let sum = scores[i] + b;
        let error = row_error(i) + 2.0 * UNIT_ROUNDOFF * sum.abs();
        let value = labels[i] * sum;
        (value - error, value + error)
    };
    let to_margin = |numerator: f64, lower: bool| {
        let divisor = if (numerator >= 0.0) == lower {
            norm_hi
        } else {
            norm_lo
        };
        numerator / divisor
    };
    // Both conversions to a margin are non-decreasing in the numerator (a correctly rounded division
    // by a positive number, the divisor chosen by the sign, and `round_down`), so the smallest upper
    // end is that of the smallest numerator, and a row whose lower numerator is at least one that
    // already passed passes too, with no lower margin: no division for most rows instead of two (on
    // 10⁶ × 10 they were a third of the time of the solve's passes). A comparison skips a NaN as
    // `f64::min` does.
    let mut smallest_numerator = f64::INFINITY;
    for i in 0..data.n_samples() {
        let upper = interval(i).1;
        if upper < smallest_numerator {
            smallest_numerator = upper;
        }
    }
    let smallest_upper = to_margin(smallest_numerator, false);
    let mut lower = f64::INFINITY;
    let mut refined = 0;
    // The smallest lower numerator among the rows that passed so far.
    let mut passed: Option<f64> = None;
    for (i, &y) in labels.iter().enumerate() {
        let numerator = interval(i).0;
        if skipping && passed.is_some_and(|p| numerator > p || numerator.to_bits() == p.to_bits()) {
            continue;
        }
        let fast_lower = round_down(to_margin(numerator, true));
        if fast_lower >= smallest_upper {
            lower = lower.min(fast_lower);
            passed = Some(numerator);
            continue;
        }
        refined += 1;
        let (s, err) = point_dot2_plus(w, data.row(i), b);
        lower = lower.min(round_down(to_margin(round_down(y * s - err), true)));
    }
    (lower, refined)
}

/// The bias of `bias` that maximises the lowest margin of rows with these `labels` and fast `scores`
/// ([`best_bias_of_scores`], 0 through the origin), and that lowest margin `min yᵢ(sᵢ + b)`.
pub(super) fn level_of_scores(bias: Bias, labels: &[f64], scores: &[f64]) -> (f64, f64) {
    let b = match bias {
        Bias::Free => best_bias_of_scores(labels, scores),
        Bias::ThroughOrigin => 0.0,
    };
    let level = labels
        .iter()
        .zip(scores)
        .map(|(y, s)| y * (s + b))
        .fold(f64::INFINITY, f64::min);
    (b, level)
}

/// The bias that maximises the margin of the direction whose fast `scores` are given: halfway between
/// the classes' extreme projections (0 when a class is missing).
pub(super) fn best_bias_of_scores(labels: &[f64], scores: &[f64]) -> f64 {
    // In lanes of comparisons: one running `f64::min` and `max` over 10⁶ rows was a chain of dependent
    // NaN-aware steps. A comparison skips a NaN as they do; the two extremes may differ from theirs
    // only in the sign of a zero, which the sum below does not keep.
    const LANES: usize = 4;
    let mut lowest = [f64::INFINITY; LANES];
    let mut highest = [f64::NEG_INFINITY; LANES];
    let take = |k: usize, y: f64, s: f64, lowest: &mut [f64; LANES], highest: &mut [f64; LANES]| {
        if y > 0.0 {
            lowest[k] = if s < lowest[k] { s } else { lowest[k] };
        } else {
            highest[k] = if s > highest[k] { s } else { highest[k] };
        }
    };
    let n = labels.len().min(scores.len());
    let (labels, scores) = (&labels[..n], &scores[..n]);
    let (label_chunks, score_chunks) = (labels.chunks_exact(LANES), scores.chunks_exact(LANES));
    let tail = label_chunks
        .remainder()
        .iter()
        .zip(score_chunks.remainder());
    for (ys, ss) in label_chunks.zip(score_chunks) {
        for k in 0..LANES {
            take(k, ys[k], ss[k], &mut lowest, &mut highest);
        }
    }
    for (k, (&y, &s)) in tail.enumerate() {
        take(k, y, s, &mut lowest, &mut highest);
    }
    let lowest_positive = lowest.iter().fold(f64::INFINITY, |m, &v| m.min(v));
    let highest_negative = highest.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v));
    if lowest_positive.is_finite() && highest_negative.is_finite() {
        // `+ 0.0` turns a negative zero into zero.
        -0.5 * (lowest_positive + highest_negative) + 0.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, Array2, array};

    #[test]
    fn the_certified_lower_bound_holds_and_is_tight() {
        let data = Dataset::new(
            array![[1.0, 2.0], [3.0, -1.0], [-2.0, -2.0], [0.5, -3.0]],
            array![1.0, 1.0, -1.0, -1.0],
        )
        .unwrap();
        let w = [0.6, 0.8];
        let mut scores = Vec::new();
        scores_into(Points::from(&data), &w, &mut scores);
        let b = 0.1;
        // Exact margins: 2.3, 1.1, 2.7, 2.0 (the norm of w is 1).
        let (lower, refined) = certified_lower(Points::from(&data), &w, b, &scores);
        assert!(lower <= 1.1 && lower > 1.1 - 1e-14, "{lower}");
        assert!(refined >= 1, "the smallest row is evaluated again");
        assert!(
            refined < 4,
            "rows far above the smallest are not: {refined}"
        );
    }

    #[test]
    fn short_rows_are_summed_in_the_fast_order() {
        for d in 1..=32 {
            let x: Vec<f64> = (0..5 * d)
                .map(|i| ((i * 7919) % 113) as f64 * 0.37 - 11.0)
                .collect();
            let w: Vec<f64> = (0..d)
                .map(|i| ((i * 104729) % 97) as f64 * 0.13 - 3.0)
                .collect();
            let data =
                Dataset::new(Array2::from_shape_vec((5, d), x).unwrap(), Array1::ones(5)).unwrap();
            let mut scores = Vec::new();
            scores_into(Points::from(&data), &w, &mut scores);
            for (i, &s) in scores.iter().enumerate() {
                let expected = crate::simd::dot(&w, data.row(i), Summation::Fast);
                assert_eq!(s.to_bits(), (expected + 0.0).to_bits(), "d = {d}, row {i}");
            }
            // Zero rows before negative ones, under negative weights: every product is −0, and so are
            // the next row's values a window reads past the row (times a zero weight); the sum is +0.
            let x: Vec<f64> = (0..4 * d)
                .map(|i| if (i / d) % 2 == 0 { 0.0 } else { -1.5 })
                .collect();
            let data =
                Dataset::new(Array2::from_shape_vec((4, d), x).unwrap(), Array1::ones(4)).unwrap();
            scores_into(Points::from(&data), &vec![-2.0; d], &mut scores);
            let expected = [0.0, 3.0 * d as f64, 0.0, 3.0 * d as f64];
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&scores), bits(&expected), "d = {d}");
        }
    }

    #[test]
    fn a_pricing_gives_each_point_the_bits_of_its_own_product_on_either_path() {
        // Long enough rows for several parallel blocks of `BLOCK_VALUES`, translated and scaled in
        // place (or held in a compact copy), priced in a shuffled order with a repeat.
        // Short rows too, which the many-row kernels read several at a time.
        for (n, d) in [(300, 700), (200, 100), (90, 13)] {
            let x = Array2::from_shape_fn((n, d), |(i, j)| {
                ((i * 7919 + j * 104729) % 1013) as f64 * 1e-3 - 0.4
            });
            let labels = Array1::from_shape_fn(n, |i| if i % 3 == 0 { -1.0 } else { 1.0 });
            let data = Dataset::new(x, labels).unwrap();
            let centre: Vec<f64> = (0..d).map(|j| (j % 7) as f64 * 0.01).collect();
            for copy_limit in [0, usize::MAX] {
                prices_each_point_as_its_own_product(&data, &centre, copy_limit);
            }
        }
    }

    fn prices_each_point_as_its_own_product(data: &Dataset, centre: &[f64], copy_limit: usize) {
        let (n, d) = data.x().dim();
        let mut problem = Problem::in_place(
            Points::from(data),
            crate::margin::Bias::Free,
            centre.to_vec(),
            0.5,
            copy_limit,
        );
        problem.push_rows(&(0..n).collect::<Vec<_>>());
        let w: Vec<f64> = (0..d).map(|j| ((j * 31) % 17) as f64 * 0.1 - 0.8).collect();
        // Scattered rows, then runs of consecutive ones (read as blocks from a copy), and repeats.
        let rows: Vec<usize> = (0..n)
            .map(|k| (k * 7 + 3) % n)
            .chain((0..n).filter(|k| k % 11 != 4))
            .chain([5, 5])
            .collect();
        let mut buffer = Vec::new();
        let expected: Vec<u64> = rows
            .iter()
            .map(|&i| problem.dot_fast(i, &w, &mut buffer).to_bits())
            .collect();
        for parallel_values in [usize::MAX, 1] {
            let mut scores = vec![f64::NAN; 3];
            problem_scores_split(&problem, &rows, &w, &mut scores, parallel_values);
            let bits: Vec<u64> = scores.iter().map(|s| s.to_bits()).collect();
            assert_eq!(
                bits, expected,
                "parallel from {parallel_values} values, copy up to {copy_limit}"
            );
        }
    }

    #[test]
    fn rows_above_one_that_passed_change_no_bit_of_the_lower_bound() {
        // Many rows near the smallest margin in a shuffled order (most pass after a few records), ties,
        // a row exactly on the plane, and both storages.
        let n = 500;
        let x = Array2::from_shape_fn((n, 3), |(i, j)| {
            let k = (i * 7919) % n;
            match j {
                0 => 1.0 + (k / 2) as f64 * 1e-6 + if k % 5 == 0 { 1e-16 } else { 0.0 },
                1 => ((k * 31) % 13) as f64 * 0.01,
                _ => {
                    if k == 17 {
                        -0.25
                    } else {
                        -0.5
                    }
                }
            }
        });
        let labels = Array1::from_shape_fn(n, |i| if (i * 7919) % n % 2 == 0 { 1.0 } else { -1.0 });
        let x = &x * &labels.view().insert_axis(ndarray::Axis(1));
        let dense = Dataset::new(x, labels).unwrap();
        let sparse = dense.to_sparse();
        let w = [0.8, 0.1, 0.59];
        for data in [&dense, &sparse] {
            for b in [0.0, 0.3, 0.295] {
                let mut scores = Vec::new();
                scores_into(Points::from(data), &w, &mut scores);
                let all = certified_lower_skipping(Points::from(data), &w, b, &scores, false);
                let some = certified_lower(Points::from(data), &w, b, &scores);
                assert_eq!(all.0.to_bits(), some.0.to_bits(), "b = {b}");
                assert_eq!(all.1, some.1, "the same rows are evaluated again");
            }
        }
    }

    #[test]
    fn best_bias_lies_between_the_classes() {
        assert_eq!(best_bias_of_scores(&[1.0, -1.0], &[3.0, 1.0]), -2.0);
        assert_eq!(best_bias_of_scores(&[1.0, 1.0], &[3.0, 1.0]), 0.0);
    }

    #[test]
    fn the_best_bias_taken_in_lanes_is_that_of_one_run() {
        // The extremes by the total order, NaN left out: the sign of a zero may differ, not the bias.
        let one_run = |labels: &[f64], scores: &[f64]| {
            let class = |positive: bool| {
                let pairs = labels.iter().zip(scores);
                pairs
                    .filter(move |&(&y, s)| (y > 0.0) == positive && !s.is_nan())
                    .map(|(_, &s)| s)
            };
            match (
                class(true).min_by(f64::total_cmp),
                class(false).max_by(f64::total_cmp),
            ) {
                (Some(low), Some(high)) if low.is_finite() && high.is_finite() => {
                    -0.5 * (low + high) + 0.0
                }
                _ => 0.0,
            }
        };
        let values = [
            0.5,
            -0.0,
            0.0,
            2.0,
            f64::NAN,
            -1.5,
            0.25,
            3.0,
            -0.0,
            1.0,
            -2.0,
        ];
        for n in 0..=23 {
            for shift in 0..values.len() {
                let scores: Vec<f64> = (0..n)
                    .map(|i| values[(i * 5 + shift) % values.len()])
                    .collect();
                let labels: Vec<f64> = (0..n)
                    .map(|i| if (i + shift) % 3 == 0 { -1.0 } else { 1.0 })
                    .collect();
                assert_eq!(
                    best_bias_of_scores(&labels, &scores).to_bits(),
                    one_run(&labels, &scores).to_bits(),
                    "{n} rows, shift {shift}"
                );
            }
        }
    }

    /// A pass over rows whose gathers miss the caches asks for them a few rows ahead, which changes no
    /// bit: rows spread over 2¹⁸ columns and more score as the same rows on 64 columns, across blocks
    /// and rows too long to be asked for.
    #[test]
    fn a_pass_that_asks_for_gathers_ahead_gives_the_same_bits() {
        let (narrow, wide) = crate::margin::points::narrow_and_wide(15_000);
        assert!(Points::from(&wide).gathers_miss_cache());
        assert!(
            !Points::from(&narrow).gathers_miss_cache()
                && !Points::from(&narrow.to_dense().unwrap()).gathers_miss_cache()
        );
        let w: Vec<f64> = (0..64).map(|j| (j as f64 * 0.37).sin()).collect();
        // The columns no row stores get weights that would show if they were read.
        let mut spread = vec![f64::NAN; wide.n_features()];
        for (j, &v) in w.iter().enumerate() {
            spread[j * 4099] = v;
        }
        let (mut on_narrow, mut on_wide) = (Vec::new(), Vec::new());
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                scores_into(Points::from(&narrow), &w, &mut on_narrow);
                scores_into(Points::from(&wide), &spread, &mut on_wide);
            });
            assert_eq!(on_narrow.len(), 15_000);
            let bits = |s: &[f64]| s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&on_narrow), bits(&on_wide));
        }
    }
}
