//! Kernels `K(x, z) = φ(x)·φ(z)`, the kernel (dual) perceptron, and the convergence theorem in the
//! feature space.
//!
//! The perceptron's theorem holds in any inner-product space (Aizerman, Braverman and Rozonoer 1964;
//! Schölkopf and Smola, *Learning with Kernels*, §7.1 and ch. 2). With a kernel, the examples are the
//! points `φ(xᵢ)` of a reproducing kernel Hilbert space, the weights are `w = Σⱼ αⱼ·η·yⱼ·φ(xⱼ)` (the
//! mistake counts αⱼ are all the run keeps), and every quantity of the theorem is an inner product:
//!
//! * the radius `R_K = maxᵢ ‖φ(xᵢ)‖ = maxᵢ √K(xᵢ, xᵢ)` ([`radius`]);
//! * the maximum margin `γ_K*`, a nearest-point problem in the convex hulls of the `yᵢφ(xᵢ)` that reads
//!   the Gram matrix only, certified with a rigorous bracket or a checkable certificate
//!   ([`max_margin`]);
//! * the bound `(R_K/γ_K*)²` and its bias forms, through the augmented kernel `K̂ = K + c²` of the bias
//!   rule `c` ([`verify()`]);
//! * the proof's inequalities after every update: `u·w_k = Σⱼ αⱼηyⱼ·(u·φ(xⱼ))` and
//!   `‖w_k‖² = η²·αᵀ(YK̂Y)α`, maintained incrementally ([`KernelInvariantCheck`]).
//!
//! | kernel | `K(x, z)` | parameters (scikit-learn's names and defaults) |
//! |---|---|---|
//! | linear | `x·z` | — |
//! | poly | `(γ·x·z + c₀)^degree` | `degree = 3`, `coef0 = 0`, `gamma = "scale"` |
//! | rbf | `exp(−γ‖x − z‖²)` | `gamma = "scale"`, or a bandwidth σ with `γ = 1/(2σ²)` |
//! | precomputed | a [`GramMatrix`] the user supplies | — |
//!
//! **Memory.** Rows of the Gram matrix are computed on demand and cached within a budget
//! ([`DEFAULT_CACHE_BYTES`], 200 MiB as scikit-learn's `cache_size`); the whole `n × n` matrix is formed,
//! in parallel, only when it fits ([`GramCache`]).
//!
//! ```
//! use ndarray::array;
//! use novikoff::{kernel::{self, Gamma, KernelParams, KernelPerceptronParams}, Dataset};
//! // XOR: no line separates it; (x·z + 1)² does.
//! let xor = Dataset::new(array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]], array![1., -1., -1., 1.])?;
//! let poly = KernelParams::polynomial(2).coef0(1.0).gamma(Gamma::Value(1.0)).check()?;
//! let fit = KernelPerceptronParams::new(poly.clone()).check()?.fit(&xor)?;
//! assert!(fit.converged);
//! let verdict = kernel::verify(&xor, &KernelPerceptronParams::new(poly))?;
//! assert_eq!(verdict.holds, Some(true));
//! assert!(verdict.fit.mistakes as f64 <= verdict.bound.unwrap());
//! # Ok::<(), novikoff::Error>(())
//! ```

mod cache;
mod dual;
mod eval;
mod explicit;
mod fit;
mod function;
mod geometry;
mod gram;
mod interval;
mod invariants;
mod learner;
mod margin;
mod params;
mod perceptron;
mod run;
mod soft;
mod verify;

pub use cache::{CacheStats, DEFAULT_CACHE_BYTES, GramCache};
pub use eval::EXP_ULPS;
pub use fit::KernelFit;
pub(crate) use fit::dual_decisions;
pub use function::{Kernel, KernelKind, KernelSummary};
pub use geometry::{KernelGeometry, KernelGeometrySummary, KernelSolve, KernelSolveSummary};
pub use gram::{GramMatrix, SYMMETRY_RTOL};
pub use invariants::KernelInvariantCheck;
pub use learner::{KernelPerceptron, KernelPerceptronParams};
pub use margin::{
    DualSeparator, KernelCertificate, KernelMarginParams, KernelMarginResult, KernelMaxMargin,
    KernelSolveStats, max_margin,
};
pub use params::{Gamma, KernelParams};
pub use run::{KernelSink, KernelTrace, KernelUpdateEvent, Representation, radius};
pub use verify::{KernelVerdict, KernelVerifyOptions, verify, verify_with};
