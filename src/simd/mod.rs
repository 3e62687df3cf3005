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
mod aligned;
mod compensated;
mod loops;
mod pages;
mod portable;
mod prefetch;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod shared;
mod solver;
#[cfg(target_arch = "x86_64")]
mod x86;

use std::ops::ControlFlow;
use std::sync::OnceLock;

use crate::error::{Error, Result};

#[doc(hidden)]
pub use pages::HUGE_PAGE_BYTES;
pub use pages::advise_huge_pages;

mod pass;
mod rows;
mod sparse;
mod sparse_ahead;

pub(crate) use aligned::Aligned;
pub(crate) use compensated::{CompensatedDot, DOT_LANES, two_prod, two_sum};
pub(crate) use loops::{AXPY_COLUMNS, AXPY_ROWS};
pub(crate) use pages::{buffer as advised_buffer, reserve as reserve_advised};
pub(crate) use prefetch::{DENSE_AHEAD, prefetch, prefetch_row, prefetch_values};
pub(crate) use rows::LabelSigns;
pub(crate) use solver::{
    axpy_affine, axpy_columns, axpy_compensated, axpy_dot, axpy_dot_ahead, axpy_dot2, axpy_rows,
    class_scores, dot_compensated, dot_fast_affine, dot_fast_affine4, dot_fast_ahead, dots_fast,
    rot,
};
// The raw pass: public for the benches and the bit-for-bit tests, not part of the documented API.
pub(crate) use pass::Pass;
#[doc(hidden)]
pub use pass::{Learner, Mistake, OnUpdate, Update, scan, train};
#[doc(hidden)]
pub use rows::Rows;
pub use sparse::{SPARSE_LANES, SparseIndex, sparse_dot};
pub(crate) use sparse::{SparseRows, train_sparse};
pub(crate) use sparse_ahead::SparseAhead;

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

/// [`axpy_dot2`]'s signature: two steps, `x`, two columns, `z`; the two products.
type AxpyDot2 = fn((f64, f64), &[f64], (&mut [f64], &mut [f64]), &[f64]) -> (f64, f64);

/// [`axpy_dot_ahead`]'s signature: the step, `x`, `y`, `z` and the row asked for ahead; the product.
type AxpyDotAhead = fn(f64, &[f64], &mut [f64], &[f64], &[f64]) -> f64;

/// [`axpy_rows`]'s signature: a step per column and row, the columns, the rows.
type AxpyRows = fn(&[[f64; loops::AXPY_ROWS]], &[&[f64]], [&mut [f64]; loops::AXPY_ROWS]);

/// [`class_scores`]'s signature: the weights by column, the row's indices and values, the order, the
/// lanes, the scores.
type ClassScores = fn(&[f64], &[SparseIndex], &[f64], Summation, &mut [f64], &mut [f64]);

/// [`dot_fast_affine4`]'s signature: `w`, four rows, the centre, the factor (all of one length); the four
/// products.
type DotFastAffine4 = fn(&[f64], [&[f64]; 4], &[f64], f64) -> [f64; 4];

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
    dots_fast: fn(&[f64], &[f64], &mut [f64]),
    dot_fast_affine: fn(&[f64], &[f64], &[f64], f64) -> f64,
    dot_fast_affine4: DotFastAffine4,
    axpy: fn(f64, &[f64], &mut [f64]),
    axpy_dot: fn(f64, &[f64], &mut [f64], &[f64]) -> f64,
    axpy_dot2: AxpyDot2,
    rot: fn(f64, f64, &mut [f64], &mut [f64]),
    axpy_compensated: fn(f64, &[f64], &mut [f64], &mut [f64]),
    dot_compensated: fn(&[f64], &[f64]) -> CompensatedDot,
    axpy_affine: fn(f64, &[f64], &[f64], f64, &mut [f64]),
    axpy_columns: fn(&[f64; loops::AXPY_COLUMNS], [&[f64]; loops::AXPY_COLUMNS], &mut [f64]),
    axpy_rows: AxpyRows,
    class_scores: ClassScores,
    dot_fast_ahead: fn(&[f64], &[f64], &[f64]) -> f64,
    axpy_dot_ahead: AxpyDotAhead,
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

    /// `n` values on 113 levels from −11 to 30.4, in a scattered order: the tests' rows.
    fn scattered(n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| ((i * 7919) % 113) as f64 * 0.37 - 11.0)
            .collect()
    }

    /// `n` values on 97 other levels from −3 to 9.5, in another order.
    fn scattered_other(n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| ((i * 104729) % 97) as f64 * 0.13 - 3.0)
            .collect()
    }

    #[test]
    fn fast_matches_its_documented_order() {
        for n in [0, 1, 5, 31, 32, 37, 64, 100, 257] {
            let a: Vec<f64> = scattered(n);
            let b: Vec<f64> = scattered_other(n);
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

    /// The rotation written from its documentation, one element at a time.
    fn documented_rot(c: f64, s: f64, x: &mut [f64], y: &mut [f64]) {
        for (a, b) in x.iter_mut().zip(y.iter_mut()) {
            let (p, q) = (*a, *b);
            *a = c * p + s * q;
            *b = c * q - s * p;
        }
    }

    #[test]
    fn every_path_rotates_as_documented_to_the_bit() {
        // Lengths around each path's register width and its tail; signed zeros, where `c·q − s·p` and
        // `−s·p + c·q` must agree too.
        for n in [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100] {
            let x: Vec<f64> = (0..n)
                .map(|i| match i % 5 {
                    0 => 0.0,
                    1 => -0.0,
                    _ => ((i * 7919) % 113) as f64 * 0.37 - 11.0,
                })
                .collect();
            let y: Vec<f64> = (0..n)
                .map(|i| match i % 3 {
                    0 => -0.0,
                    _ => ((i * 104729) % 97) as f64 * 0.13 - 3.0,
                })
                .collect();
            for (c, s) in [
                (0.6, 0.8),
                (0.8, -0.6),
                (1.0, 0.0),
                (0.0, 1.0),
                (0.1f64.cos(), 0.1f64.sin()),
            ] {
                let (mut ex, mut ey) = (x.clone(), y.clone());
                documented_rot(c, s, &mut ex, &mut ey);
                for path in paths() {
                    let (mut px, mut py) = (x.clone(), y.clone());
                    (path.rot)(c, s, &mut px, &mut py);
                    let bits = |v: &[f64]| v.iter().map(|z| z.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&px), bits(&ex), "x, n={n} c={c} {}", path.name());
                    assert_eq!(bits(&py), bits(&ey), "y, n={n} c={c} {}", path.name());
                }
            }
        }
    }

    #[test]
    fn asking_for_a_row_ahead_changes_no_bit_on_any_path() {
        let bits = |v: &[f64]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        // Lengths around each path's register, its chunk of 32 lanes and their tails; rows ahead as
        // long, shorter, longer and empty.
        for n in (0..=40).chain([63, 64, 65, 100, 1000, 1001]) {
            let x: Vec<f64> = scattered(n);
            let z: Vec<f64> = scattered_other(n);
            let w: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin()).collect();
            let rows: Vec<f64> = (0..2 * n + 70).map(|i| i as f64).collect();
            for ahead in [&rows[..n], &rows[..n / 2], &rows[..2 * n + 70], &[][..]] {
                for path in paths() {
                    let name = path.name();
                    let plain = (path.dot_fast)(&w, &x);
                    let asked = (path.dot_fast_ahead)(&w, &x, ahead);
                    assert_eq!(asked.to_bits(), plain.to_bits(), "dot, n={n} {name}");
                    let (mut y_plain, mut y_asked) = (w.clone(), w.clone());
                    let plain = (path.axpy_dot)(-0.375, &x, &mut y_plain, &z);
                    let asked = (path.axpy_dot_ahead)(-0.375, &x, &mut y_asked, &z, ahead);
                    assert_eq!(asked.to_bits(), plain.to_bits(), "axpy_dot, n={n} {name}");
                    assert_eq!(bits(&y_asked), bits(&y_plain), "axpy, n={n} {name}");
                }
                let asked = dot_fast_ahead(&w, &x, ahead);
                assert_eq!(asked.to_bits(), dot_fast(&w, &x).to_bits(), "n={n}");
            }
        }
    }

    #[test]
    fn every_path_scores_many_rows_with_the_bits_of_one_row_at_a_time() {
        let bits = |v: &[f64]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        for d in (0..=40).chain([63, 64, 65, 96, 100, 127, 128, 129, 200]) {
            // Rows of zeros (signed both ways) among rows of values, under weights of both signs: every
            // product of a zero row is ±0, and its score must be +0 as the order's start makes it.
            let mixed: Vec<f64> = (0..d)
                .map(|j| ((j * 7919) % 113) as f64 * 0.37 - 21.0)
                .collect();
            // All negative: a row of +0 has only −0 products.
            let negative: Vec<f64> = mixed.iter().map(|v| -v.abs() - 1.0).collect();
            for (w, n) in [&mixed, &negative]
                .into_iter()
                .flat_map(|w| [0, 1, 3, 4, 5, 8, 11].map(|n| (w, n)))
            {
                let x: Vec<f64> = (0..n * d)
                    .map(|i| match (i / d.max(1)) % 3 {
                        0 => ((i * 104729) % 97) as f64 * 0.13 - 6.0,
                        1 => -0.0,
                        _ => 0.0,
                    })
                    .collect();
                let expected: Vec<f64> = (0..n)
                    .map(|k| documented_fast(&x[k * d..(k + 1) * d], w))
                    .collect();
                for path in paths() {
                    let mut got = vec![f64::NAN; n];
                    (path.dots_fast)(&x, w, &mut got);
                    assert_eq!(bits(&got), bits(&expected), "d={d} n={n} {}", path.name());
                }
                let mut got = vec![f64::NAN; n];
                dots_fast(&x, w, &mut got);
                assert_eq!(bits(&got), bits(&expected), "d={d} n={n}");
                assert!(got.iter().all(|&s| s != 0.0 || s.is_sign_positive()));
            }
        }
    }

    #[test]
    fn every_path_fuses_axpy_and_dot_to_the_bit_on_one_column_or_two() {
        for n in [0, 1, 3, 7, 8, 9, 31, 32, 33, 47, 64, 65, 100, 257] {
            let x: Vec<f64> = scattered(n);
            let y: Vec<f64> = scattered_other(n);
            let z: Vec<f64> = (0..n)
                .map(|i| ((i * 31) % 89) as f64 * 0.011 - 0.4)
                .collect();
            for alpha in [0.3, -1.7, 0.0, -0.0] {
                let mut expected_y = y.clone();
                portable::axpy(alpha, &x, &mut expected_y);
                let expected = documented_fast(&z, &expected_y);
                // The second column: another start and another step, each column its own bits.
                let y2: Vec<f64> = y.iter().rev().map(|v| v * 1.3 + 0.1).collect();
                let alpha2 = 0.7 - alpha;
                let mut expected_y2 = y2.clone();
                portable::axpy(alpha2, &x, &mut expected_y2);
                let expected2 = documented_fast(&z, &expected_y2);
                let bits = |v: &[f64]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                for path in paths() {
                    let mut got_y = y.clone();
                    let got = (path.axpy_dot)(alpha, &x, &mut got_y, &z);
                    assert_eq!(got.to_bits(), expected.to_bits(), "n={n} {}", path.name());
                    assert_eq!(bits(&got_y), bits(&expected_y), "n={n} {}", path.name());
                    let (mut pair_y, mut pair_y2) = (y.clone(), y2.clone());
                    let (got, got2) =
                        (path.axpy_dot2)((alpha, alpha2), &x, (&mut pair_y, &mut pair_y2), &z);
                    let name = path.name();
                    assert_eq!(got.to_bits(), expected.to_bits(), "pair, n={n} {name}");
                    assert_eq!(got2.to_bits(), expected2.to_bits(), "pair, n={n} {name}");
                    assert_eq!(bits(&pair_y), bits(&expected_y), "pair, n={n} {name}");
                    assert_eq!(bits(&pair_y2), bits(&expected_y2), "pair, n={n} {name}");
                }
            }
        }
    }

    /// Every path adds `alpha·x` to a compensated vector exactly as its documentation says, one element
    /// at a time.
    #[test]
    fn every_path_adds_compensated_products_as_documented_to_the_bit() {
        for n in [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100] {
            let x: Vec<f64> = scattered(n)
                .iter()
                .enumerate()
                .map(|(i, v)| v + 1e-9 * i as f64)
                .collect();
            // Large sums, so that most products are partly lost in `sums` and kept in `corrections`.
            let start: Vec<f64> = (0..n).map(|i| 1e16 * (1.0 + i as f64)).collect();
            for alpha in [0.1, -1.7, 3.0f64.sqrt(), 0.0, -0.0] {
                let (mut sums, mut corrections) = (start.clone(), vec![0.0; n]);
                for ((s, c), &a) in sums.iter_mut().zip(corrections.iter_mut()).zip(&x) {
                    let (p, e) = two_prod(alpha, a);
                    let (sum, e2) = two_sum(*s, p);
                    *s = sum;
                    *c += e + e2;
                }
                for path in paths() {
                    let (mut got_sums, mut got_corrections) = (start.clone(), vec![0.0; n]);
                    (path.axpy_compensated)(alpha, &x, &mut got_sums, &mut got_corrections);
                    let bits = |v: &[f64]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&got_sums), bits(&sums), "n={n} {}", path.name());
                    assert_eq!(
                        bits(&got_corrections),
                        bits(&corrections),
                        "n={n} {}",
                        path.name()
                    );
                }
            }
        }
    }

    /// Every path's compensated dot product is the portable one's eight lanes, to the bit: lane
    /// `i mod 8` runs `Dot2`'s steps on element `i`, and the lanes are added in order.
    #[test]
    fn every_path_takes_compensated_dot_products_in_the_same_lanes_to_the_bit() {
        for n in [0usize, 1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1001] {
            let a: Vec<f64> = scattered(n)
                .iter()
                .enumerate()
                .map(|(i, v)| v + 1e-9 * i as f64)
                .collect();
            // Terms from 10⁻⁸ to 10⁸, so that the corrections hold much of the sum.
            let b: Vec<f64> = (0..n)
                .map(|i| 10f64.powi((i % 17) as i32 - 8) * if i % 3 == 0 { -1.0 } else { 1.0 })
                .collect();
            let mut lanes = [(0.0f64, 0.0f64, 0.0f64); DOT_LANES];
            for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
                let lane = &mut lanes[i % DOT_LANES];
                let (p, e) = two_prod(x, y);
                let (s, e2) = two_sum(lane.0, p);
                *lane = (s, lane.1 + (e + e2), lane.2 + p.abs());
            }
            let mut want = CompensatedDot {
                sum: lanes[0].0,
                correction: lanes[0].1,
                magnitude: lanes[0].2,
            };
            for lane in &lanes[1..] {
                let (s, e) = two_sum(want.sum, lane.0);
                want.sum = s;
                want.correction += lane.1 + e;
                want.magnitude += lane.2;
            }
            for path in paths() {
                let got = (path.dot_compensated)(&a, &b);
                let bits =
                    |d: CompensatedDot| [d.sum, d.correction, d.magnitude].map(|v| v.to_bits());
                assert_eq!(bits(got), bits(want), "n={n} {}", path.name());
            }
        }
    }

    /// Every path adds eight columns with the bits of eight axpys in order, at every length around the
    /// vector widths, columns longer than `y` cut to it.
    #[test]
    fn every_path_adds_eight_columns_as_eight_axpys_to_the_bit() {
        for n in [0usize, 1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1001] {
            let column = |k: usize| -> Vec<f64> {
                (0..n + k)
                    .map(|i| ((i * 7919 + k * 104729) % 113) as f64 * 0.37 - 11.0)
                    .collect()
            };
            let columns: Vec<Vec<f64>> = (0..AXPY_COLUMNS).map(column).collect();
            let alphas: [f64; AXPY_COLUMNS] =
                std::array::from_fn(|k| 1e8f64.powi(k as i32 % 3) * (0.3 - k as f64));
            let start: Vec<f64> = (0..n).map(|i| 1e16 * (i % 5) as f64 - 0.5).collect();
            let mut want = start.clone();
            for (alpha, column) in alphas.iter().zip(&columns) {
                portable::axpy(*alpha, &column[..n], &mut want);
            }
            let want: Vec<u64> = want.iter().map(|v| v.to_bits()).collect();
            let slices: [&[f64]; AXPY_COLUMNS] = std::array::from_fn(|k| &columns[k][..]);
            for path in paths() {
                let mut got = start.clone();
                (path.axpy_columns)(&alphas, slices, &mut got);
                let got: Vec<u64> = got.iter().map(|v| v.to_bits()).collect();
                assert_eq!(got, want, "n={n} {}", path.name());
            }
        }
    }

    #[test]
    fn every_path_updates_four_rows_by_many_columns_as_axpys_would() {
        for (n, count) in [
            (0, 3),
            (1, 1),
            (7, 5),
            (8, 2),
            (9, 9),
            (17, 0),
            (33, 64),
            (100, 13),
        ] {
            let column = |k: usize| -> Vec<f64> {
                (0..n + k % 3)
                    .map(|i| ((i * 7919 + k * 104729) % 113) as f64 * 0.37 - 11.0)
                    .collect()
            };
            let columns: Vec<Vec<f64>> = (0..count).map(column).collect();
            let alphas: Vec<[f64; AXPY_ROWS]> = (0..count)
                .map(|k| {
                    std::array::from_fn(|r| 1e8f64.powi((k + r) as i32 % 3) * (0.3 - k as f64))
                })
                .collect();
            let start: Vec<Vec<f64>> = (0..AXPY_ROWS)
                .map(|r| {
                    (0..n + r)
                        .map(|i| 1e16 * ((i + r) % 5) as f64 - 0.5)
                        .collect()
                })
                .collect();
            let mut want = start.clone();
            for (alpha, column) in alphas.iter().zip(&columns) {
                for (r, y) in want.iter_mut().enumerate() {
                    portable::axpy(alpha[r], &column[..n], &mut y[..n]);
                }
            }
            let slices: Vec<&[f64]> = columns.iter().map(|c| &c[..]).collect();
            for path in paths() {
                let mut got = start.clone();
                let [a, b, c, d] = &mut got[..] else {
                    unreachable!("four rows")
                };
                (path.axpy_rows)(
                    &alphas,
                    &slices,
                    [&mut a[..], &mut b[..], &mut c[..], &mut d[..]],
                );
                for (r, (got, want)) in got.iter().zip(&want).enumerate() {
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(
                        bits(got),
                        bits(want),
                        "n={n} count={count} row {r} {}",
                        path.name()
                    );
                }
            }
        }
    }

    #[test]
    fn every_path_prices_an_affine_image_to_the_bit() {
        for n in [0, 1, 3, 7, 8, 9, 31, 32, 33, 47, 64, 65, 100, 257] {
            let w: Vec<f64> = scattered(n);
            let x: Vec<f64> = (0..n)
                .map(|i| match i % 4 {
                    0 => -0.0,
                    _ => ((i * 104729) % 97) as f64 * 0.13 - 3.0,
                })
                .collect();
            let mean: Vec<f64> = (0..n)
                .map(|i| ((i * 31) % 89) as f64 * 0.011 - 0.4)
                .collect();
            for (centre, factor) in [
                (&mean, 0.125),
                (&mean, -3.0),
                (&vec![0.0; n], 0.5),
                (&vec![0.0; n], 1.0),
            ] {
                let t: Vec<f64> = x
                    .iter()
                    .zip(centre)
                    .map(|(x, c)| (x - c) * factor)
                    .collect();
                let expected = documented_fast(&w, &t);
                assert_eq!(
                    dot_fast_affine(&w, &x, centre, factor).to_bits(),
                    expected.to_bits(),
                    "n={n} factor={factor}"
                );
                for path in paths() {
                    let got = (path.dot_fast_affine)(&w, &x, centre, factor);
                    assert_eq!(got.to_bits(), expected.to_bits(), "n={n} {}", path.name());
                }
                // Four rows at once: this row among the centre itself (every tⱼ = ±0, under weights of
                // both signs), its mirror and a row of zeros, each with the bits of its own call.
                let mirror: Vec<f64> = x.iter().rev().map(|v| -v).collect();
                let zeros = vec![0.0; n];
                let rows = [&x[..], &centre[..], &mirror[..], &zeros[..]];
                let each = rows.map(|r| dot_fast_affine(&w, r, centre, factor).to_bits());
                let bits = |v: [f64; 4]| v.map(f64::to_bits);
                assert_eq!(
                    bits(dot_fast_affine4(&w, rows, centre, factor)),
                    each,
                    "n={n}"
                );
                for path in paths() {
                    let got = (path.dot_fast_affine4)(&w, rows, centre, factor);
                    assert_eq!(bits(got), each, "n={n} {}", path.name());
                }
                // And added to a vector: the bits of `axpy` with the formed image.
                for alpha in [0.75, -3.0, 0.0] {
                    let mut formed = w.clone();
                    portable::axpy(alpha, &t, &mut formed);
                    let want: Vec<u64> = formed.iter().map(|v| v.to_bits()).collect();
                    let mut got = w.clone();
                    axpy_affine(alpha, &x, centre, factor, &mut got);
                    let got: Vec<u64> = got.iter().map(|v| v.to_bits()).collect();
                    assert_eq!(got, want, "n={n} alpha={alpha}");
                    for path in paths() {
                        let mut got = w.clone();
                        (path.axpy_affine)(alpha, &x, centre, factor, &mut got);
                        let got: Vec<u64> = got.iter().map(|v| v.to_bits()).collect();
                        assert_eq!(got, want, "n={n} alpha={alpha} {}", path.name());
                    }
                }
            }
        }
    }

    #[test]
    fn class_scores_have_each_class_sparse_dot_bits_on_every_path() {
        let d = 61;
        let mut stream = crate::rng::from_seed(11);
        let mut value = || {
            let scale = 10f64.powi(crate::rng::below(&mut stream, 9) as i32 - 4);
            (crate::rng::unit_f64(&mut stream) - 0.5) * scale
        };
        let mut compared = 0;
        // Class counts on both sides of every register width; rows of every remainder of the lanes.
        for k in [1, 2, 3, 4, 7, 8, 9, 16, 17, 20] {
            let w: Vec<f64> = (0..k * d).map(|_| value()).collect();
            let classes: Vec<Vec<f64>> = (0..k)
                .map(|r| (0..d).map(|j| w[j * k + r]).collect())
                .collect();
            for nnz in (0..=13).chain([40, d]) {
                let indices: Vec<SparseIndex> = (0..nnz)
                    .map(|e| SparseIndex::try_from(e * d / nnz.max(1)).unwrap())
                    .collect();
                let values: Vec<f64> = indices.iter().map(|_| value()).collect();
                for summation in [Summation::Sequential, Summation::Fast] {
                    let want: Vec<u64> = classes
                        .iter()
                        .map(|class| sparse_dot(class, &indices, &values, summation).to_bits())
                        .collect();
                    for path in paths() {
                        // Stale lanes and scores: the kernel starts its sums itself.
                        let mut lanes = vec![f64::NAN; SPARSE_LANES * k];
                        let mut scores = vec![f64::NAN; k];
                        (path.class_scores)(
                            &w,
                            &indices,
                            &values,
                            summation,
                            &mut lanes,
                            &mut scores,
                        );
                        let got: Vec<u64> = scores.iter().map(|v| v.to_bits()).collect();
                        assert_eq!(got, want, "k={k} nnz={nnz} {summation:?} {}", path.name());
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared >= 2 * 10 * 16, "{compared}");
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
