//! The clarabel formulation: the working set's maximum-margin problem as a second-order cone program, and its constraint rows.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettings, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};

use super::Bias;
use super::problem::Problem;

/// The SOCP `max t  s.t.  yᵢ(w·pᵢ + b) ≥ t (i ∈ working),  ‖w‖ ≤ 1` with clarabel. Returns the dual
/// weights of the margin constraints (they sum to 1, and to ½ per class with a free bias), or `None` when
/// clarabel fails outright. The weights need only be roughly right: the polish makes them exact.
pub(super) fn socp_dual(problem: &Problem, working: &[usize]) -> Option<Vec<f64>> {
    let r = problem.dim();
    let m = working.len();
    // Variables: w (r), then b (free bias only), then t.
    let mut triplets = MarginRows::new(problem, working, true);
    let nvar = triplets.columns;
    let t_col = nvar - 1;
    // ‖w‖ ≤ 1 as the cone (1, w): row m is the constant 1, rows m+1.. are w.
    for j in 0..r {
        triplets.push(m + 1 + j, j, -1.0);
    }
    let a = triplets.into_matrix(m + 1 + r);
    let p = CscMatrix::zeros((nvar, nvar));
    let mut q = vec![0.0; nvar];
    q[t_col] = -1.0;
    let mut bvec = vec![0.0; m + 1 + r];
    bvec[m] = 1.0;
    let cones = [
        SupportedConeT::NonnegativeConeT(m),
        SupportedConeT::SecondOrderConeT(r + 1),
    ];
    let settings = DefaultSettings {
        verbose: false,
        tol_gap_abs: 1e-11,
        tol_gap_rel: 1e-11,
        tol_feas: 1e-11,
        max_iter: 200,
        ..DefaultSettings::default()
    };
    let mut solver = DefaultSolver::new(&p, &q, &a, &bvec, &cones, settings).ok()?;
    solver.solve();
    match solver.solution.status {
        SolverStatus::Solved
        | SolverStatus::AlmostSolved
        | SolverStatus::MaxIterations
        | SolverStatus::InsufficientProgress
        | SolverStatus::MaxTime => {}
        _ => return None,
    }
    let alpha: Vec<f64> = solver.solution.z[..m].iter().map(|&z| z.max(0.0)).collect();
    if alpha.iter().all(|a| a.is_finite()) && alpha.iter().any(|&a| a > 0.0) {
        // Keep the rows that carry weight; the rest start at zero and may re-enter in the polish.
        let largest = alpha.iter().copied().fold(0.0, f64::max);
        Some(
            alpha
                .into_iter()
                .map(|a| if a > 1e-7 * largest { a } else { 0.0 })
                .collect(),
        )
    } else {
        None
    }
}

/// The margin constraints `yᵢ(w·pᵢ + b) [− t] ≥ …` of the rows, in clarabel's form `A·x + s = b`,
/// `s ≥ 0`, as triplets: row `k` is `−yᵢ·(pᵢ, 1) [, +1]` over the variables `(w, b, t)`.
pub(crate) struct MarginRows {
    rows: Vec<usize>,
    cols: Vec<usize>,
    values: Vec<f64>,
    /// Number of variables: `r`, plus `b` with a free bias, plus `t` when asked.
    pub columns: usize,
}

impl MarginRows {
    pub(crate) fn new(problem: &Problem, working: &[usize], with_t: bool) -> Self {
        let r = problem.dim();
        let free = problem.bias == Bias::Free;
        let columns = r + usize::from(free) + usize::from(with_t);
        let mut this = MarginRows {
            rows: Vec::new(),
            cols: Vec::new(),
            values: Vec::new(),
            columns,
        };
        let mut buffer = Vec::new();
        for (k, &i) in working.iter().enumerate() {
            let y = problem.labels[i];
            for (j, &x) in problem.point(i, &mut buffer).iter().enumerate() {
                if x != 0.0 {
                    this.push(k, j, -y * x);
                }
            }
            if free {
                this.push(k, r, -y);
            }
            if with_t {
                this.push(k, columns - 1, 1.0);
            }
        }
        this
    }

    pub(crate) fn push(&mut self, row: usize, col: usize, value: f64) {
        self.rows.push(row);
        self.cols.push(col);
        self.values.push(value);
    }

    pub(crate) fn into_matrix(self, total_rows: usize) -> CscMatrix<f64> {
        CscMatrix::new_from_triplets(total_rows, self.columns, self.rows, self.cols, self.values)
    }
}
