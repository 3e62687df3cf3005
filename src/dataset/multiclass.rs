//! A dataset with `k ≥ 2` classes, and the binary datasets the multi-class methods are made of:
//! one class against the rest, and Kesler's lifted vectors.

use ndarray::{Array1, Array2};

use super::{CsrMatrix, Dataset, Features, SparseIndex, sparse};
use crate::error::{Error, Result};

/// Examples with one of `k ≥ 2` named classes: the features in a [`Dataset`] (dense or CSR; its ±1
/// labels are all +1 and unused), and for each row the index of its class in
/// [`MulticlassDataset::classes`].
///
/// Classes are named as the file spells them and sorted as scikit-learn's `classes_` (`np.unique`):
/// numbers by value, then other names by their text.
///
/// ```
/// use ndarray::array;
/// use novikoff::dataset::MulticlassDataset;
/// let data = MulticlassDataset::new(
///     array![[0.0, 1.0], [1.0, 0.0], [-1.0, -1.0]],
///     vec!["a".into(), "b".into(), "c".into()],
///     vec![0, 1, 2],
/// )?;
/// assert_eq!((data.n_samples(), data.n_classes()), (3, 3));
/// assert_eq!(data.one_vs_rest(1)?.labels(), &[-1.0, 1.0, -1.0]);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MulticlassDataset {
    features: Dataset,
    classes: Vec<String>,
    y: Vec<usize>,
}

impl MulticlassDataset {
    /// Validate dense features, class names and each row's class index.
    ///
    /// # Errors
    /// As [`Dataset::new`] for the features; [`Error::Shape`] when the class indices are not one per
    /// row; [`Error::Parameter`] for fewer than two classes, a repeated name, or an index beyond them.
    pub fn new(x: Array2<f64>, classes: Vec<String>, y: Vec<usize>) -> Result<Self> {
        let n = x.nrows();
        let features = Dataset::new(x, Array1::ones(n))?;
        Self::from_features(features, classes, y)
    }

    /// Validate features already in a [`Dataset`] (either storage; its labels are ignored).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, Dataset};
    /// let features = Dataset::new(array![[1.0], [2.0]], array![1.0, 1.0])?;
    /// let err = MulticlassDataset::from_features(features, vec!["only".into()], vec![0, 0]).unwrap_err();
    /// assert!(err.to_string().contains("at least two classes"));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn from_features(features: Dataset, classes: Vec<String>, y: Vec<usize>) -> Result<Self> {
        if y.len() != features.n_samples() {
            return Err(Error::Shape {
                what: "class indices against rows",
                expected: features.n_samples(),
                found: y.len(),
            });
        }
        if classes.len() < 2 {
            return Err(Error::parameter(
                "classes",
                format!(
                    "multi-class learning needs at least two classes; the data hold {}",
                    match classes.first() {
                        Some(name) => format!("only the class `{name}`"),
                        None => "none".into(),
                    }
                ),
            ));
        }
        for (i, name) in classes.iter().enumerate() {
            if classes[..i].contains(name) {
                return Err(Error::parameter(
                    "classes",
                    format!("the class `{name}` is named twice"),
                ));
            }
        }
        if let Some((row, &class)) = y.iter().enumerate().find(|&(_, &c)| c >= classes.len()) {
            return Err(Error::parameter(
                "classes",
                format!(
                    "row {row} has class index {class}, beyond the {} classes",
                    classes.len()
                ),
            ));
        }
        let n = features.n_samples();
        // Shared, so that the binary problems of one-vs-rest read these features without a copy each.
        let features = Dataset {
            features: features.features.into_shared(),
            y: Array1::ones(n),
            largest_value: features.largest_value,
            norms: features.norms,
            signs: Default::default(),
        };
        Ok(Self {
            features,
            classes,
            y,
        })
    }

    /// The features (labels all +1).
    pub fn features(&self) -> &Dataset {
        &self.features
    }

    /// The class names, sorted.
    pub fn classes(&self) -> &[String] {
        &self.classes
    }

    /// Each row's class index.
    pub fn labels(&self) -> &[usize] {
        &self.y
    }

    /// Number of examples.
    pub fn n_samples(&self) -> usize {
        self.y.len()
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.features.n_features()
    }

    /// Number of classes `k`.
    pub fn n_classes(&self) -> usize {
        self.classes.len()
    }

    /// How many rows each class has.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::dataset::MulticlassDataset;
    /// let data = MulticlassDataset::new(array![[0.0], [1.0], [2.0]], vec!["x".into(), "y".into()], vec![1, 0, 1])?;
    /// assert_eq!(data.class_counts(), vec![1, 2]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn class_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.n_classes()];
        for &c in &self.y {
            counts[c] += 1;
        }
        counts
    }

    /// The binary dataset of class `class` against the rest: +1 for its rows, −1 for the others. It
    /// reads the same features, without a copy, and shares what is derived from them alone (the row
    /// norms and `R`, the largest value): the `k` problems of one-vs-rest compute them once.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::dataset::MulticlassDataset;
    /// let data = MulticlassDataset::new(array![[3.0, 4.0], [1.0, 0.0], [0.0, 1.0]], vec!["a".into(), "b".into()], vec![0, 1, 1])?;
    /// let (first, second) = (data.one_vs_rest(0)?, data.one_vs_rest(1)?);
    /// assert_eq!((first.labels(), second.labels()), (&[1.0, -1.0, -1.0][..], &[-1.0, 1.0, 1.0][..]));
    /// assert_eq!(first.radius(), 5.0);
    /// assert!(std::ptr::eq(first.x().as_ptr(), second.x().as_ptr()));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for a class index beyond `k`.
    pub fn one_vs_rest(&self, class: usize) -> Result<Dataset> {
        if class >= self.n_classes() {
            return Err(Error::parameter(
                "class",
                format!("class {class} is beyond the {} classes", self.n_classes()),
            ));
        }
        let y: Array1<f64> = self
            .y
            .iter()
            .map(|&c| if c == class { 1.0 } else { -1.0 })
            .collect();
        Ok(self.features.relabelled(y))
    }

    /// The same examples with the classes of another list (a test set read against its training set's
    /// classes): each row's class is found by name in `classes`.
    ///
    /// # Errors
    /// [`Error::Parameter`] naming the first class that `classes` lacks.
    pub fn with_classes(&self, classes: &[String]) -> Result<MulticlassDataset> {
        let mut map = Vec::with_capacity(self.n_classes());
        for name in &self.classes {
            match classes.iter().position(|c| c == name) {
                Some(index) => map.push(index),
                None => {
                    return Err(Error::parameter(
                        "classes",
                        format!(
                            "the class `{name}` does not occur in the training data (its classes: {})",
                            classes.join(", ")
                        ),
                    ));
                }
            }
        }
        MulticlassDataset::from_features(
            self.features.clone(),
            classes.to_vec(),
            self.y.iter().map(|&c| map[c]).collect(),
        )
    }

    /// Kesler's construction: for every example `(xᵢ, yᵢ)` and every other class `r ≠ yᵢ`, the vector
    /// `Φ(xᵢ, yᵢ) − Φ(xᵢ, r)` of dimension `k·d'` with `(xᵢ, c)` in the block of `yᵢ`, `−(xᵢ, c)` in the
    /// block of `r`, and zeros elsewhere (`d' = d + 1` with a bias constant `c ≠ 0`, `d` without). The
    /// multi-class weights `W = (w₁, …, w_k)` classify `xᵢ` correctly with a margin exactly when
    /// `W·z > 0` for its `k − 1` vectors `z`, so a multi-class problem is a binary one through the
    /// origin, all labels +1, in the lifted space. Stored as CSR (`n(k−1)` rows of `2·nnz(xᵢ)` values),
    /// never densely.
    ///
    /// # Errors
    /// [`Error::TooManyColumns`] when `k·d'` is beyond the sparse storage's 32-bit column indices.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::dataset::MulticlassDataset;
    /// let data = MulticlassDataset::new(array![[2.0]], vec!["a".into(), "b".into(), "c".into()], vec![1])?;
    /// let lifted = data.kesler(0.0)?;
    /// assert_eq!((lifted.n_samples(), lifted.n_features()), (2, 3));
    /// assert_eq!(lifted.to_dense()?.x(), array![[-2.0, 2.0, 0.0], [0.0, 2.0, -2.0]]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn kesler(&self, c: f64) -> Result<Dataset> {
        let k = self.n_classes();
        let d = self.n_features();
        let block = if c == 0.0 { d } else { d + 1 };
        sparse::check_lifted_columns("Kesler's lifted matrix", k as u64 * block as u64)?;
        let n = self.n_samples();
        let stored: usize = (0..n).map(|i| self.features.row_view(i).nnz()).sum();
        let extra = usize::from(c != 0.0);
        check_lifted_memory(n, k, stored + n * extra)?;
        let mut indptr = Vec::with_capacity(n * (k - 1) + 1);
        let mut indices = Vec::with_capacity(2 * (stored + n * extra) * (k - 1));
        let mut data = Vec::with_capacity(indices.capacity());
        indptr.push(0);
        for i in 0..n {
            let x = self.features.row_view(i);
            let yi = self.y[i];
            for r in (0..k).filter(|&r| r != yi) {
                // Blocks in increasing order so that the column indices increase.
                for (class, sign) in if yi < r {
                    [(yi, 1.0), (r, -1.0)]
                } else {
                    [(r, -1.0), (yi, 1.0)]
                } {
                    // Below k·block, checked above to fit the index.
                    let offset = class * block;
                    for (j, v) in x.entries() {
                        if v != 0.0 {
                            indices.push((offset + j) as SparseIndex);
                            data.push(sign * v);
                        }
                    }
                    if c != 0.0 {
                        indices.push((offset + d) as SparseIndex);
                        data.push(sign * c);
                    }
                }
                indptr.push(data.len());
            }
        }
        let matrix = CsrMatrix::new((n * (k - 1), k * block), indptr, indices, data);
        Ok(Dataset::from_valid(
            Features::csr(matrix),
            Array1::ones(n * (k - 1)),
        ))
    }
}

/// Refuse Kesler's lifted matrix before allocating it when it would take more than the memory budget
/// ([`crate::budget::memory_budget`]): `n(k − 1)` rows of twice `stored` values (each one a value and a
/// 32-bit column index), and a row pointer each.
fn check_lifted_memory(n: usize, k: usize, stored: usize) -> Result<()> {
    let rows = (n as u128) * (k as u128 - 1);
    let values = 2 * (stored as u128) * (k as u128 - 1);
    let bytes = values * 12 + (rows + 1) * 8;
    let budget = crate::budget::memory_budget() as u128;
    if bytes <= budget {
        return Ok(());
    }
    Err(Error::parameter(
        "multiclass",
        format!(
            "Kesler's lifted vectors of these {n} rows and {k} classes would be a matrix of {rows} rows \
             and {values} stored values, {bytes} bytes, beyond the memory budget of {budget} bytes \
             (half this machine's memory unless NOVIKOFF_MEMORY_BUDGET sets it): check the theorem on \
             fewer rows, or one class against the rest (--multiclass ovr), whose problems share the \
             features"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use ndarray::array;

    use super::*;

    fn three_classes(sparse: bool) -> MulticlassDataset {
        let features = Dataset::new(
            array![[3.0, 4.0], [1.0, 0.0], [0.0, -2.0], [-1.0, -1.0]],
            Array1::ones(4),
        )
        .unwrap();
        let features = if sparse {
            features.to_sparse()
        } else {
            features
        };
        let classes = vec!["a".into(), "b".into(), "c".into()];
        MulticlassDataset::from_features(features, classes, vec![0, 1, 2, 2]).unwrap()
    }

    #[test]
    fn the_classes_problems_read_one_copy_of_the_features_and_compute_r_once() {
        for sparse in [false, true] {
            let data = three_classes(sparse);
            let problems: Vec<Dataset> = (0..3).map(|r| data.one_vs_rest(r).unwrap()).collect();
            let stored = |d: &Dataset| d.stored_values().as_ptr();
            assert!(
                problems
                    .iter()
                    .all(|p| stored(p) == stored(data.features()))
            );
            assert!(problems.iter().all(|p| p.known_radius().is_none()));
            assert_eq!(problems[2].radius(), 5.0);
            assert!(problems.iter().all(|p| p.known_radius() == Some(5.0)));
            assert_eq!(data.features().known_radius(), Some(5.0));
            assert_eq!(problems[1].labels(), &[-1.0, 1.0, -1.0, -1.0]);
            // A transform's dataset is other data: it derives its own.
            let negated = problems[1].negate_negatives();
            assert_eq!(negated.known_radius(), None);
            assert_ne!(stored(&negated), stored(data.features()));
        }
    }
}
