//! The portable path: plain safe Rust, the reference every SIMD path must reproduce bit for bit.

use super::{LANES, Mistake, Pass, Rows, SimdPath, Summation};

pub(super) const PATH: SimdPath = SimdPath {
    name: "portable",
    dot_fast,
    dots_fast: |x, w, out| dots_each(x, w, out, dot_fast),
    dot_fast_affine,
    dot_fast_affine4: |w, xs, centre, factor| xs.map(|x| dot_fast_affine(w, x, centre, factor)),
    axpy,
    axpy_dot,
    axpy_dot2,
    rot,
    axpy_compensated: super::compensated::axpy_compensated,
    dot_compensated: super::compensated::dot_compensated,
    axpy_affine: super::loops::axpy_affine,
    axpy_columns: super::loops::axpy_columns,
    axpy_rows: super::loops::axpy_rows,
    class_scores: super::loops::class_scores,
    dot_fast_ahead: |a, b, ahead| {
        super::prefetch_row(ahead);
        dot_fast(a, b)
    },
    axpy_dot_ahead: |alpha, x, y, z, ahead| {
        super::prefetch_row(ahead);
        axpy_dot(alpha, x, y, z)
    },
    run,
};

/// Each of the consecutive rows of `w.len()` values in `x` against `w` by `dot`, into `out`: many rows'
/// scores on a path without a kernel for them.
#[inline]
pub(super) fn dots_each(
    x: &[f64],
    w: &[f64],
    out: &mut [f64],
    dot: impl Fn(&[f64], &[f64]) -> f64,
) {
    let d = w.len();
    if d == 0 {
        out.fill(0.0);
        return;
    }
    for (s, row) in out.iter_mut().zip(x.chunks_exact(d)) {
        *s = dot(row, w);
    }
}

pub(super) fn dot_sequential(a: &[f64], b: &[f64]) -> f64 {
    let mut sum = 0.0;
    for (x, y) in a.iter().zip(b) {
        sum += x * y;
    }
    sum
}

pub(super) fn dot_fast(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; LANES];
    let mut a_chunks = a.chunks_exact(LANES);
    let mut b_chunks = b.chunks_exact(LANES);
    for (ca, cb) in (&mut a_chunks).zip(&mut b_chunks) {
        for lane in 0..LANES {
            acc[lane] += ca[lane] * cb[lane];
        }
    }
    // The last partial chunk goes to the same lanes: element i always lands in lane i mod 32.
    for (lane, (x, y)) in a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .enumerate()
    {
        acc[lane] += x * y;
    }
    fold(acc)
}

/// [`dot_fast`] of `w` and `tⱼ = (xⱼ − centreⱼ)·factor`, lane by lane as there (whole chunks of
/// lanes, which the compiler vectorises, then the rest into the first lanes).
pub(super) fn dot_fast_affine(w: &[f64], x: &[f64], centre: &[f64], factor: f64) -> f64 {
    let n = w.len().min(x.len()).min(centre.len());
    let (w, x, c) = (&w[..n], &x[..n], &centre[..n]);
    let mut acc = [0.0f64; LANES];
    let chunks = w
        .chunks_exact(LANES)
        .zip(x.chunks_exact(LANES))
        .zip(c.chunks_exact(LANES));
    for ((cw, cx), cc) in chunks {
        for lane in 0..LANES {
            acc[lane] += cw[lane] * ((cx[lane] - cc[lane]) * factor);
        }
    }
    let full = n - n % LANES;
    for (lane, j) in (full..n).enumerate() {
        acc[lane] += w[j] * ((x[j] - c[j]) * factor);
    }
    fold(acc)
}

/// [`dot_fast`] for at most 8 values: lanes 8 to 31 stay `+0.0`, so the folds `h = 16, 8` add nothing
/// (an accumulator that starts at `+0.0` is never `−0.0`, and `x + 0.0 = x` for every other `x`).
///
/// The products go into the tree as they are, without the `+0.0` each lane starts from, and `+0.0` is
/// added once at the end instead: that can only change the sign of an exact zero, which the final
/// addition makes `+0.0`, as in the documented order.
#[inline]
pub(super) fn dot_fast_short(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    for (lane, (x, y)) in acc.iter_mut().zip(a.iter().zip(b)) {
        *lane = x * y;
    }
    for h in [4, 2, 1] {
        for l in 0..h {
            acc[l] += acc[l + h];
        }
    }
    acc[0] + 0.0
}

/// The fixed tree: for h = 16, 8, 4, 2, 1, lane l takes lane l + h.
#[inline(always)]
fn fold(mut acc: [f64; LANES]) -> f64 {
    let mut h = LANES / 2;
    while h >= 1 {
        for l in 0..h {
            acc[l] += acc[l + h];
        }
        h /= 2;
    }
    acc[0]
}

pub(super) fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

pub(super) fn axpy_dot(alpha: f64, x: &[f64], y: &mut [f64], z: &[f64]) -> f64 {
    axpy(alpha, x, y);
    dot_fast(z, y)
}

pub(super) fn axpy_dot2(
    alphas: (f64, f64),
    x: &[f64],
    ys: (&mut [f64], &mut [f64]),
    z: &[f64],
) -> (f64, f64) {
    (
        axpy_dot(alphas.0, x, ys.0, z),
        axpy_dot(alphas.1, x, ys.1, z),
    )
}

pub(super) fn rot(c: f64, s: f64, x: &mut [f64], y: &mut [f64]) {
    for (a, b) in x.iter_mut().zip(y.iter_mut()) {
        let (p, q) = (*a, *b);
        *a = c * p + s * q;
        *b = c * q - s * p;
    }
}

/// The textbook loop: one row at a time; at a mistake, stop (a scan) or update and report (training).
fn run(
    pass: &mut Pass<'_, '_>,
    rows: &Rows<'_>,
    summation: Summation,
    train: bool,
) -> Option<Mistake> {
    let dot = match summation {
        Summation::Sequential => dot_sequential,
        Summation::Fast => dot_fast,
    };
    for k in 0..rows.len() {
        let (x, y) = rows.get(k);
        let activation = dot(pass.w(), x) + pass.b;
        if y * activation <= 0.0 {
            let mistake = Mistake {
                offset: k,
                activation,
            };
            if !train {
                return Some(mistake);
            }
            let step = pass.eta * y;
            axpy(step, x, pass.w_mut());
            if pass.finish_update(k, activation, step) {
                return Some(mistake);
            }
        }
    }
    None
}
