//! Training: a scan for the first mistake, the learner's borrowed state, the update an observer sees,
//! and the pass that the SIMD paths run.

use super::*;

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
    /// The weight `v` of the constant coordinate after the update.
    pub v: f64,
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
    pub(super) on_update: Option<&'p mut OnUpdate<'o>>,
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
            v: self.v,
            b: self.b,
        };
        match self.on_update.as_mut() {
            Some(observe) => observe(&update).is_break(),
            None => true,
        }
    }
}
