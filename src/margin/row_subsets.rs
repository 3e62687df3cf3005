//! The maximum margin of a sparse dataset without its dense matrix: an outer working set over rows.
//!
//! The solver proper works on dense coordinates. A sparse dataset is solved through subsets of its
//! rows: a subset `W` is restricted to the columns its rows use (dropping columns that are zero on
//! every row of `W` is an isometry of `W`'s points, so its geometry is unchanged), solved exactly there
//! by the dense solver, and the answer is checked against every row with one pass over the stored
//! entries. Rows that violate the subset's optimum join `W`, and the loop repeats.
//!
//! Both ends of the bracket are rigorous for the whole dataset at every round:
//! * **upper**: the maximum margin of a subset is at least that of the whole set (fewer constraints), so
//!   the subset's certified upper end bounds γ* from above;
//! * **lower**: the subset's separator, lifted to all `d` coordinates, has its margin evaluated on every
//!   stored row with the compensated sums and the rounding bound of the dense path.
//!
//! A subset that is not separable proves that the whole set is not, and its certificate (weights on the
//! subset's rows, zero elsewhere) is checked on the whole dataset before it is returned. Memory is the
//! dataset, `O(d)` for the separator, and the dense subproblem `|W| × (columns W uses)`, which has a
//! limit: past it the answer is an honest `Inaccurate` with the bracket of the last round.

use ndarray::{Array1, Array2};

use super::certificate::{Certificate, HullPoint, certificate_threshold};
use super::certify::certified_margin;
use super::working_set::support_rows;
use super::{Bias, MarginResult, MaxMargin};
use crate::dataset::{Dataset, RowView};
use crate::error::Result;
use crate::simd::Summation;

/// The dense subproblem's limit: `|W| × columns` values (256 MiB).
const SUBPROBLEM_LIMIT_VALUES: usize = 32 << 20;
/// Rows of each class in the first subset.
const FIRST_ROWS_PER_CLASS: usize = 32;

impl MaxMargin {
    /// The outer working-set loop for a sparse `data` (see the module's documentation).
    pub(super) fn solve_by_row_subsets(&self, data: &Dataset) -> Result<MarginResult> {
        let bias = self.params.bias;
        let n = data.n_samples();
        let mut working = first_subset(data, bias);
        let mut in_working = vec![false; n];
        for &i in &working {
            in_working[i] = true;
        }
        let mut last: Option<MarginResult> = None;
        for _ in 0..self.params.max_rounds.max(1) {
            let (columns, values) = subset_columns(data, &working);
            if working.len().saturating_mul(columns.len()) > SUBPROBLEM_LIMIT_VALUES {
                return Ok(too_large(
                    last,
                    working.len(),
                    columns.len(),
                    data.n_features(),
                ));
            }
            let sub = Dataset::new(
                Array2::from_shape_vec((working.len(), columns.len()), values)
                    .expect("one value per row and column of the subset"),
                working.iter().map(|&i| data.labels()[i]).collect(),
            )?;
            let answer = self.solve(&sub)?;
            let (w_sub, b, sub_upper) = match answer {
                MarginResult::NotSeparable { certificate } => {
                    return Ok(self.lift_certificate(data, &working, &certificate));
                }
                MarginResult::Separable {
                    w,
                    b,
                    bracket: (_, upper),
                    ..
                }
                | MarginResult::Inaccurate {
                    w,
                    b,
                    bracket: (_, upper),
                    ..
                } => (w, b, upper),
            };
            // The subset's separator in all d coordinates.
            let mut w = Array1::zeros(data.n_features());
            for (&j, &v) in columns.iter().zip(&w_sub) {
                w[j] = v;
            }
            let lower = certified_margin(data, w.view(), b);
            let upper = sub_upper;
            let violators = worst_rows(data, &w, b, &in_working, upper, working.len());
            let result = self.bracketed(data, w, b, (lower, upper), &violators);
            if violators.is_empty() {
                return Ok(result);
            }
            for &i in &violators {
                in_working[i] = true;
            }
            working.extend(violators);
            working.sort_unstable();
            last = Some(result);
        }
        Ok(match last {
            Some(MarginResult::Separable {
                gamma,
                bracket,
                w,
                b,
                ..
            }) => MarginResult::Inaccurate {
                gamma,
                bracket,
                w,
                b,
                reason: format!(
                    "rows outside the working set still violate its optimum after {} rounds",
                    self.params.max_rounds
                ),
            },
            Some(other) => other,
            None => MarginResult::Inaccurate {
                gamma: 0.0,
                bracket: (f64::NEG_INFINITY, f64::INFINITY),
                w: Array1::zeros(data.n_features()),
                b: 0.0,
                reason: "no round was made".into(),
            },
        })
    }

    /// The result for a separator with a rigorous bracket: `Separable` when the bracket is tight and no
    /// row outside the subset is left to add, `Inaccurate` otherwise.
    fn bracketed(
        &self,
        data: &Dataset,
        w: Array1<f64>,
        b: f64,
        (lower, upper): (f64, f64),
        violators: &[usize],
    ) -> MarginResult {
        let gamma = 0.5 * (lower.max(0.0) + upper);
        let tight = lower > 0.0 && upper - lower <= self.params.tolerance * upper;
        if tight && violators.is_empty() {
            let support = support_rows(data, w.view(), b, lower, upper, self.params.tolerance);
            return MarginResult::Separable {
                gamma,
                bracket: (lower, upper),
                w,
                b,
                support,
            };
        }
        MarginResult::Inaccurate {
            gamma,
            bracket: (lower, upper),
            w,
            b,
            reason: if violators.is_empty() {
                format!(
                    "relative bracket width {:.3e} exceeds the tolerance {:.1e}",
                    (upper - lower) / upper,
                    self.params.tolerance
                )
            } else {
                format!(
                    "{} rows still violate the working set's optimum",
                    violators.len()
                )
            },
        }
    }

    /// A subset's certificate as one for the whole dataset: its weights on the subset's rows, zero
    /// elsewhere, evaluated again on the stored data.
    fn lift_certificate(
        &self,
        data: &Dataset,
        working: &[usize],
        certificate: &Certificate,
    ) -> MarginResult {
        let bias = self.params.bias;
        let mut raw = vec![0.0; data.n_samples()];
        for (&i, &c) in working.iter().zip(&certificate.weights) {
            raw[i] = c;
        }
        match HullPoint::evaluate(data, bias, &raw) {
            Some(hull)
                if hull.gap_upper
                    <= certificate_threshold(data, self.params.certificate_tolerance) =>
            {
                MarginResult::NotSeparable {
                    certificate: Certificate {
                        bias,
                        weights: hull.weights,
                        residual: hull.gap_upper,
                    },
                }
            }
            _ => MarginResult::Inaccurate {
                gamma: 0.0,
                bracket: (f64::NEG_INFINITY, 0.0),
                w: Array1::zeros(data.n_features()),
                b: 0.0,
                reason:
                    "a subset of the rows is not separable, but its certificate does not verify \
                         within the tolerance on the whole dataset"
                        .into(),
            },
        }
    }
}

/// The first subset: the rows of each class closest to the other class along the difference of the
/// class means (through the origin: the rows least aligned with the mean of the `yᵢxᵢ`).
fn first_subset(data: &Dataset, bias: Bias) -> Vec<usize> {
    let (n, d) = (data.n_samples(), data.n_features());
    let labels = data.labels();
    let mut direction = vec![0.0; d];
    let (positives, negatives) = data.class_counts();
    for (i, &y) in labels.iter().enumerate() {
        let weight = match bias {
            Bias::ThroughOrigin => y / n as f64,
            Bias::Free if y > 0.0 => 1.0 / positives as f64,
            Bias::Free => -1.0 / negatives as f64,
        };
        data.row_view(i).add_to(weight, &mut direction);
    }
    let score = |i: usize| labels[i] * data.row_view(i).dot(&direction, Summation::Sequential);
    let mut chosen = Vec::new();
    for class in [1.0, -1.0] {
        let mut rows: Vec<(f64, usize)> = (0..n)
            .filter(|&i| bias == Bias::ThroughOrigin && class > 0.0 || labels[i] == class)
            .map(|i| (score(i), i))
            .collect();
        rows.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        chosen.extend(rows.iter().take(FIRST_ROWS_PER_CLASS).map(|&(_, i)| i));
        if bias == Bias::ThroughOrigin {
            break;
        }
    }
    chosen.sort_unstable();
    chosen.dedup();
    chosen
}

/// The columns the rows of `working` use, and the subset's dense values over them (row-major).
fn subset_columns(data: &Dataset, working: &[usize]) -> (Vec<usize>, Vec<f64>) {
    let mut columns: Vec<usize> = working
        .iter()
        .flat_map(|&i| data.row_view(i).entries().map(|(j, _)| j))
        .collect();
    columns.sort_unstable();
    columns.dedup();
    let mut values = vec![0.0; working.len().saturating_mul(columns.len())];
    for (r, &i) in working.iter().enumerate() {
        for (j, v) in data.row_view(i).entries() {
            let c = columns.binary_search(&j).expect("a column of the subset");
            values[r * columns.len() + c] = v;
        }
    }
    (columns, values)
}

/// The rows outside the subset whose margin under `(w, b)` falls below the smallest margin of the
/// subset's rows, worst first, at most as many as the subset already holds (and at least 32): the rows
/// that can lower the maximum margin.
fn worst_rows(
    data: &Dataset,
    w: &Array1<f64>,
    b: f64,
    in_working: &[bool],
    upper: f64,
    subset: usize,
) -> Vec<usize> {
    let w = w.as_slice().expect("a fresh vector is contiguous");
    let norm = w.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm == 0.0 {
        return Vec::new();
    }
    let margins: Vec<f64> = (0..data.n_samples())
        .map(|i| {
            let row: RowView<'_> = data.row_view(i);
            data.labels()[i] * (row.dot(w, Summation::Sequential) + b) / norm
        })
        .collect();
    let subset_margin = margins
        .iter()
        .zip(in_working)
        .filter(|(_, inside)| **inside)
        .fold(f64::INFINITY, |m, (&v, _)| m.min(v));
    // The slack keeps rounding noise (of the order of 10⁻¹⁶·R) from adding rows that sit exactly on
    // the margin.
    let threshold = subset_margin - 1e-12 * upper.abs().max(f64::MIN_POSITIVE);
    let mut rows: Vec<(f64, usize)> = (0..data.n_samples())
        .filter(|&i| !in_working[i] && margins[i] < threshold)
        .map(|i| (margins[i], i))
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    rows.truncate(subset.max(32));
    rows.into_iter().map(|(_, i)| i).collect()
}

/// The honest answer when the subproblem outgrows its limit: the last round's bracket.
fn too_large(last: Option<MarginResult>, rows: usize, columns: usize, d: usize) -> MarginResult {
    let reason = format!(
        "the working set grew to {rows} rows over {columns} columns, beyond the dense subproblem's \
         limit of {SUBPROBLEM_LIMIT_VALUES} values"
    );
    match last {
        Some(MarginResult::Separable {
            gamma,
            bracket,
            w,
            b,
            ..
        })
        | Some(MarginResult::Inaccurate {
            gamma,
            bracket,
            w,
            b,
            ..
        }) => MarginResult::Inaccurate {
            gamma,
            bracket,
            w,
            b,
            reason,
        },
        _ => MarginResult::Inaccurate {
            gamma: 0.0,
            bracket: (f64::NEG_INFINITY, f64::INFINITY),
            w: Array1::zeros(d),
            b: 0.0,
            reason,
        },
    }
}
