//! The exact solve's start from a few passes of dual coordinate descent: a sparse solve's first working
//! set and weights, and a dense solve's weights in many dimensions.
//!
//! On sparse data with many columns (text, hashed features) the support of the maximum margin can hold
//! thousands of rows, and the rounds of [`super::rounds`] find them slowly from a guess: each round adds
//! the rows that violate the working set's optimum, most of which are not support rows, and the working
//! set grows to several times the support before it holds it. Dual coordinate descent as in LIBLINEAR
//! (Hsieh et al., ICML 2008) on the hard-margin dual, `max Σαᵢ − ½‖Σαᵢyᵢxᵢ‖²` over `α ≥ 0`, costs one
//! read of each row per pass and identifies the support within a few tens of passes, long before it
//! converges (it converges linearly, too slowly to certify a margin: that stays the exact solve's job).
//! The rows it leaves with a positive weight are the first working set, and their weights the exact
//! solve's start.
//!
//! Dense data in hundreds of dimensions or more have the opposite trouble: the first working set of
//! [`super::round_state`] holds the support, but Wolfe's method on it, started from the class means,
//! finds a support of about `d` rows by thousands of pivots (about 3300 appends and 2400 deletions for
//! 950 support rows in 1000 dimensions), each `O(|S|·d)`. The descent on the first set alone names most
//! of the support in passes of `O(d)` a row, and the exact solve starts from its heaviest rows: on
//! 2·10⁴ × 1000 its first round took 24 major iterations instead of 113, the whole solve 1.8 × less time
//! (session 17 ran the descent on every row and kept every weighted row, and lost: its passes cost a
//! whole dataset each, and each spare row a deletion or a Carathéodory step).
//!
//! A free bias adds the constraint `Σαᵢyᵢ = 0`, which coordinate steps cannot keep. The bias is instead
//! held fixed during a pass (the constraints are `yᵢ(w·xᵢ + b) ≥ 1`) and moved between passes to the
//! bias that balances the two classes' lowest scores under the current `w`, which is where the optimal
//! bias lies for the optimal `w`. Nothing here needs to be exact: the answer only chooses rows.

use super::Bias;
use super::points::Points;
use crate::rng;
use crate::simd::Summation;

/// The most passes, and the share of rows entering or leaving the support below which it counts as found.
const MAX_PASSES: usize = 40;
const SETTLED: f64 = 0.01;

/// What the descent leaves: each row's weight and its last score `yᵢ(w·xᵢ + b)` (seen during the last
/// pass, so slightly stale).
pub(super) struct Descent {
    pub(super) alpha: Vec<f64>,
    pub(super) margins: Vec<f64>,
    pub(super) passes: usize,
}

/// Run the descent on the rows `visit` of `data` (every row, or a dense solve's first working set); the
/// other rows keep weight and score zero.
pub(super) fn descend(data: Points<'_>, bias: Bias, mut visit: Vec<usize>) -> Descent {
    let n = data.n_samples();
    let labels = data.labels();
    let mut squared = vec![0.0; n];
    for &i in &visit {
        squared[i] = data.row(i).squared_length();
    }
    let mut alpha = vec![0.0; n];
    let mut w = vec![0.0; data.n_features()];
    let mut margins = vec![0.0; n];
    let mut b = 0.0;
    // A fixed seed: the solve is a function of the data.
    let mut stream = rng::from_seed(0x6d61_7267_696e);
    let mut passes = 0;
    while passes < MAX_PASSES {
        passes += 1;
        rng::shuffle(&mut stream, &mut visit);
        let mut changed = 0usize;
        let mut support = 0usize;
        for &i in &visit {
            let row = data.row(i);
            let y = labels[i];
            let margin = y * (row.dot(&w, Summation::Fast) + b);
            margins[i] = margin;
            if squared[i] > 0.0 {
                let old = alpha[i];
                let new = (old - (margin - 1.0) / squared[i]).max(0.0);
                if new.is_finite() && new != old {
                    alpha[i] = new;
                    row.add_to((new - old) * y, &mut w);
                    changed += usize::from((old == 0.0) != (new == 0.0));
                }
            }
            support += usize::from(alpha[i] > 0.0);
        }
        if bias == Bias::Free {
            let (mut lowest_positive, mut highest_negative) = (f64::INFINITY, f64::NEG_INFINITY);
            for &i in &visit {
                // The score w·xᵢ the margin was computed from.
                let score = labels[i] * margins[i] - b;
                if labels[i] > 0.0 {
                    lowest_positive = lowest_positive.min(score);
                } else {
                    highest_negative = highest_negative.max(score);
                }
            }
            let balanced = -0.5 * (lowest_positive + highest_negative);
            if balanced.is_finite() {
                b = balanced;
            }
        }
        if !w.iter().all(|v| v.is_finite()) {
            break;
        }
        if passes >= 3 && (changed as f64) <= SETTLED * support.max(1) as f64 {
            break;
        }
    }
    Descent {
        alpha,
        margins,
        passes,
    }
}
