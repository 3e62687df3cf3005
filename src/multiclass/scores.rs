//! The `n × k` scores `w_r·x + b_r` of a multi-class predictor: one loop for the multi-class
//! perceptron's fit and for a saved multi-class model, so that both give the same bits.

use ndarray::Array2;

use super::confusion::{ConfusionMatrix, argmax};
use crate::dataset::{Dataset, MulticlassDataset};
use crate::error::{Error, Result};
use crate::simd::Summation;

/// Sparse rows [`class_scores`] scores together, class by class.
const SCORED_BLOCK: usize = 1024;

/// One class's linear score: `w·x + b`, summed in `summation`'s order.
pub(crate) struct ClassScorer<'a> {
    pub w: &'a [f64],
    pub b: f64,
    pub summation: Summation,
}

/// Every row's score for every class (`n × k`). The caller has checked the data's dimension.
pub(crate) fn class_scores(data: &Dataset, classes: &[ClassScorer<'_>]) -> Array2<f64> {
    let mut out = Array2::zeros((data.n_samples(), classes.len()));
    // Sparse rows are scored a block at a time, class by class: a block's gathers then read one
    // class's weights, which may stay in a cache that all `k` classes' would not.
    let block = if data.is_sparse() { SCORED_BLOCK } else { 1 };
    for first in (0..data.n_samples()).step_by(block) {
        let rows = first..(first + block).min(data.n_samples());
        for (r, class) in classes.iter().enumerate() {
            for i in rows.clone() {
                out[[i, r]] = data.row_view(i).dot(class.w, class.summation) + class.b;
            }
        }
    }
    out
}

/// The class of every row: the highest score, the lowest index on a tie (numpy's `argmax`).
pub(crate) fn predicted_classes(scores: &Array2<f64>) -> Vec<usize> {
    scores
        .rows()
        .into_iter()
        .map(|row| argmax(row.as_slice().expect("standard layout")))
        .collect()
}

/// The confusion matrix of a predictor of `classes` on labelled data, which must have those classes
/// in that order (as [`crate::io::open_multiclass_as`] reads a held-out file).
pub(crate) fn confusion_on(
    classes: &[String],
    data: &MulticlassDataset,
    predict: impl FnOnce(&Dataset) -> Result<Vec<usize>>,
) -> Result<ConfusionMatrix> {
    if data.classes() != classes {
        return Err(Error::parameter(
            "classes",
            "the data's classes are not the training classes: read them with open_multiclass_as",
        ));
    }
    ConfusionMatrix::new(classes.to_vec(), data.labels(), &predict(data.features())?)
}
