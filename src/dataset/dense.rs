//! The dense storage: a row-major matrix the dataset owns, or values owned elsewhere (a NumPy array, a
//! memory map) that it reads in place without a copy.

use std::fmt;
use std::sync::Arc;

use ndarray::{Array1, Array2, ArrayView2};

use super::{Dataset, Features, checked_labels};
use crate::error::{Error, Result};

/// Values owned outside the crate, which a [`Dataset`] reads in place
/// ([`Dataset::from_shared`](super::Dataset::from_shared)): the memory of a NumPy array held by the
/// Python package, a memory-mapped file.
///
/// The dataset keeps the object (in an `Arc`) for as long as it or any clone lives, and reads
/// [`SharedValues::values`] whenever it reads a row. The implementor promises that the slice stays the
/// same, with the same contents, while the object lives: the dataset caches quantities derived from the
/// values (the radius, the largest value) and never copies them. An implementation in safe Rust cannot
/// break that promise; one that hands out foreign memory states, in its own `unsafe` block, why it
/// holds.
///
/// ```
/// use std::sync::Arc;
/// use ndarray::array;
/// use novikoff::{dataset::SharedValues, Dataset};
///
/// #[derive(Debug)]
/// struct Frozen(Vec<f64>);
/// impl SharedValues for Frozen {
///     fn values(&self) -> &[f64] {
///         &self.0
///     }
/// }
///
/// let values = Arc::new(Frozen(vec![3.0, 4.0, -1.0, 0.0]));
/// let data = Dataset::from_shared(values.clone(), 2, 2, array![1.0, -1.0])?;
/// assert_eq!(data.radius(), 5.0);
/// // No copy was made: the dataset's rows are the values' memory.
/// assert!(std::ptr::eq(data.row(0).as_ptr(), values.0.as_ptr()));
/// # Ok::<(), novikoff::Error>(())
/// ```
pub trait SharedValues: Send + Sync + fmt::Debug {
    /// Every value of the matrix, row after row.
    fn values(&self) -> &[f64];
}

impl Dataset {
    /// Validate and wrap `n × d` values owned outside the crate, read in place without a copy (row after
    /// row; see [`SharedValues`]). The checks are those of [`Dataset::new`], and the number of values
    /// must be `n·d`.
    ///
    /// This is how the Python package hands a NumPy array to the crate: the dataset reads the array's
    /// memory, and keeps the array alive while it lives.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use ndarray::array;
    /// use novikoff::{dataset::SharedValues, Dataset, Error};
    /// #[derive(Debug)]
    /// struct Values(Vec<f64>);
    /// impl SharedValues for Values {
    ///     fn values(&self) -> &[f64] {
    ///         &self.0
    ///     }
    /// }
    /// let data = Dataset::from_shared(Arc::new(Values(vec![1.0, 2.0, 3.0])), 1, 3, array![1.0])?;
    /// assert_eq!(data.x(), array![[1.0, 2.0, 3.0]]);
    /// let short = Dataset::from_shared(Arc::new(Values(vec![1.0, 2.0])), 1, 3, array![1.0]);
    /// assert!(matches!(short, Err(Error::Shape { expected: 3, found: 2, .. })));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn from_shared(
        values: Arc<dyn SharedValues>,
        n: usize,
        d: usize,
        y: Array1<f64>,
    ) -> Result<Self> {
        let y = checked_labels((n, d), y)?;
        let count = values.values().len();
        if Some(count) != n.checked_mul(d) {
            return Err(Error::Shape {
                what: "values against rows × columns",
                expected: n.saturating_mul(d),
                found: count,
            });
        }
        check_finite_values(values.values(), d)?;
        Ok(Self::from_valid(
            Features::Dense(DenseMatrix::shared(values, n, d)),
            y,
        ))
    }
}

/// The first value that is not finite, by row and column, of row-major values with `d` columns. The scan
/// is a branch-free fold over blocks (memory speed); only a block with a bad value is searched.
pub(super) fn check_finite_values(values: &[f64], d: usize) -> Result<()> {
    const BLOCK: usize = 4096;
    for (b, block) in values.chunks(BLOCK).enumerate() {
        if block.iter().fold(true, |ok, v| ok & v.is_finite()) {
            continue;
        }
        let k = block
            .iter()
            .position(|v| !v.is_finite())
            .expect("a bad value");
        let index = b * BLOCK + k;
        return Err(Error::NonFinite {
            row: index / d,
            column: index % d,
            value: values[index],
        });
    }
    Ok(())
}

/// A dense matrix in row-major layout: owned, or shared with its owner outside the crate. Changing a
/// shared matrix (which only the transforms do, on their own copy) copies it first.
#[derive(Clone)]
pub(crate) enum DenseMatrix {
    Owned(Array2<f64>),
    Shared {
        values: Arc<dyn SharedValues>,
        rows: usize,
        cols: usize,
    },
}

impl DenseMatrix {
    /// A shared matrix of `rows × cols` values (the caller has checked the length).
    pub(crate) fn shared(values: Arc<dyn SharedValues>, rows: usize, cols: usize) -> Self {
        debug_assert_eq!(values.values().len(), rows * cols);
        DenseMatrix::Shared { values, rows, cols }
    }

    /// `(rows, columns)`.
    pub(crate) fn dim(&self) -> (usize, usize) {
        match self {
            DenseMatrix::Owned(x) => x.dim(),
            DenseMatrix::Shared { rows, cols, .. } => (*rows, *cols),
        }
    }

    /// Every value, row after row.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[f64] {
        match self {
            DenseMatrix::Owned(x) => x.as_slice().expect("a dense dataset is row-major"),
            DenseMatrix::Shared { values, .. } => values.values(),
        }
    }

    /// The matrix as a view.
    pub(crate) fn view(&self) -> ArrayView2<'_, f64> {
        ArrayView2::from_shape(self.dim(), self.as_slice()).expect("rows × cols values")
    }

    /// The owned matrix to change in place; a shared one is first copied into memory advised for huge
    /// pages, like every matrix the crate builds.
    pub(crate) fn make_mut(&mut self) -> &mut Array2<f64> {
        if let DenseMatrix::Shared { .. } = self {
            *self = DenseMatrix::Owned(self.advised_copy());
        }
        match self {
            DenseMatrix::Owned(x) => x,
            DenseMatrix::Shared { .. } => unreachable!("made owned above"),
        }
    }

    /// The owned matrix: moved out, or copied from the shared values.
    pub(crate) fn into_owned(self) -> Array2<f64> {
        match self {
            DenseMatrix::Owned(x) => x,
            shared @ DenseMatrix::Shared { .. } => shared.advised_copy(),
        }
    }

    /// A copy in memory advised for huge pages.
    pub(crate) fn advised_copy(&self) -> Array2<f64> {
        let source = self.as_slice();
        let mut values = crate::simd::advised_buffer(source.len());
        values.extend_from_slice(source);
        Array2::from_shape_vec(self.dim(), values).expect("as many values as the matrix it copies")
    }

    /// True when the values are owned outside the crate.
    pub(crate) fn is_shared(&self) -> bool {
        matches!(self, DenseMatrix::Shared { .. })
    }
}

impl PartialEq for DenseMatrix {
    fn eq(&self, other: &Self) -> bool {
        self.view() == other.view()
    }
}

impl fmt::Debug for DenseMatrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DenseMatrix::Owned(x) => f.debug_tuple("Owned").field(x).finish(),
            DenseMatrix::Shared { values, rows, cols } => f
                .debug_struct("Shared")
                .field("rows", rows)
                .field("cols", cols)
                .field("values", values)
                .finish(),
        }
    }
}
