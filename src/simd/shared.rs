//! What the SIMD paths share: raw access to the rows of a block ([`RowSource`]), the Sequential order's
//! loop of several rows at a time, and the [`simd_path!`] that turns an instruction-set module into a
//! [`SimdPath`](super::SimdPath).

use super::prefetch::prefetch;
use super::{LabelSigns, Mistake, Pass, Rows};

/// `simd_path!(NAME, "name", isa)`: the [`SimdPath`](super::SimdPath) of the instruction-set module
/// `isa`, whose `dot_fast`, `dot_fast_affine`, `axpy`, `axpy_dot`, their variants that ask for a row
/// ahead as they go (`dot_fast_ahead`, `axpy_dot_ahead`), `rot` and `run` need the CPU feature the path
/// is named after; its kernels over several rows call those for each row or column.
/// `simd_path!(NAME, "name", isa, asks_first)` is for a module without the variants: it asks for the
/// whole row ahead, then runs the plain kernel. `simd_path!(NAME, "name", isa, several_rows)` takes
/// the module's own `axpy_dot2`, `dots_fast` and `dot_fast_affine4` too.
///
/// SAFETY: the caller must make sure that the constant is only handed out on a CPU with that feature;
/// the fields of `SimdPath` are private, so no other code can reach the wrappers. The row sources are
/// built from validated `Rows`, and `Pass` keeps its own invariant (see there).
macro_rules! simd_path {
    // A path whose registers cannot hold several rows' or columns' sums at once (SSE2, AVX2 and NEON
    // keep 8–16 accumulators a row) calls its one-row kernels for each.
    ($constant:ident, $name:literal, $isa:ident) => {
        $crate::simd::shared::simd_path!(
            @one_row $constant,
            $name,
            $isa,
            |a, b, ahead| unsafe { $isa::dot_fast_ahead(a, b, ahead) },
            |alpha, x, y, z, ahead| unsafe { $isa::axpy_dot_ahead(alpha, x, y, z, ahead) }
        );
    };
    // At two values a register a kernel's requests come slowly enough: asking first costs little.
    ($constant:ident, $name:literal, $isa:ident, asks_first) => {
        $crate::simd::shared::simd_path!(
            @one_row $constant,
            $name,
            $isa,
            |a, b, ahead| {
                $crate::simd::prefetch_row(ahead);
                unsafe { $isa::dot_fast(a, b) }
            },
            |alpha, x, y, z, ahead| {
                $crate::simd::prefetch_row(ahead);
                unsafe { $isa::axpy_dot(alpha, x, y, z) }
            }
        );
    };
    (@one_row $constant:ident, $name:literal, $isa:ident, $dot_fast_ahead:expr,
     $axpy_dot_ahead:expr) => {
        $crate::simd::shared::simd_path!(
            @build $constant,
            $name,
            $isa,
            |alphas, x, ys, z| unsafe {
                (
                    $isa::axpy_dot(alphas.0, x, ys.0, z),
                    $isa::axpy_dot(alphas.1, x, ys.1, z),
                )
            },
            |x, w, out| {
                $crate::simd::portable::dots_each(x, w, out, |a, b| unsafe { $isa::dot_fast(a, b) })
            },
            |w, xs, centre, factor| {
                xs.map(|x| unsafe { $isa::dot_fast_affine(w, x, centre, factor) })
            },
            $dot_fast_ahead,
            $axpy_dot_ahead
        );
    };
    ($constant:ident, $name:literal, $isa:ident, several_rows) => {
        $crate::simd::shared::simd_path!(
            @build $constant,
            $name,
            $isa,
            |alphas, x, ys, z| unsafe { $isa::axpy_dot2(alphas, x, ys, z) },
            |x, w, out| unsafe { $isa::dots_fast(x, w, out) },
            |w, xs, centre, factor| unsafe { $isa::dot_fast_affine4(w, xs, centre, factor) },
            |a, b, ahead| unsafe { $isa::dot_fast_ahead(a, b, ahead) },
            |alpha, x, y, z, ahead| unsafe { $isa::axpy_dot_ahead(alpha, x, y, z, ahead) }
        );
    };
    (@build $constant:ident, $name:literal, $isa:ident, $axpy_dot2:expr, $dots_fast:expr,
     $dot_fast_affine4:expr, $dot_fast_ahead:expr, $axpy_dot_ahead:expr) => {
        const $constant: $crate::simd::SimdPath = $crate::simd::SimdPath {
            name: $name,
            dot_fast: |a, b| unsafe { $isa::dot_fast(a, b) },
            dots_fast: $dots_fast,
            dot_fast_affine: |w, x, centre, factor| unsafe {
                $isa::dot_fast_affine(w, x, centre, factor)
            },
            dot_fast_affine4: $dot_fast_affine4,
            axpy: |alpha, x, y| unsafe { $isa::axpy(alpha, x, y) },
            axpy_dot: |alpha, x, y, z| unsafe { $isa::axpy_dot(alpha, x, y, z) },
            axpy_dot2: $axpy_dot2,
            rot: |c, s, x, y| unsafe { $isa::rot(c, s, x, y) },
            axpy_compensated: |alpha, x, sums, corrections| unsafe {
                $isa::axpy_compensated(alpha, x, sums, corrections)
            },
            dot_compensated: |a, b| unsafe { $isa::dot_compensated(a, b) },
            axpy_affine: |alpha, x, centre, factor, y| unsafe {
                $isa::axpy_affine(alpha, x, centre, factor, y)
            },
            axpy_columns: |alphas, columns, y| unsafe { $isa::axpy_columns(alphas, columns, y) },
            axpy_rows: |alphas, columns, ys| unsafe { $isa::axpy_rows(alphas, columns, ys) },
            class_scores: |w, indices, values, summation, lanes, scores| unsafe {
                $isa::class_scores(w, indices, values, summation, lanes, scores)
            },
            dot_fast_ahead: $dot_fast_ahead,
            axpy_dot_ahead: $axpy_dot_ahead,
            run: |pass, rows, summation, train| unsafe {
                match (rows.index, train) {
                    (None, false) => $isa::run::<_, false>(
                        pass,
                        $crate::simd::shared::Contiguous::new(rows),
                        summation,
                    ),
                    (None, true) => $isa::run::<_, true>(
                        pass,
                        $crate::simd::shared::Contiguous::new(rows),
                        summation,
                    ),
                    (Some(index), false) => $isa::run::<_, false>(
                        pass,
                        $crate::simd::shared::Indexed::new(rows, index),
                        summation,
                    ),
                    (Some(index), true) => $isa::run::<_, true>(
                        pass,
                        $crate::simd::shared::Indexed::new(rows, index),
                        summation,
                    ),
                }
            },
        };
    };
}
pub(super) use simd_path;

/// Raw access to the rows of a validated [`Rows`] block, for the SIMD loops (no bounds checks there).
///
/// Invariant: `x` holds `n_rows · d` values and `labels` `n_rows` labels (checked by the `Rows`
/// constructors), and for an indexed block every index is below `n_rows`, so `row(k)` and `label(k)` are
/// in bounds for every `k < len()`.
pub(super) trait RowSource: Copy {
    /// True when block row `k` is matrix row `k`: the rows of a group are one contiguous region.
    const CONTIGUOUS: bool;
    /// Rows in the block.
    fn len(self) -> usize;
    /// Features per row.
    fn d(self) -> usize;
    /// The matrix.
    fn x(self) -> *const f64;
    /// The labels of the matrix's rows.
    fn labels(self) -> *const f64;
    /// The sign bits of the labels ([`LabelSigns`]) of a contiguous block that has them, else null.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn signs(self) -> *const u8;
    /// The matrix row of block row `k`.
    ///
    /// # Safety
    /// `k < self.len()`.
    unsafe fn matrix_row(self, k: usize) -> usize;
    /// The first value of block row `k`.
    ///
    /// # Safety
    /// `k < self.len()`.
    #[inline(always)]
    unsafe fn row(self, k: usize) -> *const f64 {
        unsafe { self.x().add(self.matrix_row(k) * self.d()) }
    }
    /// The label of block row `k`.
    ///
    /// # Safety
    /// `k < self.len()`.
    #[inline(always)]
    unsafe fn label(self, k: usize) -> f64 {
        unsafe { *self.labels().add(self.matrix_row(k)) }
    }
}

/// Which of the contiguous rows `k..k + 4` have the label −1 (bit `j` for row `k + j`), from the sign
/// bits at `signs`.
///
/// # Safety
/// `signs` is a [`LabelSigns`] of at least `k + 4` rows.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) unsafe fn negatives_of_four(signs: *const u8, k: usize) -> u32 {
    // Rows k..k+4 lie within the two bytes from k/8 on (k mod 8 + 4 ≤ 11 bits); the second byte
    // exists, a row's or the zero byte after the rows.
    let pair = unsafe { std::ptr::read_unaligned(signs.add(k / 8).cast::<[u8; 2]>()) };
    u32::from(u16::from_le_bytes(pair) >> (k % 8)) & 0xf
}

/// Which matrix row each row of a [`Block`] is.
pub(super) trait RowOrder: Copy {
    /// Whether block row `k` is matrix row `k`.
    const CONTIGUOUS: bool;
    /// The matrix row of block row `k`.
    ///
    /// # Safety
    /// `k` is below the block's length.
    unsafe fn matrix_row(self, k: usize) -> usize;
}

/// The rows in matrix order.
#[derive(Clone, Copy)]
pub(super) struct InOrder;

impl RowOrder for InOrder {
    const CONTIGUOUS: bool = true;
    #[inline(always)]
    unsafe fn matrix_row(self, k: usize) -> usize {
        k
    }
}

/// The rows an index lists, in its order.
#[derive(Clone, Copy)]
pub(super) struct ByIndex(*const usize);

impl RowOrder for ByIndex {
    const CONTIGUOUS: bool = false;
    #[inline(always)]
    unsafe fn matrix_row(self, k: usize) -> usize {
        unsafe { *self.0.add(k) }
    }
}

/// A block of rows as raw pointers, in the order `O`.
#[derive(Clone, Copy)]
pub(super) struct Block<O> {
    x: *const f64,
    labels: *const f64,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    signs: *const u8,
    len: usize,
    d: usize,
    order: O,
}

pub(super) type Contiguous = Block<InOrder>;
pub(super) type Indexed = Block<ByIndex>;

impl Contiguous {
    pub(super) fn new(rows: &Rows<'_>) -> Self {
        Self {
            x: rows.x.as_ptr(),
            labels: rows.labels.as_ptr(),
            signs: rows.signs.map_or(std::ptr::null(), LabelSigns::as_ptr),
            len: rows.labels.len(),
            d: rows.n_features,
            order: InOrder,
        }
    }
}

impl Indexed {
    /// The sign bits follow the matrix's order, not the index's, so an indexed block has none.
    pub(super) fn new(rows: &Rows<'_>, index: &[usize]) -> Self {
        Self {
            x: rows.x.as_ptr(),
            labels: rows.labels.as_ptr(),
            signs: std::ptr::null(),
            len: index.len(),
            d: rows.n_features,
            order: ByIndex(index.as_ptr()),
        }
    }
}

impl<O: RowOrder> RowSource for Block<O> {
    const CONTIGUOUS: bool = O::CONTIGUOUS;
    #[inline(always)]
    fn len(self) -> usize {
        self.len
    }
    #[inline(always)]
    fn d(self) -> usize {
        self.d
    }
    #[inline(always)]
    fn x(self) -> *const f64 {
        self.x
    }
    #[inline(always)]
    fn labels(self) -> *const f64 {
        self.labels
    }
    #[inline(always)]
    fn signs(self) -> *const u8 {
        self.signs
    }
    #[inline(always)]
    unsafe fn matrix_row(self, k: usize) -> usize {
        unsafe { self.order.matrix_row(k) }
    }
}

/// The bias to add to a "raw" Fast dot product: one whose products went into the tree without the
/// `+0.0` every accumulator starts from, and whose empty lanes may hold `+0.0` or nothing at all.
///
/// A raw sum can differ from the documented one only in the sign of an exact zero: sums of leaves that
/// differ only in the sign of zero differ only in the sign of zero, and the documented sum is never
/// `−0.0`. So `raw + (b + 0.0)` is `documented + b` bit for bit. If `b` is not `−0.0`, then
/// `b + 0.0 = b`, and `−0.0 + b = +0.0 + b`. If `b` is `−0.0`, then `documented + b = documented`
/// (never `−0.0`) `= raw + (+0.0)`.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) fn bias_for_raw(b: f64) -> f64 {
    b + 0.0
}

/// What every SIMD loop does at a mistake at `offset`: a scan stops there; a training pass makes the
/// update (`update(step, w)` must do `w ← w + step·x`), reports it, and stops if the observer says so.
/// `Some` is the mistake the pass stops at, `None` means go on.
#[inline(always)]
pub(super) fn on_mistake<const TRAIN: bool>(
    pass: &mut Pass<'_, '_>,
    offset: usize,
    activation: f64,
    y: f64,
    update: impl FnOnce(f64, *mut f64),
) -> Option<Mistake> {
    let mistake = Mistake { offset, activation };
    if !TRAIN {
        return Some(mistake);
    }
    let step = pass.eta * y;
    update(step, pass.w);
    pass.finish_update(offset, activation, step)
        .then_some(mistake)
}

/// Fast rows one at a time, each through the path's full 32-lane loop `dot(w, x, d, ahead)`, with its
/// `axpy` for the updates: the loop of the paths and row lengths where `w` does not stay in registers.
/// In a block of rows scattered in memory (a shuffled epoch) `ahead` is the row after next, for the
/// path to ask for as it reads row `k`: the hardware prefetchers follow a row but not the jump to the
/// next. Elsewhere it is empty.
///
/// # Safety
/// The invariant of `Pass`, with `pass.d == rows.d()`; `dot` must be the Fast order over `d` values
/// (whatever it asks for) and `axpy(alpha, x, w, d)` an axpy of `d` values.
#[inline(always)]
pub(super) unsafe fn run_rows<R: RowSource, const TRAIN: bool>(
    pass: &mut Pass<'_, '_>,
    rows: R,
    dot: impl Fn(*const f64, *const f64, usize, &[f64]) -> f64,
    axpy: impl Fn(f64, *const f64, *mut f64, usize),
) -> Option<Mistake> {
    let (n, d) = (rows.len(), rows.d());
    for k in 0..n {
        let x = unsafe { rows.row(k) };
        let ahead: &[f64] = if !R::CONTIGUOUS && k + 2 < n {
            // SAFETY: row `k + 2` is in the block, and a row holds `d` values.
            unsafe { std::slice::from_raw_parts(rows.row(k + 2), d) }
        } else {
            &[]
        };
        let activation = dot(pass.w.cast_const(), x, d, ahead) + pass.b;
        let y = unsafe { rows.label(k) };
        if y * activation <= 0.0
            && let Some(stop) =
                on_mistake::<TRAIN>(pass, k, activation, y, |step, w| axpy(step, x, w, d))
        {
            return Some(stop);
        }
    }
    None
}

/// The Sequential order, [`run_sequential`] with `G` rows at a time (4 on paths with 16 registers, 8 on
/// those with 32), or 4 rows with the next group prefetched where the hardware prefetchers do not follow
/// (33 to 256 values per row).
///
/// # Safety
/// As for [`run_sequential`].
#[inline(always)]
pub(super) unsafe fn run_sequential_for<R: RowSource, const TRAIN: bool, const G: usize>(
    pass: &mut Pass<'_, '_>,
    rows: R,
    axpy: impl Fn(f64, *const f64, *mut f64, usize),
) -> Option<Mistake> {
    unsafe {
        if (33..=256).contains(&rows.d()) {
            run_sequential::<R, TRAIN, 4, true>(pass, rows, axpy)
        } else {
            run_sequential::<R, TRAIN, G, false>(pass, rows, axpy)
        }
    }
}

/// The Sequential order, `G` rows at a time: `G` independent left-to-right sums, one per row, advance
/// together through the columns (`w[j]` is read once for all of them). A single row's sum is one chain of
/// dependent additions, so this is what keeps the adder busy; each row still gets exactly its own
/// left-to-right sum. Plain scalar code, compiled inside each path's `#[target_feature]` function, with
/// that path's `axpy` for the updates.
///
/// After a mistake the rows after it in its group are computed again with the new weights, and the
/// next group starts at the row after the mistake.
///
/// Reading G rows side by side is G streams of reads. The hardware prefetchers follow them when they
/// are long (`d` above a few hundred) and when the G rows are one short run of cache lines (small `d`),
/// but not in between: there (`PREFETCH`), the next group is prefetched one cache line per column step,
/// in address order. Rows of an indexed block are scattered, so they are always prefetched, row by
/// row. (Measured on the machine of `benches/README.md`; software prefetching where the hardware copes
/// cost bandwidth there.)
///
/// # Safety
/// The invariant of `Pass`, with `pass.d == rows.d()`; `axpy(alpha, x, w, d)` must be an axpy of `d`
/// values.
#[inline(always)]
pub(super) unsafe fn run_sequential<
    R: RowSource,
    const TRAIN: bool,
    const G: usize,
    const PREFETCH: bool,
>(
    pass: &mut Pass<'_, '_>,
    rows: R,
    axpy: impl Fn(f64, *const f64, *mut f64, usize),
) -> Option<Mistake> {
    let (n, d) = (rows.len(), rows.d());
    let mut k = 0;
    'groups: while k + G <= n {
        let starts: [*const f64; G] = std::array::from_fn(|r| unsafe { rows.row(k + r) });
        // With PREFETCH, the next group's rows are fetched one cache line per column step (see above).
        let ahead: [*const f64; G] = if k + 2 * G <= n {
            std::array::from_fn(|r| unsafe { rows.row(k + G + r) })
        } else {
            starts
        };
        let w = pass.w.cast_const();
        let mut sums = [0.0f64; G];
        for j in 0..d {
            if !R::CONTIGUOUS {
                prefetch(ahead[j % G].wrapping_add(j / G * 8));
            } else if PREFETCH {
                // The next group is one region of G·d values: G values per column step, in order.
                prefetch(ahead[0].wrapping_add(j * G));
            }
            let wj = unsafe { *w.add(j) };
            for (sum, start) in sums.iter_mut().zip(&starts) {
                *sum += wj * unsafe { *start.add(j) };
            }
        }
        for (r, sum) in sums.iter().enumerate() {
            let activation = sum + pass.b;
            let y = unsafe { rows.label(k + r) };
            if y * activation <= 0.0 {
                let update = |step, w| axpy(step, starts[r], w, d);
                if let Some(stop) = on_mistake::<TRAIN>(pass, k + r, activation, y, update) {
                    return Some(stop);
                }
                k += r + 1;
                continue 'groups;
            }
        }
        k += G;
    }
    while k < n {
        let x = unsafe { rows.row(k) };
        let w = pass.w.cast_const();
        let mut sum = 0.0;
        for j in 0..d {
            sum += unsafe { *w.add(j) * *x.add(j) };
        }
        let activation = sum + pass.b;
        let y = unsafe { rows.label(k) };
        if y * activation <= 0.0
            && let Some(stop) =
                on_mistake::<TRAIN>(pass, k, activation, y, |step, w| axpy(step, x, w, d))
        {
            return Some(stop);
        }
        k += 1;
    }
    None
}
