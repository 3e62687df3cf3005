//! The working set: the rows to start from, the violators to add, and the support to keep.

use super::problem::Problem;
use crate::simd::{Summation, dot};

/// The starting working set: in each group, the rows with the smallest margin under a least-squares
/// warm start.
pub(crate) fn initial_working_set(problem: &Problem) -> Vec<usize> {
    let n = problem.n();
    let r = problem.dim();
    // Enough rows that the working set usually holds the support; capped because the interior-point
    // solve grows faster than linearly with the working set.
    let per_group = (4 * (r + 1)).clamp(20, 600);
    if n <= per_group * problem.groups() {
        return (0..n).collect();
    }
    let w = warm_start(problem);
    let mut buffer = Vec::new();
    let scores: Vec<f64> = (0..n)
        .map(|i| problem.labels[i] * dot(&w, problem.point(i, &mut buffer), Summation::Fast))
        .collect();
    let mut chosen = Vec::new();
    for g in 0..problem.groups() {
        let mut rows: Vec<usize> = (0..n).filter(|&i| problem.group(i) == g).collect();
        rows.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(a.cmp(&b)));
        chosen.extend(rows.into_iter().take(per_group));
    }
    chosen.sort_unstable();
    chosen
}

/// `w = P⁺y` on the problem's points (centred for a free bias, so no intercept is needed), falling back
/// to the difference of the class means when the least-squares solve is unusable.
pub(super) fn warm_start(problem: &Problem) -> Vec<f64> {
    let n = problem.n();
    let r = problem.dim();
    let mut mean_difference = vec![0.0; r];
    let mut buffer = Vec::new();
    for i in 0..n {
        for (m, &x) in mean_difference
            .iter_mut()
            .zip(problem.point(i, &mut buffer))
        {
            *m += problem.labels[i] * x;
        }
    }
    if n < r || (n as f64) * (r as f64).powi(2) > 4e8 {
        return mean_difference;
    }
    let a = faer::Mat::<f64>::from_fn(n, r, |i, j| problem.point(i, &mut buffer)[j]);
    let mut rhs = faer::Mat::<f64>::from_fn(n, 1, |i, _| problem.labels[i]);
    use faer::linalg::solvers::SolveLstsq;
    a.qr().solve_lstsq_in_place(rhs.as_mut());
    let w: Vec<f64> = (0..r).map(|j| rhs[(j, 0)]).collect();
    if w.iter().all(|x| x.is_finite()) {
        w
    } else {
        mean_difference
    }
}
