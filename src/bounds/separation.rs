//! The separator a bound is computed from: found, with its margin, or missing, with the reason.

use ndarray::Array1;

/// A separator the bounds can use: `u` of unit length, its offset `b/‖w‖`, and the margin it achieves on
/// the data (the lower end of the bracket, hence rigorous).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Separator {
    pub(crate) u: Array1<f64>,
    pub(crate) offset: f64,
    pub(crate) gamma: f64,
    pub(crate) gamma_upper: Option<f64>,
    /// The rows on the margin, ascending, when the solver certified them (empty otherwise).
    pub(crate) support: Vec<usize>,
    pub(crate) note: Option<String>,
}

/// A separator, or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Separation {
    Found(Separator),
    Missing(String),
}

impl Separation {
    pub(super) fn from_separator(
        w: &Array1<f64>,
        b: f64,
        bracket: (f64, f64),
        support: &[usize],
        note: Option<String>,
        vectors: &str,
    ) -> Self {
        let norm = w.iter().fold(0.0, |acc, v| acc + v * v).sqrt();
        let (lower, upper) = bracket;
        if !(norm.is_finite() && norm > 0.0) {
            return Separation::Missing(format!(
                "the margin solver returned a zero separator {vectors}"
            ));
        }
        if !(lower > 0.0 && lower.is_finite()) {
            return Separation::Missing(format!(
                "separability {vectors} not established: the best separator found has margin {lower:.6e}{}",
                note.map(|n| format!(" ({n})")).unwrap_or_default()
            ));
        }
        Separation::Found(Separator {
            u: w.mapv(|v| v / norm),
            offset: b / norm,
            gamma: lower,
            gamma_upper: upper.is_finite().then_some(upper.max(lower)),
            support: support.to_vec(),
            note,
        })
    }

    /// The separator, if found.
    pub(crate) fn found(&self) -> Option<&Separator> {
        match self {
            Separation::Found(s) => Some(s),
            Separation::Missing(_) => None,
        }
    }
}
