//! The validated kernel function and its summary.

use std::sync::Arc;

use serde::Serialize;

use super::gram::GramMatrix;
use crate::dataset::Dataset;
use crate::error::{Error, Result};

/// Which kernel a [`KernelParams`](super::KernelParams) describes.
///
/// ```
/// use novikoff::kernel::KernelKind;
/// assert_eq!(KernelKind::parse("rbf")?, KernelKind::Rbf);
/// assert_eq!(KernelKind::Polynomial.name(), "poly");
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KernelKind {
    /// `K(x, z) = x·z`.
    Linear,
    /// `K(x, z) = (γ·x·z + c₀)^degree`.
    Polynomial,
    /// `K(x, z) = exp(−γ‖x − z‖²)`, the Gaussian kernel.
    Rbf,
    /// A Gram matrix the user supplies (scikit-learn's `kernel="precomputed"`).
    Precomputed,
}

impl KernelKind {
    /// `linear`, `poly`, `rbf` or `precomputed` (the CLI's and scikit-learn's names).
    ///
    /// ```
    /// assert_eq!(novikoff::kernel::KernelKind::Rbf.name(), "rbf");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            KernelKind::Linear => "linear",
            KernelKind::Polynomial => "poly",
            KernelKind::Rbf => "rbf",
            KernelKind::Precomputed => "precomputed",
        }
    }

    /// Parse a name: `linear`, `poly` (or `polynomial`), `rbf` (or `gaussian`), `precomputed`.
    ///
    /// ```
    /// assert!(novikoff::kernel::KernelKind::parse("sigmoid").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "linear" => Ok(KernelKind::Linear),
            "poly" | "polynomial" => Ok(KernelKind::Polynomial),
            "rbf" | "gaussian" => Ok(KernelKind::Rbf),
            "precomputed" | "gram" => Ok(KernelKind::Precomputed),
            other => Err(Error::parameter(
                "kernel",
                format!("unknown kernel `{other}`: expected linear, poly, rbf or precomputed"),
            )),
        }
    }
}

/// A validated kernel `K(x, z)`, an inner product `φ(x)·φ(z)` in a feature space (the reproducing
/// kernel Hilbert space of Schölkopf and Smola, *Learning with Kernels*, ch. 2). Made by
/// [`KernelParams::check`](super::KernelParams::check) or [`KernelParams::check_for`](super::KernelParams::check_for).
///
/// ```
/// use novikoff::{dataset::RowView, kernel::{Gamma, KernelParams}, simd::Summation};
/// let k = KernelParams::polynomial(2).coef0(1.0).gamma(Gamma::Value(1.0)).check()?;
/// let (x, z) = (RowView::Dense(&[1.0, 2.0]), RowView::Dense(&[3.0, -1.0]));
/// assert_eq!(k.eval(x, z, Summation::Sequential), 4.0); // (1·3 − 2·1 + 1)²
/// assert_eq!(k.describe(), "poly(degree=2, coef0=1, gamma=1)");
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    pub(crate) kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Linear,
    Polynomial { degree: u32, coef0: f64, gamma: f64 },
    Rbf { gamma: f64 },
    Precomputed(Arc<GramMatrix>),
}

impl Kernel {
    /// The linear kernel (needs no validation).
    ///
    /// ```
    /// assert!(novikoff::kernel::Kernel::linear().is_linear());
    /// ```
    pub fn linear() -> Kernel {
        Kernel { kind: Kind::Linear }
    }

    /// The kind of kernel.
    ///
    /// ```
    /// use novikoff::kernel::{Kernel, KernelKind};
    /// assert_eq!(Kernel::linear().kind(), KernelKind::Linear);
    /// ```
    pub fn kind(&self) -> KernelKind {
        match self.kind {
            Kind::Linear => KernelKind::Linear,
            Kind::Polynomial { .. } => KernelKind::Polynomial,
            Kind::Rbf { .. } => KernelKind::Rbf,
            Kind::Precomputed(_) => KernelKind::Precomputed,
        }
    }

    /// `linear`, `poly`, `rbf` or `precomputed`.
    ///
    /// ```
    /// assert_eq!(novikoff::kernel::Kernel::linear().name(), "linear");
    /// ```
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// True for the linear kernel.
    ///
    /// ```
    /// assert!(novikoff::kernel::Kernel::linear().is_linear());
    /// ```
    pub fn is_linear(&self) -> bool {
        matches!(self.kind, Kind::Linear)
    }

    /// The polynomial degree.
    ///
    /// ```
    /// assert_eq!(novikoff::kernel::Kernel::linear().degree(), None);
    /// ```
    pub fn degree(&self) -> Option<u32> {
        match self.kind {
            Kind::Polynomial { degree, .. } => Some(degree),
            _ => None,
        }
    }

    /// The polynomial constant `c₀`.
    ///
    /// ```
    /// assert_eq!(novikoff::kernel::Kernel::linear().coef0(), None);
    /// ```
    pub fn coef0(&self) -> Option<f64> {
        match self.kind {
            Kind::Polynomial { coef0, .. } => Some(coef0),
            _ => None,
        }
    }

    /// γ of the polynomial and Gaussian kernels (after [`Gamma::Scale`](super::Gamma::Scale) or [`Gamma::Auto`](super::Gamma::Auto) was chosen).
    ///
    /// ```
    /// assert_eq!(novikoff::kernel::Kernel::linear().gamma(), None);
    /// ```
    pub fn gamma(&self) -> Option<f64> {
        match self.kind {
            Kind::Polynomial { gamma, .. } | Kind::Rbf { gamma } => Some(gamma),
            _ => None,
        }
    }

    /// The user's Gram matrix, for a precomputed kernel.
    ///
    /// ```
    /// assert!(novikoff::kernel::Kernel::linear().gram().is_none());
    /// ```
    pub fn gram(&self) -> Option<&GramMatrix> {
        match &self.kind {
            Kind::Precomputed(gram) => Some(gram),
            _ => None,
        }
    }

    /// The kernel and its parameters in one line, e.g. `rbf(gamma=0.5)`.
    ///
    /// ```
    /// use novikoff::kernel::{Gamma, KernelParams};
    /// assert_eq!(KernelParams::rbf().gamma(Gamma::Value(0.5)).check()?.describe(), "rbf(gamma=0.5)");
    /// // Far from 1 in scientific notation, not three hundred zeros.
    /// let tiny = KernelParams::rbf().gamma(Gamma::Value(3e-300)).check()?;
    /// assert_eq!(tiny.describe(), "rbf(gamma=3e-300)");
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn describe(&self) -> String {
        match &self.kind {
            Kind::Linear => "linear".into(),
            Kind::Polynomial {
                degree,
                coef0,
                gamma,
            } => format!(
                "poly(degree={degree}, coef0={}, gamma={})",
                short(*coef0),
                short(*gamma)
            ),
            Kind::Rbf { gamma } => format!("rbf(gamma={})", short(*gamma)),
            Kind::Precomputed(gram) => format!("precomputed({0} × {0})", gram.n()),
        }
    }

    /// Refuse a Gram matrix whose size is not the number of examples.
    pub(crate) fn check_data(&self, data: &Dataset) -> Result<()> {
        if let Kind::Precomputed(gram) = &self.kind
            && gram.n() != data.n_samples()
        {
            return Err(Error::Shape {
                what: "Gram matrix rows against examples",
                expected: data.n_samples(),
                found: gram.n(),
            });
        }
        Ok(())
    }
}

/// The kernel as result files and JSON reports spell it.
///
/// ```
/// let summary = novikoff::kernel::KernelSummary::of(&novikoff::kernel::Kernel::linear());
/// assert_eq!(summary.kernel, "linear");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelSummary {
    /// `linear`, `poly`, `rbf` or `precomputed`.
    pub kernel: &'static str,
    /// The polynomial degree.
    pub degree: Option<u32>,
    /// The polynomial constant.
    pub coef0: Option<f64>,
    /// γ.
    pub gamma: Option<f64>,
}

impl KernelSummary {
    /// The summary of a kernel.
    ///
    /// ```
    /// use novikoff::kernel::{Gamma, KernelParams, KernelSummary};
    /// let k = KernelParams::rbf().gamma(Gamma::Value(2.0)).check()?;
    /// assert_eq!(KernelSummary::of(&k).gamma, Some(2.0));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn of(kernel: &Kernel) -> Self {
        Self {
            kernel: kernel.name(),
            degree: kernel.degree(),
            coef0: kernel.coef0(),
            gamma: kernel.gamma(),
        }
    }
}

/// `x` as `{}` prints it, but in scientific notation far from 1: `{}` writes 3.4·10⁻³⁰⁰ with three
/// hundred zeros (a default `gamma` of data on the scale 10¹⁵⁰).
fn short(x: f64) -> String {
    if x != 0.0 && !(1e-4..1e16).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}
