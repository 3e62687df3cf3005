//! What a run records about its sequence of examples, for the bounds that are stated over that
//! sequence rather than over the dataset: Freund and Schapire's deviation `D` (every presentation),
//! Shalev-Shwartz and Singer's loss `L` (the mistake rounds) and Passive–Aggressive's cumulative loss.

use serde::Serialize;

/// The examples a run presented, up to and including its last update.
///
/// An online bound such as Freund and Schapire's holds for *the sequence presented*; a later
/// presentation can only add to its deviation `D` and can add no mistake, so the tightest sequence that
/// holds every mistake is the one that ends at the last update. A cyclic or shuffled run visits every
/// row once per epoch, so that sequence is `complete_epochs` whole epochs followed by the rows
/// `last_epoch` of the epoch of the last update (in its visiting order, up to that update): over
/// several epochs every visit counts again, and `D²` grows with the epochs.
///
/// ```
/// use novikoff::perceptron::Presentations;
/// let p = Presentations { complete_epochs: 2, last_epoch: vec![3, 0] };
/// assert_eq!(p.counts(4), vec![3, 2, 2, 3]);
/// assert_eq!(p.total(4), 10);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Presentations {
    /// Whole epochs before the epoch of the last update.
    pub complete_epochs: u64,
    /// The rows presented in the epoch of the last update, up to and including it.
    pub last_epoch: Vec<usize>,
}

impl Presentations {
    /// How many times each of `n` rows was presented.
    ///
    /// ```
    /// let none = novikoff::perceptron::Presentations::default();
    /// assert_eq!(none.counts(2), vec![0, 0]);
    /// ```
    pub fn counts(&self, n: usize) -> Vec<u64> {
        let mut counts = vec![self.complete_epochs; n];
        for &i in &self.last_epoch {
            counts[i] += 1;
        }
        counts
    }

    /// The length of the sequence for `n` rows.
    ///
    /// ```
    /// let p = novikoff::perceptron::Presentations { complete_epochs: 1, last_epoch: vec![1] };
    /// assert_eq!(p.total(3), 4);
    /// ```
    pub fn total(&self, n: usize) -> u64 {
        self.complete_epochs * n as u64 + self.last_epoch.len() as u64
    }
}

/// The sequence-dependent quantities of a run.
///
/// ```
/// use ndarray::array;
/// use novikoff::{perceptron::PerceptronParams, Dataset};
/// let data = Dataset::new(array![[1.0], [-1.0], [2.0]], array![1.0, -1.0, 1.0])?;
/// let fit = PerceptronParams::new().fit(&data)?;
/// // One update, on row 0, in the first epoch.
/// assert_eq!(fit.history.mistakes_per_row, vec![1, 0, 0]);
/// assert_eq!(fit.history.presentations.last_epoch, vec![0]);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct History {
    /// The presentations up to the last update.
    pub presentations: Presentations,
    /// The mistakes (`y·a ≤ 0`) made on each row, over the whole run.
    pub mistakes_per_row: Vec<u64>,
    /// For a Passive–Aggressive run, `Σ ℓₜ²` over the run, with `ℓₜ = max(0, 1 − y·a)` the hinge loss
    /// each presentation suffered before its update: the left side of the paper's loss bounds. `None`
    /// for the other variants, whose passes do not look at the loss of a correct prediction.
    pub squared_loss: Option<f64>,
}

/// Builds a [`History`] during a run.
#[derive(Debug)]
pub(crate) struct HistoryRecorder {
    n: usize,
    mistakes_per_row: Vec<u64>,
    /// `Σ ℓₜ²` so far, for a Passive–Aggressive run.
    squared_loss: Option<f64>,
    /// `(epoch, offset)` of the last update.
    last_update: Option<(usize, usize)>,
    /// The rows of the last epoch that had an update, up to that update.
    last_epoch_rows: Vec<usize>,
}

impl HistoryRecorder {
    pub(crate) fn new(n: usize, passive_aggressive: bool) -> Self {
        Self {
            n,
            mistakes_per_row: vec![0; n],
            squared_loss: passive_aggressive.then_some(0.0),
            last_update: None,
            last_epoch_rows: Vec::new(),
        }
    }

    /// A presentation of `row` at `offset` of `epoch` that the engine reported: a mistake, an update,
    /// or both.
    #[inline]
    pub(crate) fn presented(
        &mut self,
        epoch: usize,
        offset: usize,
        row: usize,
        margin: f64,
        updated: bool,
    ) {
        if margin <= 0.0 {
            self.mistakes_per_row[row] += 1;
        }
        if let Some(sum) = self.squared_loss.as_mut()
            && margin < 1.0
        {
            *sum += (1.0 - margin) * (1.0 - margin);
        }
        if updated {
            self.last_update = Some((epoch, offset));
        }
    }

    /// The end of an epoch visited in the order `visit` (empty: row order): remember its prefix up to
    /// its last update, if it had one.
    pub(crate) fn end_epoch(&mut self, epoch: usize, visit: &[usize]) {
        if let Some((last_epoch, offset)) = self.last_update
            && last_epoch == epoch
        {
            self.last_epoch_rows.clear();
            if visit.is_empty() {
                self.last_epoch_rows.extend(0..=offset);
            } else {
                self.last_epoch_rows.extend_from_slice(&visit[..=offset]);
            }
        }
    }

    pub(crate) fn finish(self) -> History {
        let presentations = match self.last_update {
            Some((epoch, _)) => Presentations {
                complete_epochs: epoch as u64 - 1,
                last_epoch: self.last_epoch_rows,
            },
            None => Presentations::default(),
        };
        debug_assert!(presentations.last_epoch.len() <= self.n);
        History {
            presentations,
            mistakes_per_row: self.mistakes_per_row,
            squared_loss: self.squared_loss,
        }
    }
}
