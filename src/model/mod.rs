//! Saved models: a trained separator kept on disk, loaded again, and used to predict and score.
//!
//! A [`ModelFile`] is one JSON document with everything needed to predict and to know how the model was
//! made:
//!
//! * the **model** itself, a [`Model`] of one of three kinds: [`Model::Linear`] (a [`LinearModel`]:
//!   `w`, `b`, the bias rule's constant `c` and weight `v` with `b = c·v`, and the summation order its
//!   dot products use), [`Model::Multiclass`] (a [`MulticlassModel`]: the classes' names, one linear
//!   model per class, and the method that learnt them, one-vs-rest or the multi-class perceptron), or
//!   [`Model::Kernel`] (a [`KernelModel`]: the kernel, the support vectors and their coefficients);
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
//! The model is tagged by its `kind`. Later learners (a voted list, multi-class kernel models) are new
//! kinds beside these: a file of format version 1
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
mod provenance;
mod score;

use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

pub use file::{FORMAT, FORMAT_VERSION, ModelFile};
pub use kernel::KernelModel;
pub use linear::LinearModel;
pub use multiclass::MulticlassModel;
pub use provenance::{DataSummary, Provenance, RunSummary, TrainingParams};
pub use score::{Confusion, Score};

use crate::dataset::Dataset;
use crate::error::{Error, Result};

/// A saved model, tagged by its kind (`"kind": "linear"` or `"multiclass"` in the file).
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
            Model::Multiclass(_) | Model::Kernel(_) => None,
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
            Model::Linear(_) | Model::Kernel(_) => None,
        }
    }

    /// The refusal of a binary model's question put to a multi-class model.
    fn refuse_classes(m: &MulticlassModel) -> Error {
        Error::parameter(
            "model",
            format!(
                "a multi-class model scores {} classes, not the sign of one decision value: use \
                 Model::multiclass()",
                m.n_classes()
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
            Model::Multiclass(m) => Err(Self::refuse_classes(m)),
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
            Model::Multiclass(m) => Err(Self::refuse_classes(m)),
        }
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
    labelled_predictions(decisions, ["-1", "1"])
}

/// [`predictions_csv`] of a model that names its classes ([`LinearModel::with_classes`]): each row's
/// prediction is the name of the class −1 or +1, quoted as CSV quotes a name with a comma, a quote or a
/// line break.
///
/// ```
/// let classes = ["ham".to_string(), "spam".to_string()];
/// let text = novikoff::model::named_predictions_csv(&classes, &[0.5, -2.0]);
/// assert_eq!(text, "prediction,decision\nspam,0.5\nham,-2\n");
/// ```
pub fn named_predictions_csv(classes: &[String; 2], decisions: &[f64]) -> String {
    labelled_predictions(
        decisions,
        [&csv_field(&classes[0]), &csv_field(&classes[1])],
    )
}

/// Write [`named_predictions_csv`] to `path` atomically.
///
/// ```
/// let path = std::env::temp_dir().join(format!("novikoff-doc-named-{}.csv", std::process::id()));
/// novikoff::model::save_named_predictions(&path, &["0".into(), "1".into()], &[-1.5])?;
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "prediction,decision\n0,-1.5\n");
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn save_named_predictions(
    path: impl AsRef<std::path::Path>,
    classes: &[String; 2],
    decisions: &[f64],
) -> Result<()> {
    write_text(path.as_ref(), &named_predictions_csv(classes, decisions))
}

/// The binary predictions file with `labels[0]` for a negative decision and `labels[1]` elsewhere.
fn labelled_predictions(decisions: &[f64], labels: [&str; 2]) -> String {
    use std::fmt::Write;
    let mut text = String::with_capacity(24 * decisions.len() + 20);
    text.push_str("prediction,decision\n");
    for &a in decisions {
        let label = labels[usize::from(a >= 0.0)];
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
    write_text(path.as_ref(), &predictions_csv(decisions))
}

/// The predictions file of `novikoff predict` with a multi-class model: a header `prediction` and one
/// column `decision:CLASS` per class, then one row per example with its predicted class (the first
/// highest score) and every class's score in the shortest decimal that reads back to the same bits.
/// A name with a comma, a quote or a line break is quoted as CSV quotes it.
///
/// ```
/// use ndarray::array;
/// let classes = ["cat".to_string(), "dog, big".to_string()];
/// let text = novikoff::model::class_predictions_csv(&classes, &array![[0.5, -2.0], [1.0, 1.0], [0.0, 0.25]]);
/// assert_eq!(text, "prediction,decision:cat,\"decision:dog, big\"\ncat,0.5,-2\ncat,1,1\n\"dog, big\",0,0.25\n");
/// ```
///
/// # Panics
/// When `scores` has not one column per class (a caller's bug: the scores come from the model).
pub fn class_predictions_csv(classes: &[String], scores: &Array2<f64>) -> String {
    use std::fmt::Write;
    assert_eq!(scores.ncols(), classes.len(), "one score column per class");
    let names: Vec<String> = classes.iter().map(|c| csv_field(c)).collect();
    let mut text = String::with_capacity((24 * classes.len() + 16) * (scores.nrows() + 1));
    text.push_str("prediction");
    for class in classes {
        text.push(',');
        text.push_str(&csv_field(&format!("decision:{class}")));
    }
    text.push('\n');
    for row in scores.rows() {
        let row = row.as_slice().expect("standard layout");
        text.push_str(&names[crate::multiclass::argmax(row)]);
        for score in row {
            write!(text, ",{score}").expect("writing to a String cannot fail");
        }
        text.push('\n');
    }
    text
}

/// Write [`class_predictions_csv`] to `path` atomically.
///
/// ```
/// use ndarray::array;
/// let path = std::env::temp_dir().join(format!("novikoff-doc-class-predictions-{}.csv", std::process::id()));
/// novikoff::model::save_class_predictions(&path, &["a".into(), "b".into()], &array![[1.0, 2.0]])?;
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "prediction,decision:a,decision:b\nb,1,2\n");
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn save_class_predictions(
    path: impl AsRef<std::path::Path>,
    classes: &[String],
    scores: &Array2<f64>,
) -> Result<()> {
    write_text(path.as_ref(), &class_predictions_csv(classes, scores))
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

/// A CSV field: quoted, with its quotes doubled, when it holds a comma, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn write_text(path: &std::path::Path, text: &str) -> Result<()> {
    crate::io::write_atomically(path, |out| {
        use std::io::Write;
        out.write_all(text.as_bytes())
            .map_err(|e| Error::io(path, e))
    })
}

/// sign(a) with sign(0) = +1 (CS 536, eq. 2), the crate's prediction rule.
pub(super) fn sign(activations: Array1<f64>) -> Array1<f64> {
    activations.mapv(|a| if a >= 0.0 { 1.0 } else { -1.0 })
}
