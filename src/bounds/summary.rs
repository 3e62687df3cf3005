//! The geometry as a serialisable summary: what `novikoff verify --format json` and the experiment
//! records write about a dataset's radius, margins and certificates.

use std::sync::Arc;

use serde::Serialize;

/// A certificate of non-separability, as reported.
///
/// ```
/// use novikoff::bounds::CertificateSummary;
/// let c = CertificateSummary { bias: "free", weights: vec![0.5, 0.5], residual: 0.0, verified: Some(true) };
/// assert_eq!(serde_json::to_value(&c).unwrap()["bias"], "free");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CertificateSummary {
    /// `free` or `through_origin`: which kind of separator it rules out.
    pub bias: &'static str,
    /// The certificate's weights on the examples.
    pub weights: Vec<f64>,
    /// Its residual.
    pub residual: f64,
    /// Whether it verified on the data at tolerance [`CERTIFICATE_RTOL`](super::CERTIFICATE_RTOL)`·R`.
    pub verified: Option<bool>,
}

/// One maximum margin, as reported.
///
/// ```
/// use novikoff::bounds::MarginSummary;
/// let m = MarginSummary { status: "failed", gamma: None, bracket: None, w: None, b: None, support: None,
///                         certificate: None, reason: Some("one class".into()), stats: None };
/// assert_eq!(serde_json::to_value(&m).unwrap()["status"], "failed");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarginSummary {
    /// `separable`, `not_separable`, `inaccurate` or `failed`.
    pub status: &'static str,
    /// The maximum margin's estimate.
    pub gamma: Option<f64>,
    /// `[lower, upper]`: lower is the margin the separator achieves on the data.
    pub bracket: Option<[f64; 2]>,
    /// The separator's weights (unit length), shared by every copy of the summary.
    pub w: Option<Arc<[f64]>>,
    /// The separator's bias.
    pub b: Option<f64>,
    /// The support vectors' indices.
    pub support: Option<Vec<usize>>,
    /// The certificate, when not separable.
    pub certificate: Option<CertificateSummary>,
    /// Why the margin is inaccurate or missing.
    pub reason: Option<String>,
    /// The solver's passes over the data, rounds and working-set size, when it ran.
    pub stats: Option<crate::margin::SolveStats>,
}

/// The four maximum margins of a [`Geometry`](super::Geometry).
///
/// ```
/// # use novikoff::bounds::MarginSummary;
/// # let m = MarginSummary { status: "failed", gamma: None, bracket: None, w: None, b: None, support: None,
/// #                         certificate: None, reason: None, stats: None };
/// let margins = novikoff::bounds::MarginsSummary { through_origin: m.clone(), free_bias: m.clone(),
///     augmented_one: m.clone(), augmented_radius: m };
/// assert!(serde_json::to_value(&margins).unwrap().get("free_bias").is_some());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarginsSummary {
    /// Of `x`, through the origin.
    pub through_origin: MarginSummary,
    /// Of `x`, with a free bias.
    pub free_bias: MarginSummary,
    /// Of `(x, 1)`, through the origin.
    pub augmented_one: MarginSummary,
    /// Of `(x, R)`, through the origin.
    pub augmented_radius: MarginSummary,
}

/// A serialisable summary of a [`Geometry`](super::Geometry).
///
/// ```
/// use ndarray::array;
/// use novikoff::{bounds::Geometry, Dataset};
/// let data = Dataset::new(array![[2.0], [-1.0]], array![1.0, -1.0])?;
/// let summary = Geometry::compute(&data)?.summary();
/// assert_eq!(summary.radius, 2.0);
/// assert_eq!(summary.separable, Some(true));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GeometrySummary {
    /// Number of examples.
    pub n: usize,
    /// Number of features.
    pub d: usize,
    /// `R = max ‖xᵢ‖` about the origin.
    pub radius: f64,
    /// `min ‖xᵢ‖`.
    pub min_norm: f64,
    /// Every `‖xᵢ‖` is 1 to within [`UNIT_NORM_TOL`](super::UNIT_NORM_TOL).
    pub unit_norm: bool,
    /// Both labels occur.
    pub both_classes: bool,
    /// Separable through the origin: `Some(true)` when a separator with positive margin was found,
    /// `Some(false)` when a verified certificate proves that none exists, `None` when the solver could
    /// not tell (an inaccurate solve, e.g. at a time or memory limit).
    pub separable_through_origin: Option<bool>,
    /// Separable with a bias (tested as `(x, 1)` through the origin, which is equivalent, and with a
    /// free bias), in the same three states.
    pub separable: Option<bool>,
    /// The four maximum margins.
    pub margins: MarginsSummary,
}
