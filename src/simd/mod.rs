//! The hot loop: dot products, `axpy`, the mistake scan and the training pass, with a documented, fixed
//! summation order and SIMD code chosen at run time.
//!
//! This module is the only place in the crate with `unsafe` code or `std::arch`.
//!
//! # Summation orders
//!
//! Floating-point addition is not associative, so "the dot product" is only defined once its order is.
//! novikoff offers two, chosen with [`Summation`]:
//!
//! * [`Summation::Sequential`]: `s = +0.0; for i in 0..n { s = s + a[i]·b[i] }`, the plain left-to-right
//!   loop. It reproduces numpy's `for` loops, sklearn's Cython perceptron and the textbooks bit for bit.
//! * [`Summation::Fast`] (the default): [`LANES`] = 32 accumulators `acc[0..32]`, all `+0.0` at first.
//!   1. **Lanes.** For `i = 0, 1, …, n−1` in increasing order, `acc[i mod 32] = acc[i mod 32] + a[i]·b[i]`.
//!      Every element goes to its lane, the last partial chunk included: there is no separate tail.
//!   2. **Tree.** Fold the upper half onto the lower half until one value is left: for
//!      `h = 16, 8, 4, 2, 1`, `acc[l] = acc[l] + acc[l + h]` for every `l < h`. The result is `acc[0]`.
//!
//!   So for 32 products `p₀ … p₃₁` (one per lane) the result is
//!   `((((p₀+p₁₆)+(p₈+p₂₄)) + ((p₄+p₂₀)+(p₁₂+p₂₈))) + (((p₂+p₁₈)+(p₁₀+p₂₆)) + ((p₆+p₂₂)+(p₁₄+p₃₀))))`
//!   `+ (((p₁+p₁₇)+(p₉+p₂₅)) + …)`: lane `l` is paired with `l+16`, then with `l+8`, `l+4`, `l+2`, `l+1`.
//!
//! Both orders start from `+0.0`, so a result is never `−0.0`: an exact zero is always `+0.0`.
//!
//! Each product `a[i]·b[i]` is rounded before it is added: fused multiply-add is never used. FMA is not
//! available on every CPU (SSE2-only x86-64, older ARM cores), and it changes the rounding, so using it
//! where available would make the bits depend on the machine.
//!
//! With these rules a dot product is a function of its inputs alone: identical in every bit on every
//! CPU and on every code path below, for finite inputs. (The payload bits of a NaN result are not
//! specified: CPUs differ there.)
//!
//! ```
//! use novikoff::simd::{dot, Summation, LANES};
//! // A reference written from the description above.
//! let a: Vec<f64> = (0..45).map(|i| 1.0 / (1.0 + i as f64)).collect();
//! let b: Vec<f64> = (0..45).map(|i| (i as f64).sqrt() - 3.0).collect();
//! let mut acc = [0.0f64; LANES];
//! for i in 0..a.len() {
//!     acc[i % LANES] += a[i] * b[i];
//! }
//! let mut h = LANES / 2;
//! while h >= 1 {
//!     for l in 0..h {
//!         acc[l] += acc[l + h];
//!     }
//!     h /= 2;
//! }
//! assert_eq!(dot(&a, &b, Summation::Fast).to_bits(), acc[0].to_bits());
//! ```
//!
//! # Code paths
//!
//! [`paths`] lists the implementations this CPU can run, and [`active`] is the one used, chosen once on
//! first use: AVX-512F, else AVX2, else SSE2 on x86-64; NEON on AArch64; and the portable Rust code
//! anywhere else (which the compiler may vectorise across its 32 independent lanes but never reorders).
//! No path uses fused multiply-add, even where the CPU has it (AVX2 machines with FMA, every AArch64).
//! Every path computes the orders above exactly; `tests/simd.rs` checks each one against the portable
//! path bit for bit. The NEON path is tested on x86-64 under QEMU's user-mode emulation
//! (`qemu-aarch64`; see `.ci/run`), which runs the instructions exactly but says nothing of their speed:
//! it is a plain port of the SSE2 path, one row at a time, not tuned on real AArch64 hardware.
//!
//! # Scanning and training
//!
//! One perceptron epoch asks, row after row, "is `y·(w·x + b) ≤ 0`?", and changes `w` only when the
//! answer is yes. [`scan`] answers it for a block of [`Rows`] with `w` fixed and returns the first
//! [`Mistake`]; [`train`] is the whole pass: it updates `w` at each mistake, reports the update to an
//! observer (which may stop the pass), and goes on from the next row. The training loop of
//! [`perceptron`](crate::perceptron) runs one `train` per epoch. Every activation has the bits
//! [`dot`]`(w, x, summation) + b` gives, so the pass is indistinguishable from the textbook loop.
//!
//! How the SIMD paths find the next mistake, with `w` fixed between updates:
//!
//! * **Fast, short rows** (`d ≤ 128` on AVX-512F, `d ≤ 32` on AVX2): `w` lives in registers for the
//!   whole pass (and is updated there), so the pass reads nothing but the rows and their labels, one
//!   sequential stream. The block of rows checked with `w` fixed adapts to the mistakes: while they are
//!   frequent it is one row, so that no work is computed ahead and thrown away; once 8 rows in a row
//!   have passed, it is 4 rows, whose last folds (the in-register part of the tree, as costly as the
//!   products for short rows) share their shuffles and adds, with one compare for all four. A block with
//!   a mistake is resumed one row at a time from that mistake, and the block size drops back to one.
//! * **Fast, long rows**: one row at a time through the 32-lane loop; the register accumulators keep
//!   the adders busy within the row. The AVX-512F path runs this loop with 256-bit registers, like the
//!   AVX2 path, which kept up with the memory where 512-bit registers did not (see `x86/avx512.rs`).
//! * **Sequential**: a row's sum is one chain of dependent additions, so 4 or 8 rows are summed side by
//!   side, each in its own left-to-right order; after a mistake the rows behind it in the group are
//!   summed again with the new weights. The next group is prefetched where the hardware prefetchers do
//!   not follow the interleaved reads.
//!
//! Every row's activation has the same bits whichever block it was computed in, so these choices change
//! the speed only (`tests/simd.rs` checks the decisions of 4-row blocks against the documented sums to
//! the last bit). Computing 8 rows at once with one row per vector lane (a gather per column) was tried
//! and dropped: on the AMD Zen 4 of `benches/README.md` it was 3–5 times slower than the loops above.
//!
//! # Memory
//!
//! Out of cache an epoch runs at the speed the memory streams the matrix in, and that speed depends on
//! the pages under it: [`advise_huge_pages`] asks the OS for 2 MiB pages, which every matrix the crate
//! builds gets before it is written (1.2–1.4 times faster epochs on 80 MB matrices, on that machine).

#[cfg(target_arch = "aarch64")]
mod aarch64;
mod pages;
mod portable;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod shared;
#[cfg(target_arch = "x86_64")]
mod x86;

use std::ops::ControlFlow;
use std::sync::OnceLock;

use crate::error::{Error, Result};

pub use pages::{HUGE_PAGE_BYTES, advise_huge_pages};
pub(crate) use pages::{buffer as advised_buffer, reserve as reserve_advised};

/// Number of independent accumulators of [`Summation::Fast`] (see the [module documentation](self)).
///
/// ```
/// use novikoff::simd::{dot_fast, LANES};
/// // One value in each lane, folded by the tree: 1 + 2 + … + 32, exact in any order.
/// let a: Vec<f64> = (1..=LANES).map(|i| i as f64).collect();
/// assert_eq!(dot_fast(&a, &vec![1.0; LANES]), 528.0);
/// ```
pub const LANES: usize = 32;

/// Which summation order a dot product uses. See the [module documentation](self) for the exact orders.
///
/// ```
/// use novikoff::simd::{dot, Summation};
/// let a = [1.0, 2.0, 3.0];
/// let b = [4.0, 5.0, 6.0];
/// assert_eq!(dot(&a, &b, Summation::Sequential), 32.0);
/// assert_eq!(dot(&a, &b, Summation::Fast), 32.0);
/// ```
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Summation {
    /// Left to right, one accumulator: bit-identical to the textbook loop.
    Sequential,
    /// 32 lane accumulators folded in a fixed tree: fast and identical on every CPU.
    #[default]
    Fast,
}

impl Summation {
    /// The lower-case name used by the CLI and in result files.
    ///
    /// ```
    /// assert_eq!(novikoff::simd::Summation::Fast.name(), "fast");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Summation::Sequential => "sequential",
            Summation::Fast => "fast",
        }
    }
}

/// `a · b` in the given summation order, on the [`active`] code path. The slices should have the same
/// length; only the common prefix is used.
///
/// ```
/// use novikoff::simd::{dot, Summation};
/// assert_eq!(dot(&[1.0, -1.0], &[2.0, 3.0], Summation::Fast), -1.0);
/// ```
#[inline]
pub fn dot(a: &[f64], b: &[f64], summation: Summation) -> f64 {
    match summation {
        Summation::Sequential => dot_sequential(a, b),
        Summation::Fast => dot_fast(a, b),
    }
}

/// The left-to-right dot product ([`Summation::Sequential`]). A single dot product in this order is one
/// chain of dependent additions, which no SIMD unit can shorten, so it has only the portable path; the
/// [`scan`] speeds this order up by running several rows side by side instead.
///
/// ```
/// assert_eq!(novikoff::simd::dot_sequential(&[0.1, 0.2], &[1.0, 1.0]), 0.1 + 0.2);
/// ```
#[inline]
pub fn dot_sequential(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    portable::dot_sequential(a, b)
}

/// The fixed-order 32-lane dot product ([`Summation::Fast`]) on the [`active`] code path.
///
/// ```
/// let a: Vec<f64> = (0..19).map(f64::from).collect();
/// assert_eq!(novikoff::simd::dot_fast(&a, &a), (0..19).map(|i| (i * i) as f64).sum::<f64>());
/// ```
#[inline]
pub fn dot_fast(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    // Eight values or fewer take less time than the call to a SIMD path: same order, inline.
    if a.len().min(b.len()) <= 8 {
        return portable::dot_fast_short(a, b);
    }
    (active().dot_fast)(a, b)
}

/// `y ← y + alpha·x`, element by element: each `alpha·x[i]` is rounded, then added (no FMA), so every
/// path gives the same bits. The slices should have the same length; only the common prefix is used.
///
/// ```
/// let mut y = [1.0, 1.0];
/// novikoff::simd::axpy(-2.0, &[1.0, 0.5], &mut y);
/// assert_eq!(y, [-1.0, 0.0]);
/// ```
#[inline]
pub fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    debug_assert_eq!(x.len(), y.len());
    (active().axpy)(alpha, x, y)
}

/// A block of labelled rows for [`scan`]: either consecutive rows of a row-major matrix, or the rows of
/// a matrix listed by an index (a shuffled or permuted visiting order). Nothing is copied.
///
/// ```
/// use novikoff::simd::Rows;
/// let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]; // three rows of two features
/// let labels = [1.0, -1.0, 1.0];
/// let first_two = Rows::contiguous(&x[..4], &labels[..2], 2)?;
/// assert_eq!(first_two.len(), 2);
/// let backwards = Rows::indexed(&x, &labels, 2, &[2, 1, 0])?;
/// assert_eq!(backwards.len(), 3);
/// assert!(Rows::indexed(&x, &labels, 2, &[3]).is_err());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a> {
    x: &'a [f64],
    labels: &'a [f64],
    n_features: usize,
    index: Option<&'a [usize]>,
    signs: Option<&'a LabelSigns>,
}

/// The labels of a dataset whose every label is ±1, one bit each: bit `i mod 8` of byte `i / 8` is set
/// when label `i` is −1.
///
/// With rows of few features the labels are a large share of what an epoch reads (one 8-byte label per
/// 80-byte row at d = 10), and this is 1/64 of that. The SIMD loops use it where they check four
/// contiguous rows at once: for `y = ±1`, `y·a ≤ 0` is `a ≤ 0` for `+1` and `a ≥ 0` for `−1`, the same
/// decision in every case, NaN included, so the bits change the memory traffic and nothing else.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct LabelSigns {
    /// One bit per row, then one zero byte, so that two bytes can be read from any byte that holds a
    /// row's bit.
    bits: Vec<u8>,
    rows: usize,
}

/// Only the count: the bits say nothing the labels do not, and a dataset's `Debug` would print n/8 of them.
impl std::fmt::Debug for LabelSigns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LabelSigns")
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl LabelSigns {
    /// The sign bits of `labels`, which must all be `+1.0` or `-1.0`.
    pub(crate) fn of_unit_labels(labels: &[f64]) -> Self {
        debug_assert!(labels.iter().all(|&y| y == 1.0 || y == -1.0));
        let mut bits = vec![0u8; labels.len().div_ceil(8) + 1];
        for (byte, eight) in bits.iter_mut().zip(labels.chunks(8)) {
            *byte = eight
                .iter()
                .enumerate()
                .fold(0, |acc, (i, y)| acc | (u8::from(y.is_sign_negative()) << i));
        }
        Self {
            bits,
            rows: labels.len(),
        }
    }

    /// The bits and the zero byte after them, for the SIMD loops.
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(dead_code)
    )]
    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.bits.as_ptr()
    }
}

impl<'a> Rows<'a> {
    /// The rows of the row-major matrix `x` (`labels.len()` rows of `n_features` values), in order.
    ///
    /// ```
    /// use novikoff::simd::Rows;
    /// assert!(Rows::contiguous(&[1.0, 2.0], &[1.0], 2).is_ok());
    /// assert!(Rows::contiguous(&[1.0, 2.0], &[1.0, 1.0], 2).is_err());
    /// ```
    pub fn contiguous(x: &'a [f64], labels: &'a [f64], n_features: usize) -> Result<Self> {
        check_matrix(x, labels, n_features)?;
        Ok(Self {
            x,
            labels,
            n_features,
            index: None,
            signs: None,
        })
    }

    /// The rows `index[0], index[1], …` of the row-major matrix `x` (`labels.len()` rows of
    /// `n_features` values). Every index must be a row of `x`; repeats are allowed.
    ///
    /// ```
    /// use novikoff::simd::Rows;
    /// let rows = Rows::indexed(&[1.0, 2.0], &[1.0, -1.0], 1, &[1, 1, 0])?;
    /// assert_eq!(rows.len(), 3);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn indexed(
        x: &'a [f64],
        labels: &'a [f64],
        n_features: usize,
        index: &'a [usize],
    ) -> Result<Self> {
        check_matrix(x, labels, n_features)?;
        let n_rows = labels.len();
        if let Some(&bad) = index.iter().find(|&&i| i >= n_rows) {
            return Err(Error::parameter(
                "index",
                format!("row {bad} is out of range for a block of {n_rows} rows"),
            ));
        }
        Ok(Self {
            x,
            labels,
            n_features,
            index: Some(index),
            signs: None,
        })
    }

    /// [`Rows::indexed`] for an index the caller has already checked (the training loop checks its
    /// visiting order once per run, not once per block).
    pub(crate) fn indexed_prechecked(
        x: &'a [f64],
        labels: &'a [f64],
        n_features: usize,
        index: &'a [usize],
    ) -> Self {
        assert!(n_features > 0 && x.len() == labels.len() * n_features);
        debug_assert!(index.iter().all(|&i| i < labels.len()));
        Self {
            x,
            labels,
            n_features,
            index: Some(index),
            signs: None,
        }
    }

    /// The same rows, with the sign bits of their labels for the loops that can use them (contiguous
    /// rows only; an indexed block ignores them).
    pub(crate) fn with_signs(self, signs: &'a LabelSigns) -> Self {
        assert_eq!(signs.rows, self.labels.len(), "sign bits of other labels");
        Self {
            signs: Some(signs),
            ..self
        }
    }

    /// The number of rows in the block (the length of the index for an indexed block).
    ///
    /// ```
    /// let rows = novikoff::simd::Rows::contiguous(&[1.0, 2.0, 3.0], &[1.0, 1.0, -1.0], 1)?;
    /// assert_eq!(rows.len(), 3);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        match self.index {
            Some(index) => index.len(),
            None => self.labels.len(),
        }
    }

    /// True when the block has no row.
    ///
    /// ```
    /// let rows = novikoff::simd::Rows::contiguous(&[], &[], 4)?;
    /// assert!(rows.is_empty());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of features per row.
    ///
    /// ```
    /// let rows = novikoff::simd::Rows::contiguous(&[1.0, 2.0], &[1.0], 2)?;
    /// assert_eq!(rows.n_features(), 2);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// Row `k` of the block and its label (bounds-checked; for the portable path and for tests).
    pub(crate) fn get(&self, k: usize) -> (&'a [f64], f64) {
        let i = match self.index {
            Some(index) => index[k],
            None => k,
        };
        let d = self.n_features;
        (&self.x[i * d..(i + 1) * d], self.labels[i])
    }
}

fn check_matrix(x: &[f64], labels: &[f64], n_features: usize) -> Result<()> {
    if n_features == 0 {
        return Err(Error::NoFeatures);
    }
    if x.len() != labels.len() * n_features {
        return Err(Error::Shape {
            what: "matrix values against labels × features",
            expected: labels.len() * n_features,
            found: x.len(),
        });
    }
    Ok(())
}

/// The first row of a block where `y·(w·x + b) ≤ 0`, found by [`scan`].
///
/// ```
/// use novikoff::simd::{scan, Mistake, Rows, Summation};
/// let rows = Rows::contiguous(&[1.0, -2.0, 3.0], &[1.0, 1.0, 1.0], 1)?;
/// let first = scan(&[1.0], 0.0, &rows, Summation::Fast)?;
/// assert_eq!(first, Some(Mistake { offset: 1, activation: -2.0 }));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mistake {
    /// Position of the row within the block (`0..rows.len()`; for an indexed block, the position in
    /// the index, not the row number).
    pub offset: usize,
    /// `w·x + b` for that row, with the bits [`dot`] gives.
    pub activation: f64,
}

/// The first row of `rows` that `(w, b)` gets wrong, `y·(w·x + b) ≤ 0` (a zero activation is a mistake),
/// or `None` if there is none. Each activation is exactly `dot(w, x, summation) + b`. Runs on the
/// [`active`] code path; `w` must have one weight per feature.
///
/// ```
/// use novikoff::simd::{scan, Rows, Summation};
/// let x = [1.0, 0.0, 0.0, 1.0, -1.0, -1.0];
/// let labels = [1.0, 1.0, -1.0];
/// let rows = Rows::contiguous(&x, &labels, 2)?;
/// assert_eq!(scan(&[1.0, 1.0], 0.0, &rows, Summation::Sequential)?, None);
/// let hit = scan(&[1.0, -1.0], 0.0, &rows, Summation::Sequential)?.unwrap();
/// assert_eq!((hit.offset, hit.activation), (1, -1.0));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[inline]
pub fn scan(w: &[f64], b: f64, rows: &Rows<'_>, summation: Summation) -> Result<Option<Mistake>> {
    active().scan(w, b, rows, summation)
}

/// The perceptron's weights as a training pass ([`train`]) updates them in place: `w`, and the bias as
/// the weight `v` of a constant coordinate `c`, so that `b = c·v` (the one mechanism behind every
/// [`BiasRule`](crate::perceptron::BiasRule)), with the learning rate `eta`.
///
/// ```
/// let mut w = [0.0, 0.0];
/// let learner = novikoff::simd::Learner { w: &mut w, v: 2.0, c: 0.5, eta: 1.0 };
/// assert_eq!(learner.bias(), 1.0);
/// ```
#[derive(Debug)]
pub struct Learner<'a> {
    /// The weights, one per feature.
    pub w: &'a mut [f64],
    /// The weight of the constant coordinate.
    pub v: f64,
    /// The constant coordinate: 0 for no bias, 1 for the classic rule, R for Novikoff's.
    pub c: f64,
    /// The learning rate η.
    pub eta: f64,
}

impl Learner<'_> {
    /// The bias `b = c·v`.
    ///
    /// ```
    /// let learner = novikoff::simd::Learner { w: &mut [], v: 3.0, c: 0.0, eta: 1.0 };
    /// assert_eq!(learner.bias(), 0.0);
    /// ```
    pub fn bias(&self) -> f64 {
        self.c * self.v
    }
}

/// One update of a training pass, reported right after it was made.
///
/// ```
/// use std::ops::ControlFlow;
/// use novikoff::simd::{train, Learner, Rows, Summation, Update};
/// let rows = Rows::contiguous(&[1.0, -1.0], &[1.0, -1.0], 1)?;
/// let mut w = [0.0];
/// let mut learner = Learner { w: &mut w, v: 0.0, c: 0.0, eta: 1.0 };
/// let mut seen = Vec::new();
/// train(&mut learner, &rows, Summation::Fast, &mut |u: &Update<'_>| {
///     seen.push((u.offset, u.activation, u.w.to_vec()));
///     ControlFlow::Continue(())
/// })?;
/// assert_eq!(seen, vec![(0, 0.0, vec![1.0])]);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Update<'a> {
    /// Position of the row in the block.
    pub offset: usize,
    /// `w·x + b` before the update.
    pub activation: f64,
    /// The weights after the update.
    pub w: &'a [f64],
    /// The bias `c·v` after the update.
    pub b: f64,
}

/// What an observer of a training pass is: it sees every update and may stop the pass.
///
/// ```
/// use std::ops::ControlFlow;
/// use novikoff::simd::OnUpdate;
/// let mut updates = 0;
/// let observer: &mut OnUpdate<'_> = &mut |_| {
///     updates += 1;
///     if updates == 10 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
/// };
/// # let _ = observer;
/// ```
pub type OnUpdate<'o> = dyn FnMut(&Update<'_>) -> ControlFlow<()> + 'o;

/// One pass of the perceptron over `rows`, in order, on the [`active`] code path: at every row where
/// `y·(w·x + b) ≤ 0` (each activation exactly as [`scan`] computes it), update
/// `w ← w + η·y·x` and `v ← v + η·y·c` (each product rounded, then added), set `b = c·v`, and call
/// `on_update`. If `on_update` returns [`ControlFlow::Break`] the pass stops there and returns that
/// row's position; otherwise it returns `None` after the last row.
///
/// The weights are updated in place and the pass continues from the next row with them, so this is the
/// textbook loop, with the bits of the textbook loop; the SIMD paths only make it faster.
///
/// ```
/// use std::ops::ControlFlow;
/// use novikoff::simd::{train, Learner, Rows, Summation};
/// // The seed 004 worked example: three updates in the first pass.
/// let x = [-1.0, 2.0, 1.0, 0.0, 1.0, 1.0, -1.0, 0.0, -1.0, -2.0, 1.0, -1.0];
/// let y = [-1.0, 1.0, 1.0, -1.0, -1.0, 1.0];
/// let rows = Rows::contiguous(&x, &y, 2)?;
/// let mut w = [0.0, 0.0];
/// let mut learner = Learner { w: &mut w, v: 0.0, c: 0.0, eta: 1.0 };
/// let mut updates = 0;
/// let stopped = train(&mut learner, &rows, Summation::Fast, &mut |_| {
///     updates += 1;
///     ControlFlow::Continue(())
/// })?;
/// assert_eq!((stopped, updates, w), (None, 3, [3.0, 1.0]));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[inline]
pub fn train(
    learner: &mut Learner<'_>,
    rows: &Rows<'_>,
    summation: Summation,
    on_update: &mut OnUpdate<'_>,
) -> Result<Option<usize>> {
    active().train(learner, rows, summation, on_update)
}

/// The state the paths' loops share: the weights as a raw pointer (so that SIMD code may keep them in
/// registers and write them back), the bias, and the observer of a training pass.
///
/// Invariant: `w` points to `d` weights that nothing else reads or writes during the pass; they are
/// written only when the pass trains (`on_update` is `Some`, and then `w` came from a `&mut [f64]`).
pub(crate) struct Pass<'p, 'o> {
    pub(crate) w: *mut f64,
    pub(crate) d: usize,
    pub(crate) v: f64,
    pub(crate) c: f64,
    pub(crate) eta: f64,
    /// Always `c·v`, except for a scan, which takes `b` as given.
    pub(crate) b: f64,
    on_update: Option<&'p mut OnUpdate<'o>>,
}

impl Pass<'_, '_> {
    /// The weights.
    #[inline(always)]
    pub(crate) fn w(&self) -> &[f64] {
        // SAFETY: the invariant of `Pass`.
        unsafe { std::slice::from_raw_parts(self.w, self.d) }
    }

    /// The weights, to update them (training passes only).
    #[inline(always)]
    pub(crate) fn w_mut(&mut self) -> &mut [f64] {
        assert!(self.on_update.is_some(), "a scan never writes the weights");
        // SAFETY: the invariant of `Pass`: a training pass holds the weights' only `&mut`.
        unsafe { std::slice::from_raw_parts_mut(self.w, self.d) }
    }

    /// After `w ← w + step·x` was made at the mistake at `offset`: update `v` and `b` and report the
    /// update. True means stop (always, for a scan).
    #[inline(always)]
    pub(crate) fn finish_update(&mut self, offset: usize, activation: f64, step: f64) -> bool {
        self.v += step * self.c;
        self.b = self.c * self.v;
        // SAFETY: the invariant of `Pass`; the slice lives only during the call.
        let w = unsafe { std::slice::from_raw_parts(self.w, self.d) };
        let update = Update {
            offset,
            activation,
            w,
            b: self.b,
        };
        match self.on_update.as_mut() {
            Some(observe) => observe(&update).is_break(),
            None => true,
        }
    }
}

/// One implementation of the kernels (portable, SSE2, AVX2 or AVX-512F). [`paths`] lists those this CPU
/// can run; all of them give identical bits.
///
/// ```
/// use novikoff::simd::{paths, Summation};
/// let a: Vec<f64> = (0..100).map(|i| (i as f64).cos()).collect();
/// let reference = paths()[0].dot(&a, &a, Summation::Fast);
/// for path in paths() {
///     assert_eq!(path.dot(&a, &a, Summation::Fast).to_bits(), reference.to_bits(), "{}", path.name());
/// }
/// ```
#[derive(Clone, Copy)]
pub struct SimdPath {
    name: &'static str,
    dot_fast: fn(&[f64], &[f64]) -> f64,
    axpy: fn(f64, &[f64], &mut [f64]),
    /// Scan (`TRAIN = false`: stop at the first mistake, weights untouched) or train; returns the mistake
    /// the pass stopped at.
    run: fn(&mut Pass<'_, '_>, &Rows<'_>, Summation, bool) -> Option<Mistake>,
}

impl std::fmt::Debug for SimdPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimdPath")
            .field("name", &self.name)
            .finish()
    }
}

impl SimdPath {
    /// `portable`, `sse2`, `avx2` or `avx512f`.
    ///
    /// ```
    /// assert_eq!(novikoff::simd::paths()[0].name(), "portable");
    /// ```
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// [`dot`] on this path.
    ///
    /// ```
    /// use novikoff::simd::{active, Summation};
    /// assert_eq!(active().dot(&[2.0], &[3.0], Summation::Fast), 6.0);
    /// ```
    #[inline]
    pub fn dot(&self, a: &[f64], b: &[f64], summation: Summation) -> f64 {
        match summation {
            Summation::Sequential => portable::dot_sequential(a, b),
            Summation::Fast => (self.dot_fast)(a, b),
        }
    }

    /// [`axpy`] on this path.
    ///
    /// ```
    /// let mut y = [1.0];
    /// novikoff::simd::active().axpy(2.0, &[3.0], &mut y);
    /// assert_eq!(y, [7.0]);
    /// ```
    #[inline]
    pub fn axpy(&self, alpha: f64, x: &[f64], y: &mut [f64]) {
        (self.axpy)(alpha, x, y)
    }

    /// [`scan`] on this path.
    ///
    /// ```
    /// use novikoff::simd::{active, Rows, Summation};
    /// let rows = Rows::contiguous(&[1.0, 2.0], &[1.0, -1.0], 1)?;
    /// let hit = active().scan(&[1.0], 0.0, &rows, Summation::Fast)?.unwrap();
    /// assert_eq!(hit.offset, 1);
    /// assert!(active().scan(&[1.0, 2.0], 0.0, &rows, Summation::Fast).is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[inline]
    pub fn scan(
        &self,
        w: &[f64],
        b: f64,
        rows: &Rows<'_>,
        summation: Summation,
    ) -> Result<Option<Mistake>> {
        check_weights(w.len(), rows)?;
        let mut pass = Pass {
            // Never written: a scan has no observer, and `Pass::w_mut` refuses without one.
            w: w.as_ptr().cast_mut(),
            d: w.len(),
            v: 0.0,
            c: 0.0,
            eta: 0.0,
            b,
            on_update: None,
        };
        Ok((self.run)(&mut pass, rows, summation, false))
    }

    /// [`train`] on this path.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use novikoff::simd::{paths, Learner, Rows, Summation};
    /// let rows = Rows::contiguous(&[2.0, -1.0, 3.0], &[-1.0, 1.0, 1.0], 1)?;
    /// for path in paths() {
    ///     let mut w = [0.0];
    ///     let mut learner = Learner { w: &mut w, v: 0.0, c: 1.0, eta: 0.5 };
    ///     // Stop at the first update.
    ///     let stopped = path.train(&mut learner, &rows, Summation::Fast, &mut |_| ControlFlow::Break(()))?;
    ///     let v = learner.v;
    ///     assert_eq!((stopped, w, v), (Some(0), [-1.0], -0.5));
    /// }
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[inline]
    pub fn train(
        &self,
        learner: &mut Learner<'_>,
        rows: &Rows<'_>,
        summation: Summation,
        on_update: &mut OnUpdate<'_>,
    ) -> Result<Option<usize>> {
        check_weights(learner.w.len(), rows)?;
        let mut pass = Pass {
            w: learner.w.as_mut_ptr(),
            d: learner.w.len(),
            v: learner.v,
            c: learner.c,
            eta: learner.eta,
            b: learner.bias(),
            on_update: Some(on_update),
        };
        let stopped = (self.run)(&mut pass, rows, summation, true);
        learner.v = pass.v;
        Ok(stopped.map(|mistake| mistake.offset))
    }
}

fn check_weights(n_weights: usize, rows: &Rows<'_>) -> Result<()> {
    if n_weights != rows.n_features {
        return Err(Error::Shape {
            what: "weights against features",
            expected: rows.n_features,
            found: n_weights,
        });
    }
    Ok(())
}

/// Every code path this CPU can run, the portable one first and the preferred one last.
///
/// ```
/// let paths = novikoff::simd::paths();
/// assert_eq!(paths[0].name(), "portable");
/// assert_eq!(paths.last().unwrap().name(), novikoff::simd::active().name());
/// ```
pub fn paths() -> &'static [SimdPath] {
    static PATHS: OnceLock<Vec<SimdPath>> = OnceLock::new();
    PATHS.get_or_init(|| {
        #[allow(unused_mut)]
        let mut paths = vec![portable::PATH];
        #[cfg(target_arch = "x86_64")]
        paths.extend(x86::detect());
        #[cfg(target_arch = "aarch64")]
        paths.extend(aarch64::detect());
        paths
    })
}

/// The code path used by [`dot`], [`axpy`], [`scan`] and the training loop: the last of [`paths`],
/// detected once.
///
/// ```
/// println!("novikoff kernels: {}", novikoff::simd::active().name());
/// ```
#[inline]
pub fn active() -> &'static SimdPath {
    static ACTIVE: OnceLock<&'static SimdPath> = OnceLock::new();
    ACTIVE.get_or_init(|| paths().last().expect("the portable path is always present"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Fast order written from the module documentation, not from any implementation.
    fn documented_fast(a: &[f64], b: &[f64]) -> f64 {
        let mut acc = [0.0f64; 32];
        for i in 0..a.len() {
            acc[i % 32] += a[i] * b[i];
        }
        for h in [16, 8, 4, 2, 1] {
            for l in 0..h {
                acc[l] += acc[l + h];
            }
        }
        acc[0]
    }

    #[test]
    fn fast_matches_its_documented_order() {
        for n in [0, 1, 5, 31, 32, 37, 64, 100, 257] {
            let a: Vec<f64> = (0..n)
                .map(|i| ((i * 7919) % 113) as f64 * 0.37 - 11.0)
                .collect();
            let b: Vec<f64> = (0..n)
                .map(|i| ((i * 104729) % 97) as f64 * 0.13 - 3.0)
                .collect();
            let expected = documented_fast(&a, &b);
            for path in paths() {
                let got = path.dot(&a, &b, Summation::Fast);
                assert_eq!(got.to_bits(), expected.to_bits(), "n={n} {}", path.name());
            }
        }
    }

    #[test]
    fn the_tree_pairs_lane_l_with_l_plus_16_first() {
        // Two halves of an ulp of 1 (2⁻⁵³ each) and a 1. Where the two small values meet decides the
        // result: each one alone is absorbed by 1 (a tie, rounded to even), together they make 2⁻⁵².
        let tiny = f64::EPSILON / 2.0;
        let ones = vec![1.0; 32];
        let with = |lanes: [usize; 2]| {
            let mut a = vec![0.0; 32];
            a[0] = 1.0;
            a[lanes[0]] = tiny;
            a[lanes[1]] = tiny;
            a
        };
        // Lanes 16 and 1: lane 16 meets lane 0 at h = 16, lane 1 meets lane 0 at h = 1.
        let apart = with([16, 1]);
        assert_eq!(documented_fast(&apart, &ones), 1.0);
        assert_eq!(dot_fast(&apart, &ones), 1.0);
        // Lanes 8 and 24 meet each other at h = 16, before either meets lane 0 (at h = 8).
        let together = with([8, 24]);
        assert_eq!(documented_fast(&together, &ones), 1.0 + f64::EPSILON);
        assert_eq!(dot_fast(&together, &ones), 1.0 + f64::EPSILON);
    }

    #[test]
    fn label_signs_hold_one_bit_per_label_and_a_zero_byte() {
        let labels: Vec<f64> = (0..19)
            .map(|i| if i % 3 == 0 { -1.0 } else { 1.0 })
            .collect();
        let signs = LabelSigns::of_unit_labels(&labels);
        assert_eq!(signs.bits.len(), 19usize.div_ceil(8) + 1);
        for (i, y) in labels.iter().enumerate() {
            assert_eq!(signs.bits[i / 8] >> (i % 8) & 1 == 1, *y < 0.0, "label {i}");
        }
        assert_eq!(signs.bits[2] >> 3, 0, "bits past the last label");
        assert_eq!(*signs.bits.last().unwrap(), 0);
    }

    #[test]
    fn label_signs_debug_shows_the_count_not_the_bits() {
        let signs = LabelSigns::of_unit_labels(&vec![-1.0; 1000]);
        assert_eq!(format!("{signs:?}"), "LabelSigns { rows: 1000, .. }");
    }

    #[test]
    fn empty_dot_is_positive_zero() {
        for path in paths() {
            assert_eq!(path.dot(&[], &[], Summation::Fast).to_bits(), 0);
        }
        assert_eq!(dot_sequential(&[], &[]).to_bits(), 0);
        // −0 products still give +0, in both orders.
        assert_eq!(dot_fast(&[-0.0], &[1.0]).to_bits(), 0);
        assert_eq!(dot_sequential(&[-0.0], &[1.0]).to_bits(), 0);
    }
}
