//! The kernel model: the dual perceptron's predictor `Σₖ coefₖ·K(sₖ, x) + b` over its support vectors.

use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

use super::Score;
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::kernel::{Gamma, Kernel, KernelFit, KernelKind, KernelParams, dual_decisions};
use crate::simd::Summation;

/// `sign(Σₖ coefₖ·K(sₖ, x) + b)` (`"kind": "kernel"` in a model file): the kernel (its parameters
/// resolved, γ a number), the support vectors `sₖ` (the training rows with `αₖ > 0`, in the training
/// data's storage), their coefficients `αₖηyₖ`, the bias `b` and the bias rule's constant `c`.
///
/// A model made from a run ([`KernelModel::from_fit`]) predicts **bit for bit** as the run's
/// [`KernelFit::decision_function`]: the same rows, in the same storage, through the same loop. A
/// precomputed kernel has no rows to keep and is refused.
///
/// ```
/// use ndarray::array;
/// use novikoff::{kernel::{Gamma, KernelParams, KernelPerceptronParams}, model::KernelModel, Dataset};
/// let data = Dataset::new(array![[0.0], [1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0, -1.0])?;
/// let rbf = KernelParams::rbf().gamma(Gamma::Value(2.0)).check()?;
/// let fit = KernelPerceptronParams::new(rbf).check()?.fit(&data)?;
/// let model = KernelModel::from_fit(&fit)?;
/// assert_eq!(model.decision_function_dataset(&data)?, fit.decision_function(&data)?);
/// assert_eq!(model.n_support(), fit.support.len());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "KernelFields", into = "KernelFields")]
pub struct KernelModel {
    kernel: Kernel,
    support_vectors: Dataset,
    coef: Vec<f64>,
    b: f64,
    bias_constant: f64,
    summation: Summation,
}

/// The fields as a file holds them.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KernelFields {
    kernel: KernelFunction,
    n_features: usize,
    support_vectors: SupportVectors,
    coef: Vec<f64>,
    b: f64,
    bias_constant: f64,
    summation: Summation,
}

/// The kernel function, its parameters resolved.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "name", rename_all = "lowercase")]
enum KernelFunction {
    Linear,
    Poly { degree: u32, coef0: f64, gamma: f64 },
    Rbf { gamma: f64 },
}

/// The support vectors in the training data's storage (the storage decides how a kernel's products
/// are summed, so it is kept to keep the bits).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
enum SupportVectors {
    /// One array of `d` values a row.
    Dense(Vec<Vec<f64>>),
    /// CSR: `indptr` (`n + 1` offsets from 0), the column `indices` (ascending in each row) and their
    /// `values`.
    Sparse {
        indptr: Vec<usize>,
        indices: Vec<usize>,
        values: Vec<f64>,
    },
}

impl From<KernelModel> for KernelFields {
    fn from(m: KernelModel) -> Self {
        let kernel = match m.kernel.kind() {
            KernelKind::Polynomial => KernelFunction::Poly {
                degree: m.kernel.degree().expect("a polynomial kernel has a degree"),
                coef0: m.kernel.coef0().expect("a polynomial kernel has coef0"),
                gamma: m.kernel.gamma().expect("a polynomial kernel has γ"),
            },
            KernelKind::Rbf => KernelFunction::Rbf {
                gamma: m.kernel.gamma().expect("an RBF kernel has γ"),
            },
            _ => KernelFunction::Linear,
        };
        let rows = &m.support_vectors;
        let support_vectors = match rows.csr() {
            Some(csr) => SupportVectors::Sparse {
                indptr: csr.indptr().to_proper().to_vec(),
                indices: csr.indices().iter().map(|&j| j as usize).collect(),
                values: csr.data().to_vec(),
            },
            None => {
                SupportVectors::Dense(rows.x().rows().into_iter().map(|r| r.to_vec()).collect())
            }
        };
        KernelFields {
            kernel,
            n_features: rows.n_features(),
            support_vectors,
            coef: m.coef,
            b: m.b,
            bias_constant: m.bias_constant,
            summation: m.summation,
        }
    }
}

impl TryFrom<KernelFields> for KernelModel {
    type Error = String;

    fn try_from(f: KernelFields) -> std::result::Result<Self, String> {
        let kernel = match f.kernel {
            KernelFunction::Linear => KernelParams::linear(),
            KernelFunction::Poly {
                degree,
                coef0,
                gamma,
            } => KernelParams::polynomial(degree)
                .coef0(coef0)
                .gamma(Gamma::Value(gamma)),
            KernelFunction::Rbf { gamma } => KernelParams::rbf().gamma(Gamma::Value(gamma)),
        }
        .check()
        .map_err(|e| e.to_string())?;
        let rows = support_rows(f.support_vectors, f.n_features).map_err(|e| e.to_string())?;
        KernelModel::new(kernel, rows, f.coef, f.b, f.bias_constant, f.summation)
            .map_err(|e| e.to_string())
    }
}

/// The support vectors read from a file, checked as every dataset is (finite values, a valid CSR
/// structure), with labels that prediction does not read.
fn support_rows(rows: SupportVectors, d: usize) -> Result<Dataset> {
    match rows {
        SupportVectors::Dense(rows) => {
            let n = rows.len();
            if let Some((i, row)) = rows.iter().enumerate().find(|(_, r)| r.len() != d) {
                return Err(Error::parameter(
                    "support_vectors",
                    format!("row {i} has {} values, but n_features is {d}", row.len()),
                ));
            }
            let values = Array2::from_shape_vec((n, d), rows.concat())
                .map_err(|e| Error::parameter("support_vectors", e.to_string()))?;
            Dataset::new(values, Array1::ones(n))
        }
        SupportVectors::Sparse {
            indptr,
            indices,
            values,
        } => {
            let n = indptr.len().saturating_sub(1);
            let x = sprs::CsMat::try_new((n, d), indptr, indices, values)
                .map_err(|(.., e)| Error::parameter("support_vectors", e.to_string()))?;
            Dataset::from_csr(x, Array1::ones(n))
        }
    }
}

impl KernelModel {
    /// A model of `kernel` over the `support_vectors` (their labels are not read) with one
    /// coefficient each, the bias `b` and the bias rule's constant `c`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::Kernel, model::KernelModel, simd::Summation, Dataset};
    /// let support = Dataset::new(array![[1.0, 0.0], [0.0, 1.0]], array![1.0, -1.0])?;
    /// let model = KernelModel::new(Kernel::linear(), support.clone(), vec![1.0, -1.0], 0.5, 1.0, Summation::Fast)?;
    /// let data = Dataset::new(array![[2.0, 1.0]], array![1.0])?;
    /// assert_eq!(model.decision_function_dataset(&data)?.to_vec(), vec![1.5]); // 2 − 1 + 0.5
    /// assert!(KernelModel::new(Kernel::linear(), support, vec![1.0], 0.0, 0.0, Summation::Fast).is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for a precomputed kernel, a number of coefficients that is not the number
    /// of support vectors, and a coefficient, `b` or `c` that is not finite.
    pub fn new(
        kernel: Kernel,
        support_vectors: Dataset,
        coef: Vec<f64>,
        b: f64,
        bias_constant: f64,
        summation: Summation,
    ) -> Result<Self> {
        if kernel.gram().is_some() {
            return Err(Error::parameter(
                "kernel",
                "a precomputed kernel predicts from a cross Gram matrix, which a model file cannot \
                 hold",
            ));
        }
        if coef.len() != support_vectors.n_samples() {
            return Err(Error::parameter(
                "coef",
                format!(
                    "{} coefficients for {} support vectors",
                    coef.len(),
                    support_vectors.n_samples()
                ),
            ));
        }
        if let Some((k, c)) = coef.iter().enumerate().find(|(_, c)| !c.is_finite()) {
            return Err(Error::parameter(
                "coef",
                format!("coefficient {k} is {c}: a model's coefficients must be finite"),
            ));
        }
        for (name, value) in [("b", b), ("bias_constant", bias_constant)] {
            if !value.is_finite() {
                return Err(Error::parameter(name, format!("{value} is not finite")));
            }
        }
        Ok(KernelModel {
            kernel,
            support_vectors,
            coef,
            b,
            bias_constant,
            summation,
        })
    }

    /// The model of a kernel perceptron's run: its support vectors in the training storage, their
    /// coefficients, `b` and `c`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{Gamma, KernelParams, KernelPerceptronParams}, model::KernelModel, Dataset};
    /// let data = Dataset::new(array![[0.0], [1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0, -1.0])?;
    /// let rbf = KernelParams::rbf().gamma(Gamma::Value(2.0)).check()?;
    /// let fit = KernelPerceptronParams::new(rbf).check()?.fit(&data)?;
    /// let model = KernelModel::from_fit(&fit)?;
    /// assert_eq!(model.b(), fit.b);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for a precomputed kernel, and for weights that are not finite.
    pub fn from_fit(fit: &KernelFit) -> Result<Self> {
        let Some((rows, coef)) = fit.support_rows() else {
            return Err(Error::parameter(
                "kernel",
                "a precomputed kernel keeps no training rows, so its model cannot be saved",
            ));
        };
        let rows = rows.relabelled(Array1::ones(rows.n_samples()));
        Self::new(
            fit.kernel.clone(),
            rows,
            coef.to_vec(),
            fit.b,
            fit.bias_constant,
            fit.summation,
        )
    }

    /// The kernel, its parameters resolved.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{Gamma, KernelParams, KernelPerceptronParams}, model::KernelModel, Dataset};
    /// let data = Dataset::new(array![[0.0], [1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0, -1.0])?;
    /// let rbf = KernelParams::rbf().gamma(Gamma::Value(2.0)).check()?;
    /// let fit = KernelPerceptronParams::new(rbf).check()?.fit(&data)?;
    /// let model = KernelModel::from_fit(&fit)?;
    /// assert_eq!(model.kernel().gamma(), Some(2.0));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The number of support vectors.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{Gamma, KernelParams, KernelPerceptronParams}, model::KernelModel, Dataset};
    /// let data = Dataset::new(array![[0.0], [1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0, -1.0])?;
    /// let rbf = KernelParams::rbf().gamma(Gamma::Value(2.0)).check()?;
    /// let fit = KernelPerceptronParams::new(rbf).check()?.fit(&data)?;
    /// let model = KernelModel::from_fit(&fit)?;
    /// assert_eq!(model.n_support(), fit.support.len());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn n_support(&self) -> usize {
        self.coef.len()
    }

    /// The number of features the model takes.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{Gamma, KernelParams, KernelPerceptronParams}, model::KernelModel, Dataset};
    /// let data = Dataset::new(array![[0.0], [1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0, -1.0])?;
    /// let rbf = KernelParams::rbf().gamma(Gamma::Value(2.0)).check()?;
    /// let fit = KernelPerceptronParams::new(rbf).check()?.fit(&data)?;
    /// let model = KernelModel::from_fit(&fit)?;
    /// assert_eq!(model.n_features(), 1);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn n_features(&self) -> usize {
        self.support_vectors.n_features()
    }

    /// The bias `b`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{Gamma, KernelParams, KernelPerceptronParams}, model::KernelModel, Dataset};
    /// let data = Dataset::new(array![[0.0], [1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0, -1.0])?;
    /// let rbf = KernelParams::rbf().gamma(Gamma::Value(2.0)).check()?;
    /// let fit = KernelPerceptronParams::new(rbf).check()?.fit(&data)?;
    /// let model = KernelModel::from_fit(&fit)?;
    /// assert_eq!(model.b(), fit.b);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn b(&self) -> f64 {
        self.b
    }

    /// Accuracy and confusion counts on labelled data; the margin is `None`, since the norm of the
    /// separator in the feature space takes a product of every pair of support vectors.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{Gamma, KernelParams, KernelPerceptronParams}, model::KernelModel, Dataset};
    /// let data = Dataset::new(array![[0.0], [1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0, -1.0])?;
    /// let rbf = KernelParams::rbf().gamma(Gamma::Value(2.0)).check()?;
    /// let fit = KernelPerceptronParams::new(rbf).check()?.fit(&data)?;
    /// let model = KernelModel::from_fit(&fit)?;
    /// let score = model.score(&data)?;
    /// assert_eq!((score.accuracy, score.margin), (1.0, None));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`KernelModel::decision_function_dataset`].
    pub fn score(&self, data: &Dataset) -> Result<Score> {
        Ok(Score::of_decisions(
            &self.decision_function_dataset(data)?,
            data,
            None,
        ))
    }

    /// `Σₖ coefₖ·K(sₖ, x) + b` for every row of `data`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{Gamma, KernelParams, KernelPerceptronParams}, model::KernelModel, Dataset};
    /// let data = Dataset::new(array![[0.0], [1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0, -1.0])?;
    /// let rbf = KernelParams::rbf().gamma(Gamma::Value(2.0)).check()?;
    /// let fit = KernelPerceptronParams::new(rbf).check()?.fit(&data)?;
    /// let model = KernelModel::from_fit(&fit)?;
    /// assert_eq!(model.decision_function_dataset(&data)?, fit.decision_function(&data)?);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Shape`] for data of another dimension.
    pub fn decision_function_dataset(&self, data: &Dataset) -> Result<Array1<f64>> {
        if data.n_features() != self.n_features() {
            return Err(Error::Shape {
                what: "columns of the data against the model's features",
                expected: self.n_features(),
                found: data.n_features(),
            });
        }
        Ok(dual_decisions(
            &self.kernel,
            &self.support_vectors,
            &self.coef,
            self.b,
            self.summation,
            data,
        ))
    }
}
