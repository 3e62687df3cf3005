//! The confusion matrix of a multi-class predictor.

use serde::Serialize;

use crate::error::{Error, Result};

/// `counts[t][p]`: how many examples of true class `t` were predicted as class `p` (scikit-learn's
/// `confusion_matrix`, rows the truth).
///
/// ```
/// use novikoff::multiclass::ConfusionMatrix;
/// let classes = vec!["a".to_string(), "b".to_string()];
/// let m = ConfusionMatrix::new(classes, &[0, 0, 1, 1], &[0, 1, 1, 1])?;
/// assert_eq!(m.counts, vec![vec![1, 1], vec![0, 2]]);
/// assert_eq!(m.accuracy(), 0.75);
/// assert_eq!(m.recall(), vec![Some(0.5), Some(1.0)]);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfusionMatrix {
    /// The class names, in the order of the rows and columns.
    pub classes: Vec<String>,
    /// `counts[true][predicted]`.
    pub counts: Vec<Vec<u64>>,
}

impl ConfusionMatrix {
    /// Count the pairs `(truth[i], predicted[i])`.
    ///
    /// # Errors
    /// [`Error::Shape`] when the two lists differ in length; [`Error::Parameter`] for an index beyond
    /// the classes.
    pub fn new(classes: Vec<String>, truth: &[usize], predicted: &[usize]) -> Result<Self> {
        if truth.len() != predicted.len() {
            return Err(Error::Shape {
                what: "predictions against labels",
                expected: truth.len(),
                found: predicted.len(),
            });
        }
        let k = classes.len();
        let mut counts = vec![vec![0u64; k]; k];
        for (&t, &p) in truth.iter().zip(predicted) {
            if t >= k || p >= k {
                return Err(Error::parameter(
                    "classes",
                    format!("class index {} is beyond the {k} classes", t.max(p)),
                ));
            }
            counts[t][p] += 1;
        }
        Ok(Self { classes, counts })
    }

    /// The fraction on the diagonal.
    pub fn accuracy(&self) -> f64 {
        let total: u64 = self.counts.iter().flatten().sum();
        let right: u64 = (0..self.counts.len()).map(|c| self.counts[c][c]).sum();
        if total == 0 {
            0.0
        } else {
            right as f64 / total as f64
        }
    }

    /// Each class's recall (the fraction of its examples predicted right), `None` for a class with
    /// no example.
    pub fn recall(&self) -> Vec<Option<f64>> {
        self.counts
            .iter()
            .enumerate()
            .map(|(c, row)| {
                let total: u64 = row.iter().sum();
                (total > 0).then(|| row[c] as f64 / total as f64)
            })
            .collect()
    }

    /// The total number of examples counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().flatten().sum()
    }
}

/// The index of the largest score, the lowest index on a tie (numpy's `argmax`).
pub(crate) fn argmax(scores: &[f64]) -> usize {
    let mut best = 0;
    for (r, &s) in scores.iter().enumerate().skip(1) {
        if s > scores[best] {
            best = r;
        }
    }
    best
}
