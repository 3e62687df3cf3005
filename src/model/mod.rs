//! Saved models: a trained separator kept on disk, loaded again, and used to predict and score.
//!
//! A [`ModelFile`] is one JSON document with everything needed to predict and to know how the model was
//! made:
//!
//! * the **model** itself, a [`Model`] of one of four kinds: [`Model::Linear`] (a [`LinearModel`]:
//!   `w`, `b`, the bias rule's constant `c` and weight `v` with `b = c·v`, and the summation order its
//!   dot products use), [`Model::Multiclass`] (a [`MulticlassModel`]: the classes' names, one linear
//!   model per class, and the method that learnt them, one-vs-rest or the multi-class perceptron),
//!   [`Model::Kernel`] (a [`KernelModel`]: the kernel, the support vectors and their coefficients),
//!   or [`Model::MulticlassKernel`] (a [`MulticlassKernelModel`]: one kernel model per class,
//!   one-vs-rest);
//! * its **provenance**, a [`Provenance`]: the training parameters, the data's `n`, `d`, `nnz` and radius
//!   `R`, and the run's counts;
//! * the **format** name, the **format version** and the **crate version** that wrote it.
//!
//! A model loaded again predicts **bit for bit** as the run that made it: the weights are written in the
//! shortest decimal that reads back to the same `f64` and read back with correct rounding, and
//! prediction uses the run's summation order ([`LinearModel::decision_function_dataset`] computes exactly
//! what [`Fit::decision_function_dataset`](crate::perceptron::Fit::decision_function_dataset) does).
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
//! A linear model may name the classes its −1 and +1 stand for, `"classes": ["ham", "spam"]`
//! ([`LinearModel::with_classes`]); `novikoff predict` then prints the names and `score` reads them. A
//! model without the field reads as it always did.
//!
//! A multi-class model holds its classes' linear models side by side, each with the fields above
//! (without `classes`, which the multi-class model names once):
//!
//! ```json
//! "model": { "kind": "multiclass", "method": "kesler", "n_features": 2, "classes": ["a", "b", "c"],
//!            "models": [ { "n_features": 2, "w": [1.0, 0.0], "b": 1.0, … }, … ] }
//! ```
//!
//! A kernel model holds its support vectors in the training data's storage:
//!
//! ```json
//! "model": { "kind": "kernel", "kernel": { "name": "rbf", "gamma": 0.5 }, "n_features": 2,
//!            "support_vectors": { "dense": [[0.0, 1.0], …] }, "coef": [1.0, -1.0, …], "b": 0.0,
//!            "bias_constant": 0.0, "summation": "fast" }
//! ```
//!
//! One-vs-rest of the kernel perceptron holds one kernel model per class, each with the fields above:
//!
//! ```json
//! "model": { "kind": "multiclass_kernel", "method": "ovr", "n_features": 2, "classes": ["a", "b", "c"],
//!            "models": [ { "kernel": { "name": "rbf", "gamma": 0.5 }, "n_features": 2, … }, … ] }
//! ```
//!
//! The model is tagged by its `kind`. Later learners (a voted list) are new kinds beside these: a file of format version 1
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
mod kernel;
mod linear;
mod multiclass;
mod multiclass_kernel;
mod predictions;
mod provenance;
mod score;

use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

pub use file::{FORMAT, FORMAT_VERSION, ModelFile};
pub use kernel::KernelModel;
pub use linear::LinearModel;
pub use multiclass::MulticlassModel;
pub use multiclass_kernel::MulticlassKernelModel;
pub use predictions::{
    class_predictions_csv, named_predictions_csv, predictions_csv, save_class_predictions,
    save_predictions,
};
pub use provenance::{DataSummary, Provenance, RunSummary, TrainingParams};
pub use score::{Confusion, Score};

use crate::dataset::{Dataset, MulticlassDataset};
use crate::error::{Error, Result};
use crate::multiclass::ConfusionMatrix;

/// A saved model, tagged by its kind (`"kind": "linear"`, `"multiclass"`, `"kernel"` or
/// `"multiclass_kernel"` in the file).
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
    /// `argmax_r w_r·x + b_r` over `k ≥ 2` classes: one-vs-rest or the multi-class perceptron.
    Multiclass(MulticlassModel),
    /// `sign(Σₖ coefₖ·K(sₖ, x) + b)`: the kernel perceptron's support vectors and coefficients.
    Kernel(Box<KernelModel>),
    /// `argmax_r Σₖ coef_rk·K(s_rk, x) + b_r`: one-vs-rest of the kernel perceptron.
    MulticlassKernel(Box<MulticlassKernelModel>),
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
            Model::Multiclass(_) => "multiclass",
            Model::Kernel(_) => "kernel",
            Model::MulticlassKernel(_) => "multiclass_kernel",
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
            Model::Multiclass(m) => m.n_features(),
            Model::Kernel(m) => m.n_features(),
            Model::MulticlassKernel(m) => m.n_features(),
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
            _ => None,
        }
    }

    /// The multi-class model, if this is one.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, Model, MulticlassModel}, multiclass::Method, simd::Summation};
    /// let one = LinearModel::new(vec![2.0], 1.0, Summation::Fast)?;
    /// let model = Model::Multiclass(MulticlassModel::new(Method::Kesler, vec!["a".into(), "b".into()], vec![one; 2])?);
    /// assert_eq!(model.multiclass().map(|m| m.n_classes()), Some(2));
    /// assert!(model.linear().is_none());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn multiclass(&self) -> Option<&MulticlassModel> {
        match self {
            Model::Multiclass(m) => Some(m),
            _ => None,
        }
    }

    /// The classes of a multi-class model ([`Model::Multiclass`] or [`Model::MulticlassKernel`]), in
    /// the order of [`Model::class_scores`]' columns; `None` for a binary model.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, Model, MulticlassModel}, multiclass::Method, simd::Summation};
    /// let one = LinearModel::new(vec![2.0], 1.0, Summation::Fast)?;
    /// let model = Model::Multiclass(MulticlassModel::new(Method::Kesler, vec!["a".into(), "b".into()], vec![one.clone(); 2])?);
    /// assert_eq!(model.classes(), Some(&["a".to_string(), "b".to_string()][..]));
    /// assert_eq!(Model::Linear(one).classes(), None);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn classes(&self) -> Option<&[String]> {
        match self {
            Model::Multiclass(m) => Some(m.classes()),
            Model::MulticlassKernel(m) => Some(m.classes()),
            Model::Linear(_) | Model::Kernel(_) => None,
        }
    }

    /// Every row's score for every class of a multi-class model (`n × k`): its
    /// [`MulticlassModel::decision_function_dataset`] or
    /// [`MulticlassKernelModel::decision_function_dataset`]. A binary model is refused
    /// ([`Error::Parameter`]): its [`Model::decision_function_dataset`] gives one value a row.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::{LinearModel, Model, MulticlassModel}, multiclass::Method, simd::Summation, Dataset};
    /// let class = |w| LinearModel::new(vec![w], 0.0, Summation::Fast);
    /// let model = Model::Multiclass(MulticlassModel::new(Method::OneVsRest, vec!["a".into(), "b".into()], vec![class(1.0)?, class(-1.0)?])?);
    /// let data = Dataset::new(array![[2.0]], array![1.0])?;
    /// assert_eq!(model.class_scores(&data)?, array![[2.0, -2.0]]);
    /// assert!(Model::Linear(class(1.0)?).class_scores(&data).is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn class_scores(&self, data: &Dataset) -> Result<Array2<f64>> {
        match self {
            Model::Multiclass(m) => m.decision_function_dataset(data),
            Model::MulticlassKernel(m) => m.decision_function_dataset(data),
            Model::Linear(_) | Model::Kernel(_) => Err(self.refuse_binary()),
        }
    }

    /// The confusion matrix of a multi-class model on data of its classes (as
    /// [`crate::io::open_multiclass_as`] reads a file against [`Model::classes`]). A binary model is
    /// refused ([`Error::Parameter`]): its [`Model::score`] counts its confusion.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, model::{LinearModel, Model, MulticlassModel}, multiclass::Method, simd::Summation};
    /// let class = |w| LinearModel::new(vec![w], 0.0, Summation::Fast);
    /// let model = Model::Multiclass(MulticlassModel::new(Method::OneVsRest, vec!["a".into(), "b".into()], vec![class(1.0)?, class(-1.0)?])?);
    /// let data = MulticlassDataset::new(array![[2.0], [-1.0]], vec!["a".into(), "b".into()], vec![0, 0])?;
    /// assert_eq!(model.confusion(&data)?.accuracy(), 0.5);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn confusion(&self, data: &MulticlassDataset) -> Result<ConfusionMatrix> {
        match self {
            Model::Multiclass(m) => m.confusion(data),
            Model::MulticlassKernel(m) => m.confusion(data),
            Model::Linear(_) | Model::Kernel(_) => Err(self.refuse_binary()),
        }
    }

    /// The refusal of a multi-class model's question put to a binary model.
    fn refuse_binary(&self) -> Error {
        Error::parameter(
            "model",
            format!(
                "a {} model gives one decision value a row, not a score per class: use \
                 Model::decision_function_dataset()",
                self.kind()
            ),
        )
    }

    /// The refusal of a binary model's question put to a multi-class model.
    fn refuse_classes(&self) -> Error {
        Error::parameter(
            "model",
            format!(
                "a multi-class model scores {} classes, not the sign of one decision value: use \
                 Model::class_scores()",
                self.classes().map_or(0, <[String]>::len)
            ),
        )
    }

    /// `sign(f(x))` for every row of `data`, with sign(0) = +1 (the crate's convention). A
    /// multi-class model is refused ([`Error::Parameter`]): its
    /// [`MulticlassModel::predict_dataset`] gives classes.
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

    /// The decision value `f(x)` of every row of `data` (for a linear model, `w·x + b`). A multi-class
    /// model is refused ([`Error::Parameter`]): its [`MulticlassModel::decision_function_dataset`]
    /// gives `k` scores a row.
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
            Model::Kernel(m) => m.decision_function_dataset(data),
            Model::Multiclass(_) | Model::MulticlassKernel(_) => Err(self.refuse_classes()),
        }
    }

    /// Accuracy, confusion counts and the model's signed margin on labelled data; see [`Score`]. A
    /// multi-class model is refused ([`Error::Parameter`]): its [`MulticlassModel::confusion`] scores
    /// data of its classes.
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
            Model::Kernel(m) => m.score(data),
            Model::Multiclass(_) | Model::MulticlassKernel(_) => Err(self.refuse_classes()),
        }
    }
}

/// The classes of a multi-class model of `n_models` class models: at least two, named as
/// [`check_class_names`] requires, one model each.
pub(crate) fn check_classes(classes: &[String], n_models: usize) -> Result<()> {
    if classes.len() < 2 {
        return Err(Error::parameter(
            "classes",
            format!(
                "a multi-class model has at least two classes, not {}",
                classes.len()
            ),
        ));
    }
    check_class_names(classes)?;
    if n_models != classes.len() {
        return Err(Error::parameter(
            "models",
            format!(
                "{n_models} models for {} classes: one model per class",
                classes.len()
            ),
        ));
    }
    Ok(())
}

/// Class names as a model keeps them: none empty, none named twice.
pub(crate) fn check_class_names(classes: &[String]) -> Result<()> {
    if let Some(empty) = classes.iter().position(String::is_empty) {
        return Err(Error::parameter(
            "classes",
            format!("class {empty} has an empty name"),
        ));
    }
    for (r, class) in classes.iter().enumerate() {
        if classes[..r].contains(class) {
            return Err(Error::parameter(
                "classes",
                format!("the class `{class}` is named twice"),
            ));
        }
    }
    Ok(())
}

/// sign(a) with sign(0) = +1 (CS 536, eq. 2), the crate's prediction rule.
pub(super) fn sign(activations: Array1<f64>) -> Array1<f64> {
    activations.mapv(|a| if a >= 0.0 { 1.0 } else { -1.0 })
}
