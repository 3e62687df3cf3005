//! The shape Rust's machine-learning crates share (linfa's `Fit` and `Predict`), so that code written
//! against it can take a novikoff learner. novikoff does not depend on linfa (it pins an older `sprs`);
//! the traits are its own, with the same meaning.
//!
//! ```
//! use novikoff::traits::{Fit, Predict};
//! use novikoff::{perceptron::PerceptronParams, textbook};
//!
//! fn train_and_score<L: Fit>(learner: &L, data: &novikoff::Dataset) -> novikoff::Result<f64>
//! where
//!     L::Object: Predict,
//! {
//!     let model = learner.fit(data)?;
//!     let predicted = model.predict(data.x())?;
//!     let correct = predicted.iter().zip(data.labels()).filter(|(p, y)| p == y).count();
//!     Ok(correct as f64 / data.n_samples() as f64)
//! }
//!
//! let data = textbook::example("seed004").unwrap();
//! assert_eq!(train_and_score(&PerceptronParams::new().check()?, &data)?, 1.0);
//! # Ok::<(), novikoff::Error>(())
//! ```

use ndarray::{Array1, ArrayView2};

use crate::dataset::Dataset;
use crate::error::Result;
use crate::perceptron::{self, Perceptron};

/// A validated learner that trains on a dataset.
pub trait Fit {
    /// What training returns: a fitted model.
    type Object;

    /// Train on `data`.
    fn fit(&self, data: &Dataset) -> Result<Self::Object>;
}

/// A fitted model that labels new examples.
pub trait Predict {
    /// The activation `w·xᵢ + b` of every row of `x`.
    fn decision_function(&self, x: ArrayView2<'_, f64>) -> Result<Array1<f64>>;

    /// The label of every row of `x`: the sign of its activation, with sign(0) = +1.
    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array1<f64>> {
        Ok(self
            .decision_function(x)?
            .mapv(|a| if a >= 0.0 { 1.0 } else { -1.0 }))
    }
}

impl Fit for Perceptron {
    type Object = perceptron::Fit;

    fn fit(&self, data: &Dataset) -> Result<perceptron::Fit> {
        Perceptron::fit(self, data)
    }
}

impl Predict for perceptron::Fit {
    fn decision_function(&self, x: ArrayView2<'_, f64>) -> Result<Array1<f64>> {
        perceptron::Fit::decision_function(self, x)
    }

    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array1<f64>> {
        perceptron::Fit::predict(self, x)
    }
}
