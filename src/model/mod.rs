//! Saved models: a trained separator kept on disk, loaded again, and used to predict and score.
//!
//! A [`ModelFile`] is one JSON document with everything needed to predict and to know how the model was
//! made:
//!
//! * the **model** itself, a [`Model`]: today one kind, [`Model::Linear`] (a [`LinearModel`]: `w`, `b`,
//!   the bias rule's constant `c` and weight `v` with `b = c·v`, and the summation order its dot products
//!   use);
//! * its **provenance**, a [`Provenance`]: the training parameters, the data's `n`, `d`, `nnz` and radius
//!   `R`, and the run's counts;
//! * the **format** name, the **format version** and the **crate version** that wrote it.
//!
//! A model loaded again predicts **bit for bit** as the run that made it: the weights are written in the
//! shortest decimal that reads back to the same `f64` and read back with correct rounding, and
//! prediction uses the run's summation order ([`LinearModel::decision_function_dataset`] computes exactly
//! what [`Fit::decision_function_dataset`] does).
//!
//! # Format and versions
//!
//! ```json
//! {
//!   "format": "novikoff-model",
//!   "format_version": 1,
//!   "crate_version": "0.1.0",
//!   "model": { "kind": "linear", "n_features": 2, "w": [3.0, 1.0], "b": 0.0,
//!              "bias_constant": 0.0, "bias_weight": 0.0, "summation": "fast" },
//!   "provenance": { "params": { … }, "data": { … }, "run": { … } }
//! }
//! ```
//!
//! The model is tagged by its `kind`. Later learners (averaged weights, a voted list, kernel dual
//! coefficients, multi-class weight matrices) are new kinds beside `linear`: a file of format version 1
//! keeps its meaning, and a reader meets a kind it does not know with a clear error instead of a wrong
//! prediction. The format version changes only if the meaning of an existing field changes; a reader
//! refuses a version newer than [`FORMAT_VERSION`]. The fields of a model are checked strictly (an
//! unknown field is an error, since it could change a prediction); the provenance is informative and
//! read leniently.
//!
//! ```
//! use ndarray::array;
//! use novikoff::{model::ModelFile, perceptron::PerceptronParams, Dataset};
//! let data = Dataset::new(array![[2.0, 1.0], [-1.0, -3.0]], array![1.0, -1.0])?;
//! let learner = PerceptronParams::new().check()?;
//! let fit = learner.fit(&data)?;
//! let file = ModelFile::from_fit(&fit, &learner, &data, Some("two points"))?;
//! let text = file.to_json()?;
//! let again = ModelFile::from_json(&text, "model.json")?;
//! assert_eq!(again, file);
//! let model = again.model.linear().unwrap();
//! assert_eq!(model.decision_function_dataset(&data)?, fit.decision_function_dataset(&data)?);
//! # Ok::<(), novikoff::Error>(())
//! ```

mod file;
mod score;

use ndarray::{Array1, ArrayView2};
use serde::{Deserialize, Serialize};

pub use file::{FORMAT, FORMAT_VERSION, ModelFile, Provenance};
pub use score::{Confusion, Score};

use crate::dataset::{Dataset, RowView};
use crate::error::{Error, Result};
use crate::perceptron::Fit;
use crate::simd::{self, Summation};

/// A saved model, tagged by its kind (`"kind": "linear"` in the file).
///
/// The enum is `#[non_exhaustive]`: other learners are added as new kinds, so match with a wildcard arm.
///
/// ```
/// use novikoff::model::{LinearModel, Model};
/// use novikoff::simd::Summation;
/// let model = Model::Linear(LinearModel::new(vec![1.0, -1.0], 0.5, Summation::Sequential)?);
/// assert_eq!(model.n_features(), 2);
/// assert_eq!(model.kind(), "linear");
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Model {
    /// `sign(w·x + b)`: the weights of the perceptron, with any bias rule.
    Linear(LinearModel),
}

impl Model {
    /// The kind's name, as the file's `kind` field spells it.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, Model}, simd::Summation};
    /// assert_eq!(Model::Linear(LinearModel::new(vec![1.0], 0.0, Summation::Fast)?).kind(), "linear");
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            Model::Linear(_) => "linear",
        }
    }

    /// The number of features the model takes.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, Model}, simd::Summation};
    /// assert_eq!(Model::Linear(LinearModel::new(vec![1.0; 3], 0.0, Summation::Fast)?).n_features(), 3);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn n_features(&self) -> usize {
        match self {
            Model::Linear(m) => m.n_features(),
        }
    }

    /// The linear model, if this is one.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, Model}, simd::Summation};
    /// let model = Model::Linear(LinearModel::new(vec![2.0], 1.0, Summation::Fast)?);
    /// assert_eq!(model.linear().map(|m| m.b()), Some(1.0));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn linear(&self) -> Option<&LinearModel> {
        match self {
            Model::Linear(m) => Some(m),
        }
    }

    /// `sign(f(x))` for every row of `data`, with sign(0) = +1 (the crate's convention).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::{LinearModel, Model}, simd::Summation, Dataset};
    /// let model = Model::Linear(LinearModel::new(vec![1.0], 0.0, Summation::Fast)?);
    /// let data = Dataset::new(array![[2.0], [0.0], [-1.0]], array![1.0, 1.0, -1.0])?;
    /// assert_eq!(model.predict_dataset(&data)?.to_vec(), vec![1.0, 1.0, -1.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn predict_dataset(&self, data: &Dataset) -> Result<Array1<f64>> {
        Ok(sign(self.decision_function_dataset(data)?))
    }

    /// The decision value `f(x)` of every row of `data` (for a linear model, `w·x + b`).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::{LinearModel, Model}, simd::Summation, Dataset};
    /// let model = Model::Linear(LinearModel::new(vec![1.0, 1.0], -1.0, Summation::Fast)?);
    /// let data = Dataset::new(array![[2.0, 1.0]], array![1.0])?;
    /// assert_eq!(model.decision_function_dataset(&data)?.to_vec(), vec![2.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn decision_function_dataset(&self, data: &Dataset) -> Result<Array1<f64>> {
        match self {
            Model::Linear(m) => m.decision_function_dataset(data),
        }
    }

    /// Accuracy, confusion counts and the model's signed margin on labelled data; see [`Score`].
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::{LinearModel, Model}, simd::Summation, Dataset};
    /// let model = Model::Linear(LinearModel::new(vec![1.0], 0.0, Summation::Fast)?);
    /// let data = Dataset::new(array![[2.0], [-1.0]], array![1.0, -1.0])?;
    /// assert_eq!(model.score(&data)?.accuracy, 1.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn score(&self, data: &Dataset) -> Result<Score> {
        match self {
            Model::Linear(m) => m.score(data),
        }
    }
}

/// The separator `sign(w·x + b)`, with what a bias rule knows about its bias and the summation order of
/// its dot products.
///
/// The bias is `b = c·v`: `c` is the bias rule's augmentation constant (0 without a bias, 1 for
/// `classic`, `R` for `novikoff`) and `v` the weight the perceptron learned for the constant coordinate.
/// Prediction reads `w`, `b` and the summation order; `c` and `v` are kept so that the run's augmented
/// weights `(w, v)` are known exactly.
///
/// ```
/// use ndarray::array;
/// use novikoff::{model::LinearModel, perceptron::{BiasRule, PerceptronParams}, Dataset};
/// let data = Dataset::new(array![[3.0], [1.0]], array![1.0, -1.0])?;
/// let fit = PerceptronParams::new().bias(BiasRule::Classic).fit(&data)?;
/// let model = LinearModel::from_fit(&fit)?;
/// assert_eq!((model.w(), model.b()), (fit.w.as_slice().unwrap(), fit.b));
/// assert_eq!(model.predict(data.x())?, fit.predict(data.x())?);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, try_from = "LinearFields", into = "LinearFields")]
pub struct LinearModel {
    w: Vec<f64>,
    b: f64,
    bias_constant: f64,
    bias_weight: f64,
    summation: Summation,
}

/// The fields of a linear model as the file holds them. `n_features` is written for people and checked
/// against `w` on reading.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinearFields {
    n_features: usize,
    w: Vec<f64>,
    b: f64,
    bias_constant: f64,
    bias_weight: f64,
    summation: Summation,
}

impl From<LinearModel> for LinearFields {
    fn from(m: LinearModel) -> Self {
        LinearFields {
            n_features: m.w.len(),
            w: m.w,
            b: m.b,
            bias_constant: m.bias_constant,
            bias_weight: m.bias_weight,
            summation: m.summation,
        }
    }
}

impl TryFrom<LinearFields> for LinearModel {
    type Error = String;

    fn try_from(f: LinearFields) -> std::result::Result<Self, String> {
        if f.n_features != f.w.len() {
            return Err(format!(
                "n_features is {} but w has {} values",
                f.n_features,
                f.w.len()
            ));
        }
        LinearModel::with_bias_weight(f.w, f.bias_constant, f.bias_weight, f.summation)
            .and_then(|m| {
                if m.b.to_bits() == f.b.to_bits() {
                    Ok(m)
                } else {
                    Err(Error::parameter(
                        "b",
                        format!(
                            "b = {} is not bias_constant × bias_weight = {} × {} = {}",
                            f.b, f.bias_constant, f.bias_weight, m.b
                        ),
                    ))
                }
            })
            .map_err(|e| e.to_string())
    }
}

impl LinearModel {
    /// A linear model from its weights and bias (the bias rule is then unknown: `c = 1`, `v = b`).
    /// Every value must be finite and `w` not empty.
    ///
    /// ```
    /// use novikoff::{model::LinearModel, simd::Summation};
    /// assert!(LinearModel::new(vec![1.0, f64::NAN], 0.0, Summation::Fast).is_err());
    /// assert_eq!(LinearModel::new(vec![1.0], 2.0, Summation::Fast)?.bias_weight(), 2.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn new(w: Vec<f64>, b: f64, summation: Summation) -> Result<Self> {
        Self::with_bias_weight(w, 1.0, b, summation)
    }

    /// A linear model from `w`, the bias rule's constant `c` and the bias weight `v` (so `b = c·v`).
    ///
    /// ```
    /// use novikoff::{model::LinearModel, simd::Summation};
    /// let m = LinearModel::with_bias_weight(vec![1.0], 2.0, 1.5, Summation::Fast)?;
    /// assert_eq!(m.b(), 3.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn with_bias_weight(
        w: Vec<f64>,
        bias_constant: f64,
        bias_weight: f64,
        summation: Summation,
    ) -> Result<Self> {
        if w.is_empty() {
            return Err(Error::NoFeatures);
        }
        if let Some((j, v)) = w.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(Error::parameter(
                "w",
                format!("weight {j} is {v}: a model's weights must be finite"),
            ));
        }
        for (name, value) in [
            ("bias_constant", bias_constant),
            ("bias_weight", bias_weight),
        ] {
            if !value.is_finite() {
                return Err(Error::parameter(name, format!("{value} is not finite")));
            }
        }
        let b = bias_constant * bias_weight;
        if !b.is_finite() {
            return Err(Error::parameter("b", format!("{b} is not finite")));
        }
        Ok(LinearModel {
            w,
            b,
            bias_constant,
            bias_weight,
            summation,
        })
    }

    /// The model of a finished run. Refused when the weights are not finite (a run stopped by
    /// overflow): such weights predict nothing.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::LinearModel, perceptron::PerceptronParams, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = PerceptronParams::new().fit(&data)?;
    /// assert_eq!(LinearModel::from_fit(&fit)?.w(), &[1.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn from_fit(fit: &Fit) -> Result<Self> {
        let model = Self::with_bias_weight(
            fit.w.to_vec(),
            fit.bias_constant,
            fit.bias_weight,
            fit.summation,
        )?;
        debug_assert_eq!(model.b.to_bits(), fit.b.to_bits());
        Ok(model)
    }

    /// The weights `w`.
    ///
    /// ```
    /// use novikoff::{model::LinearModel, simd::Summation};
    /// assert_eq!(LinearModel::new(vec![1.0, 2.0], 0.0, Summation::Fast)?.w(), &[1.0, 2.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn w(&self) -> &[f64] {
        &self.w
    }

    /// The bias `b = c·v`.
    ///
    /// ```
    /// use novikoff::{model::LinearModel, simd::Summation};
    /// assert_eq!(LinearModel::new(vec![1.0], -0.5, Summation::Fast)?.b(), -0.5);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn b(&self) -> f64 {
        self.b
    }

    /// The bias rule's augmentation constant `c`.
    ///
    /// ```
    /// use novikoff::{model::LinearModel, simd::Summation};
    /// assert_eq!(LinearModel::with_bias_weight(vec![1.0], 0.0, 0.0, Summation::Fast)?.bias_constant(), 0.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn bias_constant(&self) -> f64 {
        self.bias_constant
    }

    /// The weight `v` of the constant coordinate (`b = c·v`).
    ///
    /// ```
    /// use novikoff::{model::LinearModel, simd::Summation};
    /// assert_eq!(LinearModel::with_bias_weight(vec![1.0], 4.0, 0.25, Summation::Fast)?.bias_weight(), 0.25);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn bias_weight(&self) -> f64 {
        self.bias_weight
    }

    /// The summation order of the dot products.
    ///
    /// ```
    /// use novikoff::{model::LinearModel, simd::Summation};
    /// let m = LinearModel::new(vec![1.0], 0.0, Summation::Sequential)?;
    /// assert_eq!(m.summation(), Summation::Sequential);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn summation(&self) -> Summation {
        self.summation
    }

    /// The number of features, `w`'s length.
    ///
    /// ```
    /// use novikoff::{model::LinearModel, simd::Summation};
    /// assert_eq!(LinearModel::new(vec![0.0; 4], 0.0, Summation::Fast)?.n_features(), 4);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn n_features(&self) -> usize {
        self.w.len()
    }

    /// An [`Error::Shape`] unless the data have `w`'s number of features.
    ///
    /// ```
    /// use novikoff::{model::LinearModel, simd::Summation};
    /// let m = LinearModel::new(vec![1.0, 2.0], 0.0, Summation::Fast)?;
    /// assert!(m.check_features(2).is_ok());
    /// assert_eq!(
    ///     m.check_features(3).unwrap_err().to_string(),
    ///     "shape mismatch: columns of the data against the model's features: expected 2, found 3"
    /// );
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn check_features(&self, d: usize) -> Result<()> {
        if d == self.w.len() {
            return Ok(());
        }
        Err(Error::Shape {
            what: "columns of the data against the model's features",
            expected: self.w.len(),
            found: d,
        })
    }

    /// `w·x + b` for one row, in the model's summation order.
    ///
    /// ```
    /// use novikoff::{dataset::RowView, model::LinearModel, simd::Summation};
    /// let m = LinearModel::new(vec![1.0, 2.0, 3.0], 1.0, Summation::Fast)?;
    /// assert_eq!(m.decision_row(RowView::Sparse { indices: &[2], values: &[2.0] }), 7.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[inline]
    pub fn decision_row(&self, row: RowView<'_>) -> f64 {
        row.dot(&self.w, self.summation) + self.b
    }

    /// `w·xᵢ + b` for every row of a dataset of either storage: the bits of
    /// [`Fit::decision_function_dataset`] for the run the model came from.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::LinearModel, simd::Summation, Dataset};
    /// let m = LinearModel::new(vec![1.0, -1.0], 0.0, Summation::Fast)?;
    /// let data = Dataset::new(array![[1.0, 3.0]], array![1.0])?;
    /// assert_eq!(m.decision_function_dataset(&data.to_sparse())?.to_vec(), vec![-2.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn decision_function_dataset(&self, data: &Dataset) -> Result<Array1<f64>> {
        self.check_features(data.n_features())?;
        Ok((0..data.n_samples())
            .map(|i| self.decision_row(data.row_view(i)))
            .collect())
    }

    /// `w·xᵢ + b` for every row of a dense matrix (any layout; a row that is not contiguous is copied
    /// once): the bits of [`Fit::decision_function`].
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::LinearModel, simd::Summation};
    /// let m = LinearModel::new(vec![1.0, -1.0], 0.5, Summation::Fast)?;
    /// assert_eq!(m.decision_function(array![[1.0, 3.0]].view())?.to_vec(), vec![-1.5]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn decision_function(&self, x: ArrayView2<'_, f64>) -> Result<Array1<f64>> {
        self.check_features(x.ncols())?;
        Ok(x.outer_iter()
            .map(|row| match row.as_slice() {
                Some(r) => simd::dot(&self.w, r, self.summation) + self.b,
                None => simd::dot(&self.w, &row.to_vec(), self.summation) + self.b,
            })
            .collect())
    }

    /// `sign(w·xᵢ + b)` for every row of a dense matrix, with sign(0) = +1.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::LinearModel, simd::Summation};
    /// let m = LinearModel::new(vec![1.0], 0.0, Summation::Fast)?;
    /// assert_eq!(m.predict(array![[0.0], [-2.0]].view())?.to_vec(), vec![1.0, -1.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array1<f64>> {
        Ok(sign(self.decision_function(x)?))
    }

    /// `sign(w·xᵢ + b)` for every row of a dataset of either storage, with sign(0) = +1.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::LinearModel, simd::Summation, Dataset};
    /// let m = LinearModel::new(vec![1.0], -1.0, Summation::Fast)?;
    /// let data = Dataset::new(array![[0.5], [3.0]], array![-1.0, 1.0])?;
    /// assert_eq!(m.predict_dataset(&data)?.to_vec(), vec![-1.0, 1.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn predict_dataset(&self, data: &Dataset) -> Result<Array1<f64>> {
        Ok(sign(self.decision_function_dataset(data)?))
    }
}

/// The predictions file of `novikoff predict`: a header `prediction,decision`, then one row per example
/// with its label ±1 (sign(0) = +1) and its decision value `f(x)` (for a linear model `w·x + b`) in the
/// shortest decimal that reads back to the same bits.
///
/// ```
/// assert_eq!(novikoff::model::predictions_csv(&[0.5, -2.0, 0.0]), "prediction,decision\n1,0.5\n-1,-2\n1,0\n");
/// ```
pub fn predictions_csv(decisions: &[f64]) -> String {
    use std::fmt::Write;
    let mut text = String::with_capacity(24 * decisions.len() + 20);
    text.push_str("prediction,decision\n");
    for &a in decisions {
        let label = if a >= 0.0 { 1 } else { -1 };
        writeln!(text, "{label},{a}").expect("writing to a String cannot fail");
    }
    text
}

/// Write [`predictions_csv`] to `path` atomically.
///
/// ```
/// let path = std::env::temp_dir().join(format!("novikoff-doc-predictions-{}.csv", std::process::id()));
/// novikoff::model::save_predictions(&path, &[1.5])?;
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "prediction,decision\n1,1.5\n");
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn save_predictions(path: impl AsRef<std::path::Path>, decisions: &[f64]) -> Result<()> {
    let text = predictions_csv(decisions);
    let path = path.as_ref();
    crate::io::write_atomically(path, |out| {
        use std::io::Write;
        out.write_all(text.as_bytes())
            .map_err(|e| Error::io(path, e))
    })
}

/// sign(a) with sign(0) = +1 (CS 536, eq. 2), the crate's prediction rule.
fn sign(activations: Array1<f64>) -> Array1<f64> {
    activations.mapv(|a| if a >= 0.0 { 1.0 } else { -1.0 })
}
