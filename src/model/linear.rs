//! The linear model: `sign(w·x + b)` with its bias rule's constant and weight and its summation order.

use ndarray::{Array1, ArrayView2};
use serde::{Deserialize, Serialize};

use super::sign;
use crate::dataset::{Dataset, RowView};
use crate::error::{Error, Result};
use crate::perceptron::{Fit, LinearPredictor, Predictor};
use crate::simd::{self, Summation};

/// The separator `sign(w·x + b)`, with what a bias rule knows about its bias and the summation order of
/// its dot products.
///
/// The bias is `b = c·v`: `c` is the bias rule's augmentation constant (0 without a bias, 1 for
/// `classic`, `R` for `novikoff`) and `v` the weight the perceptron learned for the constant coordinate.
/// Prediction reads `w`, `b` and the summation order; `c` and `v` are kept so that the run's augmented
/// weights `(w, v)` are known exactly.
///
/// A model may also name the classes its labels −1 and +1 stand for ([`LinearModel::with_classes`]):
/// the Python package's `save_model` records them for an estimator trained on labels such as `0`/`1` or
/// `"ham"`/`"spam"`, so that the model predicts in those labels when loaded again, and `novikoff
/// predict` and `score` print and read them.
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
    classes: Option<[String; 2]>,
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
    /// The names of the classes −1 and +1, in that order; absent when the labels are the numbers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    classes: Option<[String; 2]>,
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
            classes: m.classes,
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
                if m.b.to_bits() != f.b.to_bits() {
                    return Err(Error::parameter(
                        "b",
                        format!(
                            "b = {} is not bias_constant × bias_weight = {} × {} = {}",
                            f.b, f.bias_constant, f.bias_weight, m.b
                        ),
                    ));
                }
                match f.classes {
                    Some([negative, positive]) => m.with_classes(negative, positive),
                    None => Ok(m),
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
            classes: None,
        })
    }

    /// The same model with the names of the classes its labels −1 and +1 stand for: it then predicts
    /// `negative` where `w·x + b < 0` and `positive` elsewhere ([`named_predictions_csv`](super::named_predictions_csv)).
    /// The names must differ and not be empty.
    ///
    /// ```
    /// use novikoff::{model::LinearModel, simd::Summation};
    /// let m = LinearModel::new(vec![1.0], 0.0, Summation::Fast)?.with_classes("ham", "spam")?;
    /// assert_eq!(m.classes(), Some(&["ham".to_string(), "spam".to_string()]));
    /// assert!(m.clone().with_classes("spam", "spam").is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn with_classes(
        self,
        negative: impl Into<String>,
        positive: impl Into<String>,
    ) -> Result<Self> {
        let classes = [negative.into(), positive.into()];
        super::check_class_names(&classes)?;
        Ok(LinearModel {
            classes: Some(classes),
            ..self
        })
    }

    /// The names of the classes −1 and +1, when the model has them ([`LinearModel::with_classes`]).
    ///
    /// ```
    /// use novikoff::{model::LinearModel, simd::Summation};
    /// assert_eq!(LinearModel::new(vec![1.0], 0.0, Summation::Fast)?.classes(), None);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn classes(&self) -> Option<&[String; 2]> {
        self.classes.as_ref()
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

    /// The model of a run's variant: its last weights ([`LinearModel::from_fit`], keeping the bias
    /// rule's `c` and `v`), or its own linear predictor ([`Fit::own_linear`]: the averaged weights, the
    /// pocket's). Refused for the voted perceptron, whose vote of many weight vectors is not a linear
    /// model, and when the weights are not finite.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::LinearModel, perceptron::{PerceptronParams, Variant}, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0], [0.5]], array![1.0, -1.0, -1.0])?;
    /// let fit = PerceptronParams::new().variant(Variant::Averaged).max_epochs(3).fit(&data)?;
    /// assert_eq!(LinearModel::of_run(&fit)?.b(), fit.averaged.b);
    /// let voted = PerceptronParams::new().variant(Variant::Voted).fit(&data)?;
    /// assert!(LinearModel::of_run(&voted).is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn of_run(fit: &Fit) -> Result<Self> {
        match (fit.variant.predictor(), fit.own_linear()) {
            (Predictor::Last, _) => Self::from_fit(fit),
            (_, Some(predictor)) => Self::from_predictor(&predictor),
            (_, None) => Err(Error::parameter(
                "variant",
                "the voted perceptron predicts by a vote of many weight vectors, which a linear \
                 model cannot hold; use the averaged perceptron instead",
            )),
        }
    }

    /// The model of a variant's own predictor (the averaged perceptron's, the pocket's).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::LinearModel, perceptron::{PerceptronParams, Variant}, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = PerceptronParams::new().variant(Variant::Averaged).fit(&data)?;
    /// assert_eq!(LinearModel::from_predictor(&fit.averaged)?.w(), fit.averaged.w.as_slice().unwrap());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn from_predictor(predictor: &LinearPredictor) -> Result<Self> {
        Self::new(predictor.w.to_vec(), predictor.b, predictor.summation)
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
