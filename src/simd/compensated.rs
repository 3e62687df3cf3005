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

/// Lanes of [`dot_compensated`]: a fixed count, not a register's width, so that every path (one
/// AVX-512 register, two AVX2 ones, four SSE2 or NEON ones, or scalars) adds in the same order and
/// gives the same bits.
pub(crate) const DOT_LANES: usize = 8;

/// `Σ aᵢbᵢ` as Ogita, Rump and Oishi's `Dot2` leaves it: the products' rounded sum, the sum of their
/// exact errors and of the additions' exact errors, and `Σ|fl(aᵢbᵢ)|`, for the caller's error bound.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct CompensatedDot {
    /// The rounded products, summed by error-free additions.
    pub(crate) sum: f64,
    /// The errors of every product and every addition of `sum`, summed in plain arithmetic.
    pub(crate) correction: f64,
    /// `Σ|fl(aᵢbᵢ)|`, in plain arithmetic.
    pub(crate) magnitude: f64,
}

/// `Dot2` over [`DOT_LANES`] interleaved lanes: element `i` goes to lane `i mod 8`, each lane runs
/// `Dot2`'s steps ([`two_prod`], [`two_sum`] into the lane's sum, both errors into its correction), and
/// the lanes are then added in order with [`two_sum`]. Every addition of the rounded products is
/// error-free and its error kept, as in the one-lane algorithm, so the published bound holds with the
/// same number of additions (`n − 1` of products, and 7 lanes' worth more of corrections, which the
/// caller counts). The one-lane loop waits on each addition into its single sum, about four cycles a
/// product; eight independent lanes keep a vector unit busy instead. Inlined into each path's
/// `#[target_feature]` function, which vectorises the lanes for its registers. Only the common prefix
/// of `a` and `b` is used.
#[inline(always)]
pub(super) fn dot_compensated(a: &[f64], b: &[f64]) -> CompensatedDot {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut sums = [0.0; DOT_LANES];
    let mut corrections = [0.0; DOT_LANES];
    let mut magnitudes = [0.0; DOT_LANES];
    let mut step = |lane: usize, x: f64, y: f64| {
        let (p, ep) = two_prod(x, y);
        let (s, es) = two_sum(sums[lane], p);
        sums[lane] = s;
        corrections[lane] += ep + es;
        magnitudes[lane] += p.abs();
    };
    let (mut xs, mut ys) = (a.chunks_exact(DOT_LANES), b.chunks_exact(DOT_LANES));
    for (x, y) in (&mut xs).zip(&mut ys) {
        for lane in 0..DOT_LANES {
            step(lane, x[lane], y[lane]);
        }
    }
    for (lane, (&x, &y)) in xs.remainder().iter().zip(ys.remainder()).enumerate() {
        step(lane, x, y);
    }
    let mut total = CompensatedDot {
        sum: sums[0],
        correction: corrections[0],
        magnitude: magnitudes[0],
    };
    for lane in 1..DOT_LANES {
        let (s, es) = two_sum(total.sum, sums[lane]);
        total.sum = s;
        total.correction += corrections[lane] + es;
        total.magnitude += magnitudes[lane];
    }
    total
}
