//! The multi-class kernel model: one kernel perceptron per class, each against the rest.

use ndarray::Array2;
use serde::{Deserialize, Serialize};

use super::KernelModel;
use crate::dataset::{Dataset, MulticlassDataset};
use crate::error::{Error, Result};
use crate::multiclass::{ConfusionMatrix, Method, OneVsRest, confusion_on, predicted_classes};

/// `argmax_r Σₖ coef_rk·K(s_rk, x) + b_r` over `k ≥ 2` classes (`"kind": "multiclass_kernel"` in a
/// model file): one-vs-rest of the kernel perceptron, each class's [`KernelModel`] (its kernel, support
/// vectors, coefficients and bias) learnt against the rest.
///
/// A model made from a run ([`MulticlassKernelModel::from_one_vs_rest`]) scores every class **bit for
/// bit** as the run's [`OneVsRest::decision_function`]: each class's model is its run's
/// [`KernelModel::from_fit`]. The multi-class perceptron works in the input space only, so the method
/// is always one-vs-rest.
///
/// ```
/// use ndarray::array;
/// use novikoff::{dataset::MulticlassDataset, model::MulticlassKernelModel};
/// use novikoff::kernel::{Gamma, KernelParams, KernelPerceptronParams};
/// use novikoff::multiclass::{BinaryLearner, OneVsRest};
/// let data = MulticlassDataset::new(
///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0], [2.5, 0.5]],
///     vec!["a".into(), "b".into(), "c".into()],
///     vec![0, 1, 2, 0],
/// )?;
/// let rbf = KernelParams::rbf().gamma(Gamma::Value(0.5)).check()?;
/// let ovr = OneVsRest::fit(&data, &BinaryLearner::Kernel(KernelPerceptronParams::new(rbf)))?;
/// let model = MulticlassKernelModel::from_one_vs_rest(&ovr)?;
/// assert_eq!(model.decision_function_dataset(data.features())?, ovr.decision_function(data.features())?);
/// assert_eq!(model.predict_dataset(data.features())?, vec![0, 1, 2, 0]);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    try_from = "MulticlassKernelFields",
    into = "MulticlassKernelFields"
)]
pub struct MulticlassKernelModel {
    classes: Vec<String>,
    models: Vec<KernelModel>,
}

/// The fields as a file holds them: the `method` (always `ovr`) and `n_features` are written for
/// people, and checked on reading.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MulticlassKernelFields {
    method: Method,
    n_features: usize,
    classes: Vec<String>,
    models: Vec<KernelModel>,
}

impl From<MulticlassKernelModel> for MulticlassKernelFields {
    fn from(m: MulticlassKernelModel) -> Self {
        MulticlassKernelFields {
            method: Method::OneVsRest,
            n_features: m.n_features(),
            classes: m.classes,
            models: m.models,
        }
    }
}

impl TryFrom<MulticlassKernelFields> for MulticlassKernelModel {
    type Error = String;

    fn try_from(f: MulticlassKernelFields) -> std::result::Result<Self, String> {
        if f.method != Method::OneVsRest {
            return Err(format!(
                "the method is `{}`, but a kernel model's classes are learnt one-vs-rest (`ovr`): \
                 the multi-class perceptron works in the input space only",
                f.method.name()
            ));
        }
        let model = MulticlassKernelModel::new(f.classes, f.models).map_err(|e| e.to_string())?;
        if model.n_features() != f.n_features {
            return Err(format!(
                "n_features is {} but the classes' models take {}",
                f.n_features,
                model.n_features()
            ));
        }
        Ok(model)
    }
}

impl MulticlassKernelModel {
    /// A model of `classes` (at least two, each named once) scored by `models`, one kernel model per
    /// class in the same order, all of one dimension.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::Kernel, model::{KernelModel, MulticlassKernelModel}, simd::Summation, Dataset};
    /// let support = Dataset::new(array![[1.0, 0.0]], array![1.0])?;
    /// let class = |c: f64| KernelModel::new(Kernel::linear(), support.clone(), vec![c], 0.0, 0.0, Summation::Fast);
    /// let model = MulticlassKernelModel::new(vec!["x".into(), "y".into()], vec![class(1.0)?, class(-1.0)?])?;
    /// assert_eq!((model.n_classes(), model.n_features()), (2, 2));
    /// assert!(MulticlassKernelModel::new(vec!["x".into()], vec![class(1.0)?]).is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for fewer than two classes, a class named twice or an empty name, a
    /// number of models that is not the number of classes, or models of different dimensions.
    pub fn new(classes: Vec<String>, models: Vec<KernelModel>) -> Result<Self> {
        super::check_classes(&classes, models.len())?;
        let d = models[0].n_features();
        if let Some((r, other)) = models.iter().enumerate().find(|(_, m)| m.n_features() != d) {
            return Err(Error::parameter(
                "models",
                format!(
                    "the model of class `{}` takes {} features, the first class's {d}",
                    classes[r],
                    other.n_features()
                ),
            ));
        }
        Ok(MulticlassKernelModel { classes, models })
    }

    /// The model of a one-vs-rest run of the kernel perceptron ([`OneVsRest::fit`]): each class's
    /// [`KernelModel::from_fit`].
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, model::MulticlassKernelModel};
    /// use novikoff::kernel::{Gamma, KernelParams, KernelPerceptronParams};
    /// use novikoff::multiclass::{BinaryLearner, OneVsRest};
    /// let data = MulticlassDataset::new(
    ///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let poly = KernelParams::polynomial(2).gamma(Gamma::Value(0.5)).check()?;
    /// let ovr = OneVsRest::fit(&data, &BinaryLearner::Kernel(KernelPerceptronParams::new(poly)))?;
    /// assert_eq!(MulticlassKernelModel::from_one_vs_rest(&ovr)?.classes(), ["a", "b", "c"]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for classes learnt by the perceptron or checked by
    /// [`OneVsRest::verify`] ([`OneVsRest::kernel_fits`]), and for a precomputed kernel.
    pub fn from_one_vs_rest(ovr: &OneVsRest) -> Result<Self> {
        let models = ovr
            .kernel_fits()?
            .into_iter()
            .map(KernelModel::from_fit)
            .collect::<Result<Vec<_>>>()?;
        let classes = ovr.classes.iter().map(|c| c.class.clone()).collect();
        Self::new(classes, models)
    }

    /// The classes' names, in the order of the scores' columns.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::Kernel, model::{KernelModel, MulticlassKernelModel}, simd::Summation, Dataset};
    /// let support = Dataset::new(array![[1.0]], array![1.0])?;
    /// let one = KernelModel::new(Kernel::linear(), support, vec![1.0], 0.0, 0.0, Summation::Fast)?;
    /// let model = MulticlassKernelModel::new(vec!["p".into(), "q".into()], vec![one.clone(), one])?;
    /// assert_eq!(model.classes(), ["p", "q"]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn classes(&self) -> &[String] {
        &self.classes
    }

    /// Each class's kernel model, in class order.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::Kernel, model::{KernelModel, MulticlassKernelModel}, simd::Summation, Dataset};
    /// let support = Dataset::new(array![[1.0]], array![1.0])?;
    /// let class = |b| KernelModel::new(Kernel::linear(), support.clone(), vec![1.0], b, 1.0, Summation::Fast);
    /// let model = MulticlassKernelModel::new(vec!["p".into(), "q".into()], vec![class(0.5)?, class(-1.0)?])?;
    /// assert_eq!(model.models()[1].b(), -1.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn models(&self) -> &[KernelModel] {
        &self.models
    }

    /// The number of classes `k`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::Kernel, model::{KernelModel, MulticlassKernelModel}, simd::Summation, Dataset};
    /// let support = Dataset::new(array![[1.0]], array![1.0])?;
    /// let one = KernelModel::new(Kernel::linear(), support, vec![1.0], 0.0, 0.0, Summation::Fast)?;
    /// let model = MulticlassKernelModel::new(vec!["p".into(), "q".into(), "r".into()], vec![one; 3])?;
    /// assert_eq!(model.n_classes(), 3);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn n_classes(&self) -> usize {
        self.classes.len()
    }

    /// The number of features the model takes.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::Kernel, model::{KernelModel, MulticlassKernelModel}, simd::Summation, Dataset};
    /// let support = Dataset::new(array![[1.0, 2.0, 3.0]], array![1.0])?;
    /// let one = KernelModel::new(Kernel::linear(), support, vec![1.0], 0.0, 0.0, Summation::Fast)?;
    /// let model = MulticlassKernelModel::new(vec!["p".into(), "q".into()], vec![one; 2])?;
    /// assert_eq!(model.n_features(), 3);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn n_features(&self) -> usize {
        self.models[0].n_features()
    }

    /// Every row's score for every class (`n × k`), each class's column its model's
    /// [`KernelModel::decision_function_dataset`].
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::Kernel, model::{KernelModel, MulticlassKernelModel}, simd::Summation, Dataset};
    /// let support = Dataset::new(array![[1.0]], array![1.0])?;
    /// let class = |c| KernelModel::new(Kernel::linear(), support.clone(), vec![c], 1.0, 1.0, Summation::Fast);
    /// let model = MulticlassKernelModel::new(vec!["p".into(), "q".into()], vec![class(1.0)?, class(-1.0)?])?;
    /// let data = Dataset::new(array![[2.0]], array![1.0])?;
    /// assert_eq!(model.decision_function_dataset(&data)?, array![[3.0, -1.0]]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Shape`] for data of another dimension.
    pub fn decision_function_dataset(&self, data: &Dataset) -> Result<Array2<f64>> {
        let mut scores = Array2::zeros((data.n_samples(), self.n_classes()));
        for (mut column, model) in scores.columns_mut().into_iter().zip(&self.models) {
            column.assign(&model.decision_function_dataset(data)?);
        }
        Ok(scores)
    }

    /// The class index of every row: the highest score, the lowest index on a tie.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::Kernel, model::{KernelModel, MulticlassKernelModel}, simd::Summation, Dataset};
    /// let support = Dataset::new(array![[1.0]], array![1.0])?;
    /// let class = |c| KernelModel::new(Kernel::linear(), support.clone(), vec![c], 0.0, 0.0, Summation::Fast);
    /// let model = MulticlassKernelModel::new(vec!["p".into(), "q".into()], vec![class(1.0)?, class(-1.0)?])?;
    /// let data = Dataset::new(array![[2.0], [-3.0], [0.0]], array![1.0, 1.0, 1.0])?;
    /// assert_eq!(model.predict_dataset(&data)?, vec![0, 1, 0]); // a tie goes to the first class
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`MulticlassKernelModel::decision_function_dataset`].
    pub fn predict_dataset(&self, data: &Dataset) -> Result<Vec<usize>> {
        Ok(predicted_classes(&self.decision_function_dataset(data)?))
    }

    /// The confusion matrix on labelled data whose classes are the model's, in its order (as
    /// [`crate::io::open_multiclass_as`] reads a file against [`MulticlassKernelModel::classes`]).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, kernel::Kernel, model::{KernelModel, MulticlassKernelModel}, simd::Summation, Dataset};
    /// let support = Dataset::new(array![[1.0]], array![1.0])?;
    /// let class = |c| KernelModel::new(Kernel::linear(), support.clone(), vec![c], 0.0, 0.0, Summation::Fast);
    /// let model = MulticlassKernelModel::new(vec!["p".into(), "q".into()], vec![class(1.0)?, class(-1.0)?])?;
    /// let data = MulticlassDataset::new(array![[2.0], [-3.0], [1.0]], vec!["p".into(), "q".into()], vec![0, 1, 1])?;
    /// assert_eq!(model.confusion(&data)?.counts, vec![vec![1, 0], vec![1, 1]]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for data with other classes, and as
    /// [`MulticlassKernelModel::decision_function_dataset`].
    pub fn confusion(&self, data: &MulticlassDataset) -> Result<ConfusionMatrix> {
        confusion_on(&self.classes, data, |rows| self.predict_dataset(rows))
    }
}
