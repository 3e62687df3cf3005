//! The kernels and their parameters, validated once (the linfa `ParamGuard` idea).

use std::sync::Arc;

use serde::Serialize;

use super::function::{Kernel, KernelKind, Kind};
use super::gram::GramMatrix;
use crate::dataset::Dataset;
use crate::error::{Error, Result};

/// How `γ` of the polynomial and Gaussian kernels is chosen, as scikit-learn's `gamma` chooses it.
///
/// | value | γ | scikit-learn |
/// |---|---|---|
/// | [`Gamma::Value`] | the number given (> 0) | `gamma=0.5` |
/// | [`Gamma::Scale`] | `1/(d·Var(X))`, the variance over every entry of the training matrix (1 when it is 0) | `gamma="scale"` (the default) |
/// | [`Gamma::Auto`] | `1/d` | `gamma="auto"` |
///
/// ```
/// use novikoff::kernel::Gamma;
/// assert_eq!(Gamma::parse("scale")?, Gamma::Scale);
/// assert_eq!(Gamma::parse("0.25")?, Gamma::Value(0.25));
/// assert!(Gamma::parse("-1").is_err());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Gamma {
    /// A fixed positive γ.
    Value(f64),
    /// `1/(d·Var(X))` on the training data (scikit-learn's default).
    #[default]
    Scale,
    /// `1/d`.
    Auto,
}

impl Gamma {
    /// Parse `scale`, `auto` or a positive number.
    ///
    /// ```
    /// assert!(novikoff::kernel::Gamma::parse("nan").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Gamma> {
        match text.trim() {
            "scale" => Ok(Gamma::Scale),
            "auto" => Ok(Gamma::Auto),
            other => {
                let value: f64 = other.parse().map_err(|_| {
                    Error::parameter(
                        "kernel_gamma",
                        format!("`{other}` is not a number, `scale` or `auto`"),
                    )
                })?;
                check_positive("kernel_gamma", value)?;
                Ok(Gamma::Value(value))
            }
        }
    }

    /// The name a result file spells: the number, `scale` or `auto`.
    ///
    /// ```
    /// assert_eq!(novikoff::kernel::Gamma::Value(2.0).name(), "2");
    /// ```
    pub fn name(self) -> String {
        match self {
            Gamma::Value(g) => g.to_string(),
            Gamma::Scale => "scale".into(),
            Gamma::Auto => "auto".into(),
        }
    }

    /// γ for training data `data`.
    fn resolve(self, data: &Dataset) -> Result<f64> {
        let d = data.n_features() as f64;
        let value = match self {
            Gamma::Value(g) => g,
            Gamma::Auto => 1.0 / d,
            Gamma::Scale => {
                // The variance over all n·d entries, the stored zeros of a sparse matrix included.
                let count = data.n_samples() as f64 * d;
                let (mut sum, mut sum_sq) = (0.0, 0.0);
                for i in 0..data.n_samples() {
                    for (_, v) in data.row_view(i).entries() {
                        sum += v;
                        sum_sq += v * v;
                    }
                }
                let mean = sum / count;
                let variance = (sum_sq / count - mean * mean).max(0.0);
                if variance > 0.0 && variance.is_finite() {
                    1.0 / (d * variance)
                } else {
                    1.0
                }
            }
        };
        check_positive("kernel_gamma", value)?;
        Ok(value)
    }
}

fn check_positive(name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::parameter(
            name,
            format!("must be a finite positive number, got {value}"),
        ))
    }
}

/// Unvalidated kernel parameters, built with consuming setters; [`KernelParams::check`] (or
/// [`KernelParams::check_for`], which can choose γ from the data) returns the [`Kernel`].
///
/// | parameter | default | kernels | refused |
/// |---|---|---|---|
/// | `degree` | 3 | poly | 0 |
/// | `coef0` | 0 | poly | negative or not finite (the kernel would not be positive semi-definite) |
/// | `gamma` | [`Gamma::Scale`] | poly, rbf | NaN, ∞, zero or negative |
/// | `gram` | none | precomputed | see [`GramMatrix::new`] |
///
/// The defaults are scikit-learn's (`SVC(kernel=…)`). A Gaussian kernel may also be given its bandwidth
/// σ, `γ = 1/(2σ²)` ([`KernelParams::bandwidth`]).
///
/// ```
/// use novikoff::kernel::{Gamma, KernelParams};
/// let rbf = KernelParams::rbf().gamma(Gamma::Value(0.5)).check()?;
/// assert_eq!((rbf.name(), rbf.gamma()), ("rbf", Some(0.5)));
/// let err = KernelParams::polynomial(2).coef0(f64::NAN).check().unwrap_err();
/// assert!(err.to_string().contains("coef0"));
/// assert!(KernelParams::polynomial(0).check().is_err());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct KernelParams {
    kind: KernelKind,
    degree: u32,
    coef0: f64,
    gamma: Gamma,
    gram: Option<Arc<GramMatrix>>,
}

impl KernelParams {
    /// Parameters of a kernel of this kind, with the defaults above.
    ///
    /// ```
    /// use novikoff::kernel::{KernelKind, KernelParams};
    /// assert!(KernelParams::new(KernelKind::Linear).check().is_ok());
    /// ```
    pub fn new(kind: KernelKind) -> Self {
        Self {
            kind,
            degree: 3,
            coef0: 0.0,
            gamma: Gamma::Scale,
            gram: None,
        }
    }

    /// The linear kernel `x·z`.
    ///
    /// ```
    /// assert_eq!(novikoff::kernel::KernelParams::linear().check()?.name(), "linear");
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn linear() -> Self {
        Self::new(KernelKind::Linear)
    }

    /// The polynomial kernel `(γ·x·z + c₀)^degree`.
    ///
    /// ```
    /// use novikoff::kernel::{Gamma, KernelParams};
    /// let k = KernelParams::polynomial(2).coef0(1.0).gamma(Gamma::Value(1.0)).check()?;
    /// assert_eq!((k.degree(), k.coef0()), (Some(2), Some(1.0)));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn polynomial(degree: u32) -> Self {
        Self::new(KernelKind::Polynomial).degree(degree)
    }

    /// The Gaussian kernel `exp(−γ‖x − z‖²)`.
    ///
    /// ```
    /// let k = novikoff::kernel::KernelParams::rbf().bandwidth(0.5).check()?;
    /// assert_eq!(k.gamma(), Some(2.0)); // 1/(2·0.5²)
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn rbf() -> Self {
        Self::new(KernelKind::Rbf)
    }

    /// A user-supplied Gram matrix (validated by [`GramMatrix::new`]).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::kernel::{GramMatrix, KernelParams};
    /// let gram = GramMatrix::new(array![[1.0, 0.5], [0.5, 1.0]])?;
    /// assert_eq!(KernelParams::precomputed(gram).check()?.name(), "precomputed");
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn precomputed(gram: GramMatrix) -> Self {
        let mut params = Self::new(KernelKind::Precomputed);
        params.gram = Some(Arc::new(gram));
        params
    }

    /// Set the polynomial degree (≥ 1).
    ///
    /// ```
    /// use novikoff::kernel::{Gamma, KernelParams};
    /// let k = KernelParams::polynomial(2).degree(4).gamma(Gamma::Value(1.0)).check()?;
    /// assert_eq!(k.degree(), Some(4));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[must_use]
    pub fn degree(mut self, degree: u32) -> Self {
        self.degree = degree;
        self
    }

    /// Set the polynomial kernel's constant `c₀ ≥ 0`.
    ///
    /// ```
    /// assert!(novikoff::kernel::KernelParams::polynomial(2).coef0(-1.0).check().is_err());
    /// ```
    #[must_use]
    pub fn coef0(mut self, coef0: f64) -> Self {
        self.coef0 = coef0;
        self
    }

    /// Set γ.
    ///
    /// ```
    /// use novikoff::kernel::{Gamma, KernelParams};
    /// assert!(KernelParams::rbf().gamma(Gamma::Value(0.0)).check().is_err());
    /// ```
    #[must_use]
    pub fn gamma(mut self, gamma: Gamma) -> Self {
        self.gamma = gamma;
        self
    }

    /// Set the Gaussian kernel's bandwidth σ > 0, that is `γ = 1/(2σ²)`. A σ that is not finite and
    /// positive is refused by [`KernelParams::check`].
    ///
    /// ```
    /// assert!(novikoff::kernel::KernelParams::rbf().bandwidth(-1.0).check().is_err());
    /// ```
    #[must_use]
    pub fn bandwidth(mut self, sigma: f64) -> Self {
        self.gamma = Gamma::Value(if sigma.is_finite() && sigma > 0.0 {
            1.0 / (2.0 * sigma * sigma)
        } else {
            f64::NAN
        });
        self
    }

    /// The kind of kernel.
    ///
    /// ```
    /// use novikoff::kernel::{KernelKind, KernelParams};
    /// assert_eq!(KernelParams::rbf().kind(), KernelKind::Rbf);
    /// ```
    pub fn kind(&self) -> KernelKind {
        self.kind
    }

    /// Validate the parameters. γ must be a number here: [`Gamma::Scale`] and [`Gamma::Auto`] depend on
    /// the training data, so they need [`KernelParams::check_for`].
    ///
    /// ```
    /// use novikoff::kernel::KernelParams;
    /// let err = KernelParams::rbf().check().unwrap_err(); // γ = scale by default
    /// assert!(err.to_string().contains("check_for"));
    /// ```
    pub fn check(self) -> Result<Kernel> {
        self.validated(|gamma| match gamma {
            Gamma::Value(g) => {
                check_positive("kernel_gamma", g)?;
                Ok(g)
            }
            other => Err(Error::parameter(
                "kernel_gamma",
                format!(
                    "γ = {} is chosen from the training data: use check_for(&data), or give a number",
                    other.name()
                ),
            )),
        })
    }

    /// Validate the parameters and choose γ on the training data `data` (for [`Gamma::Scale`] and
    /// [`Gamma::Auto`]). A precomputed Gram matrix must have one row per example of `data`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::KernelParams, Dataset};
    /// let data = Dataset::new(array![[0.0, 2.0], [2.0, 0.0]], array![1.0, -1.0])?;
    /// // Var = 1 over the four entries, d = 2: γ = 1/2.
    /// assert_eq!(KernelParams::rbf().check_for(&data)?.gamma(), Some(0.5));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn check_for(self, data: &Dataset) -> Result<Kernel> {
        let kernel = self.validated(|gamma| gamma.resolve(data))?;
        kernel.check_data(data)?;
        Ok(kernel)
    }

    fn validated(self, gamma: impl Fn(Gamma) -> Result<f64>) -> Result<Kernel> {
        let kind = match self.kind {
            KernelKind::Linear => Kind::Linear,
            KernelKind::Rbf => Kind::Rbf {
                gamma: gamma(self.gamma)?,
            },
            KernelKind::Polynomial => {
                if self.degree == 0 {
                    return Err(Error::parameter(
                        "degree",
                        "the polynomial degree must be at least 1",
                    ));
                }
                if !(self.coef0.is_finite() && self.coef0 >= 0.0) {
                    return Err(Error::parameter(
                        "coef0",
                        format!(
                            "must be finite and ≥ 0 (got {}): with c₀ < 0 the polynomial kernel is not \
                             positive semi-definite, so it is no inner product and the theorem does not apply",
                            self.coef0
                        ),
                    ));
                }
                Kind::Polynomial {
                    degree: self.degree,
                    coef0: self.coef0,
                    gamma: gamma(self.gamma)?,
                }
            }
            KernelKind::Precomputed => Kind::Precomputed(self.gram.ok_or_else(|| {
                Error::parameter("gram", "the precomputed kernel needs its Gram matrix")
            })?),
        };
        Ok(Kernel { kind })
    }
}
