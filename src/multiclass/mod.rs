//! Multi-class learning: one-vs-rest, and the multi-class perceptron with its bound on Kesler's lifted
//! vectors.
//!
//! A dataset with `k ≥ 2` classes ([`MulticlassDataset`], read with [`crate::io::open_multiclass`]) is
//! learnt in one of two ways ([`Method`]):
//!
//! * **one-vs-rest** ([`OneVsRest`]): `k` binary problems, class `r` against the others, run in parallel,
//!   each with its own check of the binary theorem; the prediction is the class with the highest
//!   decision value. The binary learner may be the perceptron or the kernel perceptron.
//! * **the multi-class perceptron** ([`MulticlassPerceptron`], Kesler's construction as in Duda and Hart
//!   1973; Collins 2002; Crammer and Singer 2003): one weight vector per class; a mistake moves the true
//!   class towards the example and the highest-scoring wrong class away. Its bound is the binary theorem
//!   on Kesler's lifted vectors `Φ(x, y) − Φ(x, r)`, with the radius and the margin measured in the
//!   lifted space and the maximum multi-class margin certified like the binary one ([`verify()`]).
//!
//! ```
//! use ndarray::array;
//! use novikoff::{dataset::MulticlassDataset, multiclass::{self, MulticlassPerceptronParams}};
//! let data = MulticlassDataset::new(
//!     array![[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0], [2.0, 0.3], [0.2, 2.0]],
//!     vec!["x".into(), "y".into(), "z".into()],
//!     vec![0, 1, 2, 0, 1],
//! )?;
//! let verdict = multiclass::verify(&data, &MulticlassPerceptronParams::new())?;
//! assert!(verdict.converged && verdict.holds == Some(true));
//! assert_eq!(verdict.confusion.accuracy(), 1.0);
//! # Ok::<(), novikoff::Error>(())
//! ```

mod class_weights;
mod confusion;
mod ovr;
mod perceptron;
mod report;
mod scores;
mod verify;

use serde::{Deserialize, Serialize};

pub use crate::dataset::MulticlassDataset;
pub use confusion::ConfusionMatrix;
pub(crate) use confusion::argmax;
pub use ovr::{BinaryLearner, ClassVerdict, OneVsRest, OvrClass};
pub use perceptron::{MulticlassFit, MulticlassPerceptron, MulticlassPerceptronParams};
pub use report::MulticlassRuns;
pub(crate) use scores::{ClassScorer, class_scores, confusion_on, predicted_classes};
pub use verify::{LiftedGeometry, MulticlassBound, MulticlassVerdict, verify, verify_with};

use crate::error::{Error, Result};

/// How a multi-class problem is learnt.
///
/// ```
/// use novikoff::multiclass::Method;
/// assert_eq!(Method::parse("kesler")?, Method::Kesler);
/// assert_eq!(Method::OneVsRest.name(), "ovr");
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// One binary problem per class.
    #[serde(rename = "ovr")]
    OneVsRest,
    /// The multi-class perceptron (Kesler's construction).
    Kesler,
}

impl Method {
    /// `ovr` or `kesler`.
    pub fn name(self) -> &'static str {
        match self {
            Method::OneVsRest => "ovr",
            Method::Kesler => "kesler",
        }
    }

    /// Parse `ovr` (or `one-vs-rest`) and `kesler` (or `crammer-singer`, `multiclass`).
    ///
    /// ```
    /// assert!(novikoff::multiclass::Method::parse("ovo").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "ovr" | "one-vs-rest" => Ok(Method::OneVsRest),
            "kesler" | "crammer-singer" | "multiclass" => Ok(Method::Kesler),
            other => Err(Error::parameter(
                "multiclass",
                format!("unknown multi-class method `{other}`: expected ovr or kesler"),
            )),
        }
    }
}
