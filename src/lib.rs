//! # novikoff
//!
//! The perceptron and its convergence theorem, computed exactly and checked.
//!
//! The perceptron keeps a weight vector `w` and a bias `b`. It visits labelled examples `(x, y)` with
//! `y = ±1`, and whenever `y·(w·x + b) ≤ 0` (a *mistake*) it updates `w ← w + η·y·x` (and `b` by its bias
//! rule). The **convergence theorem** (Block 1962, Novikoff 1962) says that if some unit vector separates
//! the data with margin `γ` and every example lies within radius `R` of the origin, the perceptron makes at
//! most `(R/γ)²` mistakes, whatever the order of the examples and however many there are.
//!
//! The crate follows five lecture texts (the "seeds") and names every variant after its source:
//!
//! * [`perceptron`]: training in every textbook form: no bias, `b += η·y`, Novikoff's `b += η·y·R²`,
//!   cyclic, shuffled or online, with an optional per-update [trace](perceptron::Trace);
//! * [`bounds`]: every form of the mistake bound with its hypotheses, checked on a run, with the proof's
//!   two inequalities verified after every update, and the tight and adversarial cases;
//! * [`dataset`]: the validated [`Dataset`] and the proof's simplifications (add a dimension, negate the
//!   negatives, normalise to unit length), and the radius `R`;
//! * [`simd`]: the hot loop: the dot product with a documented summation order, identical bits on
//!   every CPU, and the training pass, with SIMD code (AVX-512F, AVX2, SSE2) chosen at run time;
//! * [`margin`]: the radius `R`, the margin of a separator, and the exact maximum margin `γ*` with a
//!   certified bracket, or a certificate that no separator exists;
//! * [`io`]: reading and writing CSV, LIBSVM and NumPy files, with errors that name the file, the line and
//!   the column;
//! * [`generate`]: seeded synthetic datasets with a prescribed margin and radius, and worst cases;
//! * [`preprocess`]: standardise, min–max, unit ball, bias column, each with its effect on R and γ;
//! * [`experiment`]: batch experiments over grids of datasets, rules, orders, η and seeds, in parallel,
//!   reproducible, resumable and shardable; [`plot`] draws their figures;
//! * [`textbook`]: the worked examples of the source documents, built in; [`bundled`]: five small real
//!   datasets (iris, wine, breast cancer, digits, penguins) with their licences;
//! * [`kernel`]: kernels, the kernel (dual) perceptron with a Gram-row cache, the certified kernel margin
//!   γ_K* and the theorem in feature space; [`multiclass`]: one-vs-rest and the multi-class perceptron
//!   on Kesler's lifted vectors, with their bounds and confusion matrices;
//! * [`model`]: saved models: a trained separator written to JSON with how it was made, read back to
//!   predict bit for bit and to score on labelled data;
//! * [`traits`]: `Fit` and `Predict` in the shape of linfa's, for code written against it.
//!
//! ## Architecture: the data's path
//!
//! ```text
//!  file, stream ──► io ─────┐
//!  generator ────► generate ┼──► Dataset (x: Array2<f64> row-major, or CSR CsrMatrix; y = ±1)
//!  textbook ────────────────┘        │  every algorithm reads a row through dataset::RowView; what is
//!                                    │  derived from the data is computed once by its owner and cached:
//!                                    │  R and the row lengths, the largest value, the labels' sign bits
//!        ┌───────────────────────────┼───────────────────────────────┐
//!        ▼                           ▼                               ▼
//!  perceptron::PerceptronParams   margin::max_margin              preprocess
//!   .check() → Perceptron          → MarginResult (bracket,        (standardise, unit ball, …)
//!   .fit(&data) → Fit                 separator or certificate)
//!   every bias rule = Augmentation   │
//!   (x, c); simd: the pass on rows   ▼
//!        │                  bounds::Geometry<'data> (borrows its dataset; the four margin problems,
//!        │                           │               solved once per dataset)
//!        └──────────► bounds::report(&geometry, rules, options)
//!                       → Report { geometry, rules: [RuleReport { verdict: Verdict, … }] }
//!                       → Report::failures() → [Failure]   (the one pass/fail policy, typed)
//!                                    │
//!        ┌───────────────────────────┼───────────────────────────────┐
//!        ▼                           ▼                               ▼
//!  CLI `verify` (renders;     experiment: spec ← plan ← measure   plot, notebooks
//!  exit 1 iff failures)       ← runner; a TaskRecord per run,     (read the records
//!                             built from the Verdict, with its    and the JSON)
//!                             failures; store, shard, lock, merge
//! ```
//!
//! The layers only import downwards: `error` and `rng` at the bottom; `simd`; `dataset`; `perceptron`,
//! `margin`, `io`, `generate` and `preprocess`; `bounds`; `experiment`; `plot`; the CLI on top.
//! `.ci/module-cycles.py` checks it on every CI run, between modules and between the files of one
//! module. The library decides every verdict; the CLI parses arguments and renders what it returns.
//!
//! ## Conventions
//!
//! * A **mistake** is `y·(w·x + b) ≤ 0`: a zero activation is a mistake. Prediction uses sign(0) = +1.
//! * **`mistakes`** is the number of updates; **`epochs`** counts the passes including the final pass
//!   with no mistake.
//! * The **radius** `R = maxᵢ ‖xᵢ‖` is measured about the origin, never about the centroid.
//!
//! ## Example: the worked example of seed 004
//!
//! ```
//! use ndarray::array;
//! use novikoff::{perceptron::PerceptronParams, Dataset};
//!
//! let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
//! let y = array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0];
//! let data = Dataset::new(x, y)?;
//!
//! let fit = PerceptronParams::new().max_epochs(100).check()?.fit(&data)?;
//! assert_eq!(fit.w.to_vec(), vec![3.0, 1.0]);
//! assert_eq!((fit.mistakes, fit.epochs, fit.converged), (3, 2, true));
//! // R² = 5 and γ = 1 for this data, so the theorem allows at most 5 mistakes.
//! assert_eq!(data.radius().powi(2).round(), 5.0);
//! # Ok::<(), novikoff::Error>(())
//! ```
#![warn(missing_docs)]

pub mod bounds;
pub(crate) mod budget;
pub mod bundled;
pub mod dataset;
pub(crate) mod detmath;
#[doc(hidden)]
pub mod display;
pub mod error;
pub mod experiment;
pub mod generate;
pub mod io;
pub mod kernel;
pub mod margin;
pub mod model;
pub mod multiclass;
pub mod perceptron;
pub mod plot;
pub mod preprocess;
#[doc(hidden)]
pub mod rng;
pub mod simd;
pub mod textbook;
pub mod traits;

pub use dataset::Dataset;
pub use error::{Error, Location, Result};

/// The README's code blocks, compiled and run as doctests so that they cannot go stale.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
