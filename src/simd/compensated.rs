//! Error-free transformations (Knuth's TwoSum, Dekker's TwoProduct) and the compensated `axpy` built on
//! them: the arithmetic of the max-margin solver's twice-working-precision mode
//! (`margin::accurate`), kept with the kernels so that each path compiles the vector loop for its
//! own registers. Products are split with Dekker's algorithm rather than a fused multiply-add, so the
//! results are the same on every CPU and every path.

/// `a + b = s + e` exactly (Knuth's TwoSum).
#[inline]
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// Split `a` into two halves of 26 significant bits each (Dekker).
#[inline]
fn split(a: f64) -> (f64, f64) {
    const SPLITTER: f64 = 134_217_729.0; // 2^27 + 1
    let c = SPLITTER * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// `a·b = p + e` exactly (Dekker's TwoProduct, no fused multiply-add).
#[inline]
pub(crate) fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let e = al * bl - (((p - ah * bh) - al * bh) - ah * bl);
    (p, e)
}

/// The loop of [`super::axpy_compensated`], element by element. Inlined into each path's
/// `#[target_feature]` function, so that the compiler vectorises it for that path's registers; having no
/// operation across elements, it gives the same bits at every width.
#[inline(always)]
pub(super) fn axpy_compensated(alpha: f64, x: &[f64], sums: &mut [f64], corrections: &mut [f64]) {
    for ((s, c), &a) in sums.iter_mut().zip(corrections.iter_mut()).zip(x) {
        let (p, ep) = two_prod(alpha, a);
        let (sum, es) = two_sum(*s, p);
        *s = sum;
        *c += ep + es;
    }
}
