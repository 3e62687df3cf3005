//! The voted perceptron of Freund and Schapire (1999): every weight vector of the run votes, weighted by
//! the number of presentations it survived.

use ndarray::Array1;
use serde::Serialize;

use super::averaged::{accuracy_of, check_features, sign};
use crate::dataset::{Dataset, RowView};
use crate::error::Result;

/// The voted perceptron: the weight vectors `w₀, w₁, …, w_K` of a run (before the first update and
/// after each one) with their survival counts `c₀, …, c_K`, predicting `sign(Σₖ cₖ·sign(wₖ·x + bₖ))`
/// with sign(0) = +1.
///
/// Following Freund and Schapire's pseudo-code, a presentation is credited to the weights that result
/// from it: `cₖ` counts the presentation of update `k` and the correct ones after it, so the counts sum
/// to the run's presentations `T`.
///
/// The vectors are not stored one by one (that would be `K·d` values): the vote keeps the rows the run
/// updated on (each once) and, per update, the row and its signed step `s·y`. The activations
/// `aₖ = wₖ·x + bₖ` of a new point are then accumulated update by update,
/// `aₖ = aₖ₋₁ + s·y·(xᵢ·x + c²)` (the dual form), so they may differ from a fresh dot product with
/// `wₖ` by rounding. Memory: the stored entries of the distinct updated rows (at most the dataset)
/// plus 12 bytes per update.
///
/// ```
/// use ndarray::array;
/// use novikoff::{perceptron::{PerceptronParams, Variant}, Dataset};
/// let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
/// let data = Dataset::new(x, array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])?;
/// let fit = PerceptronParams::new().variant(Variant::Voted).fit(&data)?;
/// let voted = fit.voted.as_ref().unwrap();
/// // Updates at presentations 1, 3 and 5 of the first epoch, then a clean epoch: 12 presentations.
/// assert_eq!(voted.survival(), &[0, 2, 2, 8]);
/// assert_eq!(voted.accuracy(&data)?, 1.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Voted {
    n_features: usize,
    /// `w₀` (empty for the zero vector) and `b₀`.
    start_w: Vec<f64>,
    start_b: f64,
    /// The augmentation constant `c`.
    c: f64,
    /// The distinct updated rows, compressed: row `s` holds `indices[indptr[s]..indptr[s + 1]]`.
    indptr: Vec<usize>,
    indices: Vec<usize>,
    values: Vec<f64>,
    /// Per update: the slot of its row and its signed step `s·y`.
    slots: Vec<u32>,
    steps: Vec<f64>,
    /// `c₀, …, c_K`.
    survival: Vec<u64>,
}

impl Voted {
    /// The survival counts `c₀, …, c_K`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::{PerceptronParams, Variant}, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = PerceptronParams::new().variant(Variant::Voted).fit(&data)?;
    /// assert_eq!(fit.voted.unwrap().survival().iter().sum::<u64>(), 4); // two epochs of two rows
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn survival(&self) -> &[u64] {
        &self.survival
    }

    /// The number of weight vectors that vote, `K + 1`.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::{PerceptronParams, Variant}, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = PerceptronParams::new().variant(Variant::Voted).fit(&data)?;
    /// assert_eq!(fit.voted.unwrap().voters(), 2); // w₀ = 0 and w₁ after the one update
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn voters(&self) -> usize {
        self.survival.len()
    }

    /// The vote `Σₖ cₖ·sign(wₖ·xᵢ + bₖ)` for every row of a dataset of either storage.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::{PerceptronParams, Variant}, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = PerceptronParams::new().variant(Variant::Voted).fit(&data)?;
    /// // w₀ = 0 survived 0 presentations; w₁ = (1) the 4 others (sign(0) = +1 counts for w₀).
    /// assert_eq!(fit.voted.unwrap().vote_dataset(&data)?.to_vec(), vec![4.0, -4.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Shape`](crate::Error::Shape) when the data have another number of features.
    pub fn vote_dataset(&self, data: &Dataset) -> Result<Array1<f64>> {
        check_features(self.n_features, data)?;
        let slots = self.indptr.len() - 1;
        let c_sq = self.c * self.c;
        let mut products = vec![0.0; slots];
        Ok((0..data.n_samples())
            .map(|i| {
                let x = data.row_view(i);
                let mut dense = None;
                for (s, product) in products.iter_mut().enumerate() {
                    let range = self.indptr[s]..self.indptr[s + 1];
                    *product = sparse_dot(
                        &self.indices[range.clone()],
                        &self.values[range],
                        x,
                        &mut dense,
                        self.n_features,
                    );
                }
                let mut activation = if self.start_w.is_empty() {
                    0.0
                } else {
                    x.dot(&self.start_w, crate::simd::Summation::Sequential)
                } + self.start_b;
                let mut vote = self.survival[0] as f64 * sign(activation);
                for (k, (&slot, &step)) in self.slots.iter().zip(&self.steps).enumerate() {
                    activation += step * (products[slot as usize] + c_sq);
                    vote += self.survival[k + 1] as f64 * sign(activation);
                }
                vote
            })
            .collect())
    }

    /// `sign(vote)` for every row, with sign(0) = +1.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::{PerceptronParams, Variant}, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = PerceptronParams::new().variant(Variant::Voted).fit(&data)?;
    /// assert_eq!(fit.voted.unwrap().predict_dataset(&data)?.to_vec(), vec![1.0, -1.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Voted::vote_dataset`].
    pub fn predict_dataset(&self, data: &Dataset) -> Result<Array1<f64>> {
        Ok(self.vote_dataset(data)?.mapv(sign))
    }

    /// The fraction of `data` the vote labels correctly.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::{PerceptronParams, Variant}, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = PerceptronParams::new().variant(Variant::Voted).fit(&data)?;
    /// assert_eq!(fit.voted.unwrap().accuracy(&data)?, 1.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Voted::vote_dataset`].
    pub fn accuracy(&self, data: &Dataset) -> Result<f64> {
        Ok(accuracy_of(&self.predict_dataset(data)?, data))
    }
}

/// `Σ values·x` over the stored entries `indices`, reading `x` densely (a dense copy of a sparse `x`
/// is made once per point, on first use).
fn sparse_dot(
    indices: &[usize],
    values: &[f64],
    x: RowView<'_>,
    dense: &mut Option<Vec<f64>>,
    d: usize,
) -> f64 {
    let x = match x {
        RowView::Dense(x) => x,
        sparse => dense.get_or_insert_with(|| {
            let mut row = vec![0.0; d];
            for (j, v) in sparse.entries() {
                row[j] = v;
            }
            row
        }),
    };
    indices
        .iter()
        .zip(values)
        .fold(0.0, |acc, (&j, &v)| acc + v * x[j])
}

/// Collects the vote during a run.
#[derive(Debug)]
pub(crate) struct VoteRecorder {
    voted: Voted,
    slot_of_row: Vec<u32>,
    /// The presentation of each update.
    trials: Vec<u64>,
}

impl VoteRecorder {
    pub(crate) fn new(n_samples: usize, start_w: &[f64], start_b: f64, c: f64) -> Self {
        let zero_start = start_w.iter().all(|&v| v == 0.0);
        Self {
            voted: Voted {
                n_features: start_w.len(),
                start_w: if zero_start {
                    Vec::new()
                } else {
                    start_w.to_vec()
                },
                start_b,
                c,
                indptr: vec![0],
                indices: Vec::new(),
                values: Vec::new(),
                slots: Vec::new(),
                steps: Vec::new(),
                survival: Vec::new(),
            },
            slot_of_row: vec![u32::MAX; n_samples],
            trials: Vec::new(),
        }
    }

    /// The update `w += signed·x` on `row` at the 1-based presentation `trial`.
    pub(crate) fn update(&mut self, trial: u64, row: usize, signed: f64, x: RowView<'_>) {
        let v = &mut self.voted;
        if self.slot_of_row[row] == u32::MAX {
            // Rows are at most the dataset's, whose count fits a u32 for any vote that fits in memory.
            self.slot_of_row[row] = u32::try_from(v.indptr.len() - 1).unwrap_or(u32::MAX - 1);
            for (j, value) in x.entries().filter(|&(_, value)| value != 0.0) {
                v.indices.push(j);
                v.values.push(value);
            }
            v.indptr.push(v.indices.len());
        }
        v.slots.push(self.slot_of_row[row]);
        v.steps.push(signed);
        self.trials.push(trial);
    }

    /// The vote after `trials` presentations.
    pub(crate) fn finish(mut self, total: u64) -> Voted {
        let mut survival = Vec::with_capacity(self.trials.len() + 1);
        let mut previous = 1;
        for &t in &self.trials {
            survival.push(t - previous);
            previous = t;
        }
        survival.push(total + 1 - previous);
        self.voted.survival = survival;
        self.voted
    }
}
