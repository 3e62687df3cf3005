//! The portable loops whose order is fixed by the loop, not by the registers: each path compiles them
//! for its own registers ([`portable_loops!`]) and gives the portable path's bits. The compensated
//! ones (`axpy_compensated`, `dot_compensated`) live with the error-free transformations in
//! `compensated`; the plain one is here.

/// `y ← y + alpha·((x − centre)·factor)`, element by element: each point value rounded as the formed
/// point's is, then [`axpy`](super::axpy)'s product and sum. Inlined into each path's `#[target_feature]` function,
/// which vectorises it for its registers; having no operation across elements, it gives the same bits
/// at every width.
#[inline(always)]
pub(super) fn axpy_affine(alpha: f64, x: &[f64], centre: &[f64], factor: f64, y: &mut [f64]) {
    for ((yi, &xi), &ci) in y.iter_mut().zip(x).zip(centre) {
        *yi += alpha * ((xi - ci) * factor);
    }
}

/// `portable_loops!("feature")`: the portable loops that vectorise themselves (`axpy_compensated`,
/// `dot_compensated`, `axpy_affine`), compiled in the invoking module for the CPU feature's registers.
/// Their order is fixed by the loop (element by element, or a fixed count of lanes), not by the
/// registers, so every path gives the portable path's bits.
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(unused_macros)
)]
macro_rules! portable_loops {
    ($feature:literal) => {
        /// The portable loop, compiled for this path's registers (element by element: the same bits).
        #[target_feature(enable = $feature)]
        pub(super) unsafe fn axpy_compensated(
            alpha: f64,
            x: &[f64],
            sum: &mut [f64],
            error: &mut [f64],
        ) {
            $crate::simd::compensated::axpy_compensated(alpha, x, sum, error)
        }

        /// The portable lanes, compiled for this path's registers (a fixed count of lanes: the same
        /// bits).
        #[target_feature(enable = $feature)]
        pub(super) unsafe fn dot_compensated(a: &[f64], b: &[f64]) -> $crate::simd::CompensatedDot {
            $crate::simd::compensated::dot_compensated(a, b)
        }

        /// The portable loop, compiled for this path's registers (element by element: the same bits).
        #[target_feature(enable = $feature)]
        pub(super) unsafe fn axpy_affine(
            alpha: f64,
            x: &[f64],
            centre: &[f64],
            factor: f64,
            y: &mut [f64],
        ) {
            $crate::simd::loops::axpy_affine(alpha, x, centre, factor, y)
        }
    };
}
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(unused_imports)
)]
pub(super) use portable_loops;
