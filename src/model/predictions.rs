//! The predictions files of `novikoff predict`: one row per example, its predicted label or class and
//! its decision values in the shortest decimal that reads back to the same bits.

use std::path::Path;

use ndarray::Array2;

use super::Model;
use crate::dataset::Dataset;
use crate::error::{Error, Result};

impl Model {
    /// The predictions file of `novikoff predict` for this model on `data`: a multi-class model's
    /// [`class_predictions_csv`], a binary model's [`named_predictions_csv`] when it names its
    /// classes, else [`predictions_csv`].
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::{LinearModel, Model}, simd::Summation, Dataset};
    /// let model = Model::Linear(LinearModel::new(vec![1.0], 0.0, Summation::Fast)?.with_classes("no", "yes")?);
    /// let data = Dataset::new(array![[2.0], [-1.0]], array![1.0, -1.0])?;
    /// assert_eq!(model.predictions_csv(&data)?, "prediction,decision\nyes,2\nno,-1\n");
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Shape`] for data of another dimension.
    pub fn predictions_csv(&self, data: &Dataset) -> Result<String> {
        if let Some(classes) = self.classes() {
            return Ok(class_predictions_csv(classes, &self.class_scores(data)?));
        }
        let decisions = self.decision_function_dataset(data)?.to_vec();
        Ok(match self.linear().and_then(|m| m.classes()) {
            Some(classes) => named_predictions_csv(classes, &decisions),
            None => predictions_csv(&decisions),
        })
    }

    /// Write [`Model::predictions_csv`] to `path` atomically.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::{LinearModel, Model}, simd::Summation, Dataset};
    /// let model = Model::Linear(LinearModel::new(vec![1.0], 0.0, Summation::Fast)?);
    /// let data = Dataset::new(array![[-1.5]], array![-1.0])?;
    /// let path = std::env::temp_dir().join(format!("novikoff-doc-model-predictions-{}.csv", std::process::id()));
    /// model.save_predictions(&data, &path)?;
    /// assert_eq!(std::fs::read_to_string(&path).unwrap(), "prediction,decision\n-1,-1.5\n");
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Model::predictions_csv`], and an I/O error naming `path`.
    pub fn save_predictions(&self, data: &Dataset, path: impl AsRef<Path>) -> Result<()> {
        write_text(path.as_ref(), &self.predictions_csv(data)?)
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

/// [`predictions_csv`] of a model that names its classes ([`LinearModel::with_classes`](super::LinearModel::with_classes)): each row's
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
pub fn save_predictions(path: impl AsRef<Path>, decisions: &[f64]) -> Result<()> {
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
    path: impl AsRef<Path>,
    classes: &[String],
    scores: &Array2<f64>,
) -> Result<()> {
    write_text(path.as_ref(), &class_predictions_csv(classes, scores))
}

/// A CSV field: quoted, with its quotes doubled, when it holds a comma, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn write_text(path: &Path, text: &str) -> Result<()> {
    crate::io::write_atomically(path, |out| {
        use std::io::Write;
        out.write_all(text.as_bytes())
            .map_err(|e| Error::io(path, e))
    })
}
