//! The rows a pass reads: a validated row-major block and its labels as sign bits.

use super::*;

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
    pub(super) x: &'a [f64],
    pub(super) labels: &'a [f64],
    pub(super) n_features: usize,
    pub(super) index: Option<&'a [usize]>,
    // Read by the SIMD paths only.
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(dead_code)
    )]
    pub(super) signs: Option<&'a LabelSigns>,
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
    pub(super) bits: Vec<u8>,
    pub(super) rows: usize,
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

pub(super) fn check_matrix(x: &[f64], labels: &[f64], n_features: usize) -> Result<()> {
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
