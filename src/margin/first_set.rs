//! A dense first working set fitted to the descent's separator, and the rows an exact solve starts
//! from: the heaviest of the weights that choose them.

use super::descent::Descent;
use super::lowest::lowest;
use super::points::Points;
use super::scan::scores_into;

/// Rows outside a dense solve's first set join it before the first exact solve when the descent's
/// separator, trained on the first set alone, puts them below this margin (its constraints are
/// `yᵢ(w·xᵢ + b) ≥ 1`), at most `d` of them, lowest first ([`fit_to_the_descent`], one pass).
/// The class means choose the first set, a poor guess in many dimensions, and the rounds found the
/// rows it missed, an exact solve each: on the 2·10⁴ × 1000 set of `benches/margin_passes` it missed
/// 14 rows that violate the optimum, and two more rounds took 125 of 424 ms. Measured (session 33,
/// AMD Zen 5, three runs each, `solve_seconds`): 2·10⁴ × 1000 0.44 → 0.35 s in one round instead of
/// three, 10⁴ × 500 0.125 → 0.095 s, 10⁴ × 180 0.036 → 0.025 s,
/// 2·10⁴ × 250 0.063 → 0.050 s, 10⁴ × 300 0.058 → 0.051 s, 4·10⁴ × 200 0.10 → 0.086 s; the hard
/// 10⁴ × 1000, 3000 × 2500 and the noisy 2·10⁴ × 300 (proved inseparable) the same. Margins of 1.01
/// to 1.2 did as well as 1.05, and up to 4d rows no better than d.
pub(super) const DESCENT_NEAR_MARGIN: f64 = 1.05;

/// Rows of a dense solve's first set that the descent leaves at weight zero and puts at this margin or
/// above (twice its support's) leave the set before the first exact solve, which would price them in
/// every iteration; should one violate the optimum, a round brings it back. Measured with
/// [`DESCENT_NEAR_MARGIN`] (session 33, AMD Zen 5, three runs each): the hard 10⁴ × 1000 0.58 → 0.48 s
/// (a working set of 2406 rows instead of 8009), 10⁴ × 500 0.096 → 0.088 s, 10⁴ × 300 0.051 → 0.046
/// s, 10⁴ × 180 0.026 → 0.024 s; 2·10⁴ × 1000 (every row of its first set below 1.5), 3000 × 2500 and
/// the noisy 2·10⁴ × 300 the same. A cut at 1.5 did better on 10⁴ × 500 (0.079 s) and worse on the
/// hard 10⁴ × 1000 (0.51 s, two rounds), at 3 no better than none.
pub(super) const DESCENT_FAR_MARGIN: f64 = 2.0;

/// Rows outside a dense solve's first set join it when the separator Newton's steps end at
/// ([`super::newton`]) puts them below this margin, at most `d` of them, lowest first ([`join_near`],
/// one pass): the rows its squared hinge would have weighed, had they been in the set. The descent's
/// separator, trained on the first set alone, missed rows that violate the optimum, which a second
/// round then added, an exact solve more: on the 10⁴ × 100 set of `benches/margin_passes` 3 rows,
/// whose round took 15 of Wolfe's major iterations (0.8 ms) and a pass. Measured (session 41, AMD
/// Zen 4, 20–60 solves each, medians): 10⁴ × 100 7.5 → 6.7 ms (5 rows join, one round), the same
/// shape with seed 3 9.9 → 7.6 ms, 2·10⁴ × 200 41 → 31 ms, 5000 × 80, 10⁴ × 150, 2·10⁴ × 90 and
/// 10⁵ × 100 within the noise. A margin of 1.05 (15 rows joining) or 1.2 (92) did worse than 1.
pub(super) const NEWTON_NEAR_MARGIN: f64 = 1.0;

/// `first` fitted to the descent's separator: its rows at weight zero that the separator puts at
/// [`DESCENT_FAR_MARGIN`] or above leave (in order), and the rows outside it below
/// [`DESCENT_NEAR_MARGIN`] join after them, at most `count`, lowest first. Returns the passes over
/// the data it made: one, its scores written into `scores`, unless `first` holds every row.
pub(super) fn fit_to_the_descent(
    data: Points<'_>,
    found: &Descent,
    first: &mut Vec<usize>,
    count: usize,
    scores: &mut Vec<f64>,
) -> usize {
    let every_row = first.len() >= data.n_samples();
    // A margin that is not a number (a descent gone non-finite) keeps its row.
    let far = |i: usize| found.margins[i] >= DESCENT_FAR_MARGIN;
    first.retain(|&i| found.alpha[i] > 0.0 || !far(i));
    if every_row {
        return 0;
    }
    let separator = (&found.w[..], found.b);
    join_near(data, separator, first, count, DESCENT_NEAR_MARGIN, scores)
}

/// The rows outside `first` that the separator `(w, b)` puts below `near` (in the scale of the
/// constraints `yᵢ(w·xᵢ + b) ≥ 1`) join it, at most `count`, lowest first. Returns the passes over the
/// data it made: one, its scores written into `scores`.
pub(super) fn join_near(
    data: Points<'_>,
    (w, b): (&[f64], f64),
    first: &mut Vec<usize>,
    count: usize,
    near: f64,
    scores: &mut Vec<f64>,
) -> usize {
    let n = data.n_samples();
    let mut outside = vec![true; n];
    first.iter().for_each(|&i| outside[i] = false);
    scores_into(data, w, scores);
    let labels = data.labels();
    let below = (0..n)
        .filter(|&i| outside[i])
        .map(|i| (labels[i] * (scores[i] + b), i))
        .filter(|&(margin, _)| margin < near);
    first.extend(lowest(below, count));
    1
}

/// The start weights of the `count` rows of `first` that `alpha` weighs most (the descent's weights, or
/// Newton's on the squared hinge), by position in `first` (ties by position).
pub(super) fn heaviest(first: &[usize], alpha: &[f64], count: usize) -> Vec<(usize, f64)> {
    let weighted = first
        .iter()
        .enumerate()
        .filter(|&(_, &i)| alpha[i] > 0.0)
        .map(|(k, &i)| (-alpha[i], k));
    let mut kept: Vec<(usize, f64)> = lowest(weighted, count)
        .into_iter()
        .map(|k| (k, alpha[first[k]]))
        .collect();
    kept.sort_unstable_by_key(|&(k, _)| k);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::margin::Bias;
    use crate::margin::descent::descend;

    #[test]
    fn the_first_set_loses_the_rows_far_from_the_descents_margin_and_gains_those_near_it() {
        let data = crate::generate::separable(600, 12, 0.02, 1.0, 3)
            .unwrap()
            .data;
        let points = Points::from(&data);
        let labels = data.labels();
        // The first set: every third row; the descent sees those alone.
        let first: Vec<usize> = (0..600).step_by(3).collect();
        let found = descend(points, Bias::Free, first.clone());
        let margin = |i: usize| {
            let score = data.row_view(i).dot(&found.w, crate::simd::Summation::Fast);
            labels[i] * (score + found.b)
        };
        let stay: Vec<usize> = first
            .iter()
            .copied()
            .filter(|&i| found.alpha[i] > 0.0 || found.margins[i] < DESCENT_FAR_MARGIN)
            .collect();
        let below: Vec<usize> = (0..600)
            .filter(|&i| i % 3 != 0 && margin(i) < DESCENT_NEAR_MARGIN)
            .collect();
        assert!(
            stay.len() < first.len() && stay.len() > 20,
            "{} stay",
            stay.len()
        );
        assert!(below.len() > 4, "{} rows below", below.len());
        let (mut fitted, mut scores) = (first.clone(), Vec::new());
        assert_eq!(
            fit_to_the_descent(points, &found, &mut fitted, 600, &mut scores),
            1
        );
        assert_eq!(fitted[..stay.len()], stay, "the rows that stay, in order");
        let joined = &fitted[stay.len()..];
        let mut sorted = joined.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, below, "exactly the rows outside below the margin");
        assert!(
            joined.windows(2).all(|p| margin(p[0]) <= margin(p[1])),
            "lowest first"
        );
        // A cap keeps the lowest.
        let mut capped = first.clone();
        fit_to_the_descent(points, &found, &mut capped, 4, &mut scores);
        assert_eq!(capped[stay.len()..], joined[..4]);
        // A first set of every row only loses the far ones, without a pass.
        let every: Vec<usize> = (0..600).collect();
        let found = descend(points, Bias::Free, every.clone());
        let mut fitted = every.clone();
        assert_eq!(
            fit_to_the_descent(points, &found, &mut fitted, 600, &mut scores),
            0
        );
        let stay: Vec<usize> = every
            .into_iter()
            .filter(|&i| found.alpha[i] > 0.0 || found.margins[i] < DESCENT_FAR_MARGIN)
            .collect();
        assert!(stay.len() < 600);
        assert_eq!(fitted, stay);
    }

    #[test]
    fn the_heaviest_rows_start_in_their_order_in_the_first_set() {
        let first = [10, 11, 12, 13, 14];
        let mut alpha = vec![0.0; 15];
        for (i, a) in [(10, 0.5), (12, 2.0), (13, 0.5), (14, 1.0)] {
            alpha[i] = a;
        }
        // The tie at 0.5 goes to the earlier position.
        assert_eq!(
            heaviest(&first, &alpha, 3),
            vec![(0, 0.5), (2, 2.0), (4, 1.0)]
        );
        // Never a row of weight zero, however many are asked for.
        assert_eq!(
            heaviest(&first, &alpha, 9),
            vec![(0, 0.5), (2, 2.0), (3, 0.5), (4, 1.0)]
        );
        assert!(heaviest(&first, &alpha, 0).is_empty());
    }
}
