//! The comparator vectors of the bounds that hold on any data, found once per dataset and bias rule.
//!
//! Freund–Schapire, Shalev-Shwartz–Singer and the Passive–Aggressive theorems hold for every comparator
//! `u`. Each trades the length of `u` against a loss of `u` on the run's sequence, and both enter the
//! bound monotonically, so the best `u` lies on the regularisation path of a soft-margin problem
//! ([`crate::margin`]'s dual coordinate descent). The candidates are therefore: the maximum-margin
//! direction of `(x, c)` when the vectors are separable (so that the search reaches the separable bound,
//! `D = 0` at `γ*`), and the L1- and L2-loss soft-margin directions on a grid of `C` spanning eight
//! decades around `1/R'²`. Each candidate is kept with rigorous lower bounds on its margins, so that any
//! run can evaluate every candidate exactly, with its own weights (presentations or mistake rounds), in
//! one pass over those margins. The directions are searched with every row weighted once; the bound is
//! then evaluated with the run's own weights, so a search that is not optimal gives a looser bound,
//! never a wrong one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;

use super::separation::Separator;
use crate::dataset::Dataset;
use crate::margin::{SoftLoss, SoftMargin, SoftSettings, certified_unit_margins, weights_of_dual};

/// The comparator `u` a bound was evaluated with, and the quantities of its formula.
///
/// `direction` is the unit vector `û` in the run's vectors `x' = (x, c)`: one entry per feature, and a
/// last one for the constant coordinate when `c ≠ 0`. The comparator is `u = length·û`.
///
/// ```
/// use ndarray::array;
/// use novikoff::{bounds::{verify, BoundKind}, perceptron::PerceptronParams, Dataset};
/// // XOR: no separator, but Freund and Schapire still bound the mistakes of every run.
/// let xor = Dataset::new(array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]], array![1., -1., -1., 1.])?;
/// let verdict = verify(&xor, &PerceptronParams::new().max_epochs(20))?;
/// let fs = verdict.bounds.iter().find(|b| b.bound.kind == BoundKind::FreundSchapire).unwrap();
/// let u = fs.bound.comparator.as_ref().unwrap();
/// assert!(u.gamma.unwrap() > 0.0 && u.deviation.unwrap() > 0.0);
/// assert_eq!(fs.holds, Some(true));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparator {
    /// The unit direction `û` in the coordinates of `(x, c)` (shared with the other bounds that chose it).
    pub direction: Arc<[f64]>,
    /// `‖u‖` (1 for Freund–Schapire, whose `u` is a unit vector).
    pub length: f64,
    /// Freund–Schapire's `γ`.
    pub gamma: Option<f64>,
    /// Freund–Schapire's deviation `D`.
    pub deviation: Option<f64>,
    /// The loss of the formula: Shalev-Shwartz–Singer's `L`, PA-I's `Σℓ*`, PA-II's and the unit-norm
    /// form's `Σℓ*²`.
    pub loss: Option<f64>,
    /// How many terms the sum runs over: the presentations, or the mistake rounds.
    pub terms: u64,
    /// Where the direction came from.
    pub origin: String,
}

/// One candidate direction with rigorous lower bounds on its unit margins `yᵢ·û·x'ᵢ`.
///
/// A soft-margin candidate keeps its dual (n values) rather than its direction (d + 1 values): on sparse
/// data with millions of features, the fourteen directions of each bias constant would outweigh the data.
/// The direction is rebuilt from the dual, bit for bit the one whose margins were certified, when a bound
/// chooses it.
#[derive(Debug)]
pub(crate) struct Candidate {
    /// The soft-margin dual the direction is rebuilt from (`None`: the direction was set when found).
    dual: Option<Vec<f64>>,
    /// The constant coordinate `c` of the vectors `(x, c)`.
    constant: f64,
    direction: OnceLock<Arc<[f64]>>,
    pub(crate) margins: Vec<f64>,
    pub(crate) origin: String,
    /// The length the solver gave it: `1/γ*` for the maximum-margin direction (margins ≥ 1), `‖u‖`
    /// of the soft-margin solution.
    pub(crate) natural_length: f64,
}

impl Candidate {
    /// A candidate known by its margins alone (a direction in a kernel's feature space).
    pub(crate) fn without_direction(
        margins: Vec<f64>,
        origin: String,
        natural_length: f64,
    ) -> Self {
        Candidate {
            dual: None,
            constant: 0.0,
            direction: OnceLock::from(Arc::from([])),
            margins,
            origin,
            natural_length,
        }
    }

    /// The unit direction `û` in the coordinates of `(x, c)`; `data` is the dataset it was found on.
    pub(crate) fn direction(&self, data: &Dataset) -> Arc<[f64]> {
        self.direction
            .get_or_init(|| {
                let dual = self.dual.as_deref().unwrap_or_default();
                let (w, v) = weights_of_dual(data, dual, self.constant);
                unit_direction(&w, v, self.constant)
            })
            .clone()
    }
}

/// `‖(w, v)‖`, summed left to right.
fn length(w: &[f64], v: f64) -> f64 {
    w.iter()
        .chain(std::iter::once(&v))
        .fold(0.0, |a, x| a + x * x)
        .sqrt()
}

/// `(w, v)/‖(w, v)‖`, the last entry only when `c ≠ 0`.
fn unit_direction(w: &[f64], v: f64, c: f64) -> Arc<[f64]> {
    let norm = length(w, v);
    let last = (c != 0.0).then_some(v / norm);
    w.iter().map(|x| x / norm).chain(last).collect()
}

/// The candidates of one augmentation constant.
#[derive(Debug, Default)]
pub(crate) struct Candidates {
    pub(crate) list: Vec<Candidate>,
}

/// Per augmentation constant, the candidates, computed on first use and shared by every run on the
/// dataset (and by clones of its geometry).
#[derive(Debug, Clone, Default)]
pub(crate) struct ComparatorCache {
    by_constant: Arc<Mutex<HashMap<u64, Arc<OnceLock<Candidates>>>>>,
}

impl ComparatorCache {
    /// The candidates for the vectors `(x, c)`, computed once; `separator` is their maximum-margin
    /// separator through the origin, when they have one.
    pub(crate) fn get(
        &self,
        data: &Dataset,
        c: f64,
        separator: Option<&Separator>,
    ) -> Arc<OnceLock<Candidates>> {
        let cell = {
            // A poisoned lock only means another thread panicked while inserting; the map is still valid.
            let mut map = self
                .by_constant
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            map.entry(c.to_bits()).or_default().clone()
        };
        cell.get_or_init(|| Candidates::compute(data, c, separator));
        cell
    }
}

/// Regularisation values of the path, as multiples of `1/R'²`.
const GRID: [f64; 7] = [1e-2, 1e-1, 1.0, 1e1, 1e2, 1e3, 1e4];
/// Passes of one soft-margin solve at most (warm-started along the path).
const MAX_PASSES: usize = 50;

impl Candidates {
    fn compute(data: &Dataset, c: f64, separator: Option<&Separator>) -> Candidates {
        let mut list = Vec::new();
        if let Some(s) = separator {
            let d = data.n_features();
            let u = s.u.as_slice().expect("a separator is contiguous");
            let v = if c != 0.0 { u[d] } else { 0.0 };
            if let Some(margins) = certified_unit_margins(data, &u[..d], v, c) {
                let direction = unit_direction(&u[..d], v, c);
                list.push(Candidate {
                    dual: None,
                    constant: c,
                    direction: OnceLock::from(direction),
                    margins,
                    origin: "maximum margin".into(),
                    natural_length: 1.0 / s.gamma,
                });
            }
        }
        let radius_sq = data.radius().powi(2) + c * c;
        if radius_sq > 0.0 && radius_sq.is_finite() {
            for (loss, name) in [
                (SoftLoss::SquaredHinge, "L2-loss"),
                (SoftLoss::Hinge, "L1-loss"),
            ] {
                let mut previous: Option<SoftMargin> = None;
                for (k, multiple) in GRID.iter().enumerate() {
                    let c_reg = multiple / radius_sq;
                    let settings = SoftSettings {
                        loss,
                        c_reg,
                        constant: c,
                        tolerance: 1e-2,
                        max_passes: MAX_PASSES,
                        seed: 0x5eed_0000 + k as u64,
                    };
                    let solved = SoftMargin::solve(data, None, settings, previous.as_ref());
                    // The margins are certified for the rebuilt direction, the one a bound reports.
                    let (w, v) = weights_of_dual(data, &solved.dual, c);
                    if let Some(margins) = certified_unit_margins(data, &w, v, c) {
                        list.push(Candidate {
                            dual: Some(solved.dual.clone()),
                            constant: c,
                            direction: OnceLock::new(),
                            margins,
                            origin: format!("{name} soft margin, C = {multiple:e}/R'²"),
                            natural_length: length(&w, v),
                        });
                    }
                    previous = Some(solved);
                }
            }
        }
        Candidates { list }
    }
}
