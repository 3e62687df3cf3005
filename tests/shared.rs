//! Datasets over values owned elsewhere (`Dataset::from_shared`, how the Python package passes a NumPy
//! array; `Dataset::from_shared_csr`, how it passes a SciPy CSR matrix): no copy, the checks of
//! `Dataset::new` and of a CSR file, and every algorithm's bits unchanged.

use std::sync::Arc;

use ndarray::{Array1, Array2, array};
use novikoff::dataset::{SharedCsr, SharedValues};
use novikoff::margin::{self, Bias};
use novikoff::perceptron::{BiasRule, PerceptronParams};
use novikoff::simd::Summation;
use novikoff::{Dataset, Error};

#[derive(Debug)]
struct Values(Vec<f64>);

impl SharedValues for Values {
    fn values(&self) -> &[f64] {
        &self.0
    }
}

fn shared(x: &Array2<f64>, y: Array1<f64>) -> (Arc<Values>, Dataset) {
    let values = Arc::new(Values(x.iter().copied().collect()));
    let data = Dataset::from_shared(values.clone(), x.nrows(), x.ncols(), y).unwrap();
    (values, data)
}

fn example() -> (Array2<f64>, Array1<f64>) {
    let x = Array2::from_shape_fn((40, 7), |(i, j)| {
        ((i * 31 + j * 17) % 23) as f64 / 7.0 - 1.5 + (j as f64) * 0.01
    });
    let y = Array1::from_shape_fn(40, |i| {
        if x[[i, 0]] + 0.3 * x[[i, 3]] > -0.2 {
            1.0
        } else {
            -1.0
        }
    });
    (x, y)
}

/// `shared` equals `owned`, has its radius to the bit, and trains to the same bits with every bias rule
/// in both summation orders.
fn assert_same_runs(shared: &Dataset, owned: &Dataset) {
    assert_eq!(shared, owned);
    assert_eq!(shared.radius().to_bits(), owned.radius().to_bits());
    for rule in [BiasRule::None, BiasRule::Classic, BiasRule::Novikoff] {
        for summation in [Summation::Sequential, Summation::Fast] {
            let params = PerceptronParams::new()
                .bias(rule)
                .summation(summation)
                .max_epochs(20);
            let a = params.fit(shared).unwrap();
            let b = params.fit(owned).unwrap();
            assert_eq!((&a.w, a.b, a.mistakes), (&b.w, b.b, b.mistakes));
            assert_eq!(a.averaged, b.averaged);
        }
    }
}

#[test]
fn the_rows_are_the_owners_memory_and_every_result_is_the_owned_datasets() {
    let (x, y) = example();
    let owned = Dataset::new(x.clone(), y.clone()).unwrap();
    let (values, data) = shared(&x, y);
    for i in 0..data.n_samples() {
        assert!(std::ptr::eq(
            data.row(i).as_ptr(),
            values.0[i * 7..].as_ptr()
        ));
    }
    assert_same_runs(&data, &owned);
    let a = margin::max_margin(&data, Bias::Free).unwrap();
    let b = margin::max_margin(&owned, Bias::Free).unwrap();
    assert_eq!(a.bracket(), b.bracket());
    // A clone shares the values; a transform works on its own copy and leaves them alone.
    let clone = data.clone();
    assert!(std::ptr::eq(clone.row(0).as_ptr(), values.0.as_ptr()));
    let flipped = data.negate_negatives();
    assert_eq!(flipped, owned.negate_negatives());
    assert!(!std::ptr::eq(flipped.row(0).as_ptr(), values.0.as_ptr()));
    assert_eq!(data, owned);
    assert_eq!(data.to_sparse(), owned.to_sparse());
    assert_eq!(data.select(&[3, 1]), owned.select(&[3, 1]));
    assert_eq!(data.into_parts().0, x);
}

#[test]
fn the_checks_are_those_of_dataset_new() {
    let values = |v: Vec<f64>| -> Arc<dyn SharedValues> { Arc::new(Values(v)) };
    let bad = Dataset::from_shared(
        values(vec![1.0, 2.0, f64::NAN, 4.0]),
        2,
        2,
        array![1.0, -1.0],
    );
    assert!(
        matches!(
            bad,
            Err(Error::NonFinite {
                row: 1,
                column: 0,
                ..
            })
        ),
        "{bad:?}"
    );
    // A bad value far into a long matrix is found at its row and column.
    let mut long = vec![0.5; 3 * 10_000];
    long[3 * 7_000 + 2] = f64::INFINITY;
    let bad = Dataset::from_shared(values(long), 10_000, 3, Array1::ones(10_000));
    assert!(
        matches!(
            bad,
            Err(Error::NonFinite {
                row: 7_000,
                column: 2,
                ..
            })
        ),
        "{bad:?}"
    );
    let bad = Dataset::from_shared(values(vec![1.0, 2.0]), 1, 2, array![0.0]);
    assert!(matches!(bad, Err(Error::Label { row: 0, .. })), "{bad:?}");
    let bad = Dataset::from_shared(values(vec![1.0, 2.0]), 1, 2, array![1.0, 1.0]);
    assert!(matches!(bad, Err(Error::Shape { .. })), "{bad:?}");
    let bad = Dataset::from_shared(values(vec![1.0, 2.0, 3.0]), 2, 2, array![1.0, 1.0]);
    assert!(
        matches!(
            bad,
            Err(Error::Shape {
                expected: 4,
                found: 3,
                ..
            })
        ),
        "{bad:?}"
    );
    let bad = Dataset::from_shared(values(vec![]), 0, 2, array![]);
    assert!(matches!(bad, Err(Error::Empty)), "{bad:?}");
    let bad = Dataset::from_shared(values(vec![]), 2, 0, array![1.0, 1.0]);
    assert!(matches!(bad, Err(Error::NoFeatures)), "{bad:?}");
    let bad = Dataset::from_shared(values(vec![1.0]), usize::MAX, 2, array![1.0]);
    assert!(bad.is_err());
}

#[derive(Debug, Clone)]
struct Arrays {
    indptr: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f64>,
}

impl SharedCsr for Arrays {
    fn indptr(&self) -> &[usize] {
        &self.indptr
    }
    fn indices(&self) -> &[u32] {
        &self.indices
    }
    fn values(&self) -> &[f64] {
        &self.values
    }
}

/// The arrays of `data`'s CSR form.
fn arrays_of(data: &Dataset) -> Arrays {
    let sparse = data.to_sparse();
    let x = sparse.csr().unwrap();
    Arrays {
        indptr: x.indptr().to_proper().to_vec(),
        indices: x.indices().to_vec(),
        values: x.data().to_vec(),
    }
}

#[test]
fn a_shared_csr_matrix_is_read_in_place_and_gives_the_owned_matrixs_bits() {
    let (mut x, y) = example();
    // Zeros, so that the CSR form is sparse, and an empty row.
    x.mapv_inplace(|v| if v.abs() < 0.6 { 0.0 } else { v });
    x.row_mut(5).fill(0.0);
    let owned = Dataset::new(x.clone(), y.clone()).unwrap().to_sparse();
    let arrays = Arc::new(arrays_of(&owned));
    let data = Dataset::from_shared_csr(arrays.clone(), x.dim(), y.clone()).unwrap();
    assert!(data.is_sparse());
    assert!(std::ptr::eq(
        data.csr().unwrap().data().as_ptr(),
        arrays.values.as_ptr()
    ));
    assert!(std::ptr::eq(
        data.csr().unwrap().indices().as_ptr(),
        arrays.indices.as_ptr()
    ));
    assert_eq!(data.nnz(), owned.nnz());
    assert_same_runs(&data, &owned);
    let a = margin::max_margin(&data, Bias::ThroughOrigin).unwrap();
    let b = margin::max_margin(&owned, Bias::ThroughOrigin).unwrap();
    assert_eq!(a.bracket(), b.bracket());
    // A clone shares the arrays; a transform works on its own copy and leaves them alone.
    let clone = data.clone();
    assert!(std::ptr::eq(
        clone.csr().unwrap().data().as_ptr(),
        arrays.values.as_ptr()
    ));
    // Row 5 is zero: both refuse to normalise it, and normalise the others alike.
    assert!(matches!(
        data.unit_normalize(),
        Err(Error::ZeroRow { row: 5 })
    ));
    let others: Vec<usize> = (0..data.n_samples()).filter(|&i| i != 5).collect();
    let shared_others = Dataset::from_shared_csr(
        Arc::new(arrays_of(&owned.select(&others))),
        (others.len(), x.ncols()),
        owned.select(&others).y().to_owned(),
    )
    .unwrap();
    assert_eq!(
        shared_others.unit_normalize().unwrap(),
        owned.select(&others).unit_normalize().unwrap()
    );
    assert_eq!(data.augment(2.0), owned.augment(2.0));
    assert_eq!(data.negate_negatives(), owned.negate_negatives());
    assert_eq!(data.select(&[5, 1]), owned.select(&[5, 1]));
    assert_eq!(data.to_dense().unwrap(), owned.to_dense().unwrap());
    assert_eq!(*arrays, arrays_of(&owned));
}

impl PartialEq for Arrays {
    fn eq(&self, other: &Self) -> bool {
        (&self.indptr, &self.indices, &self.values)
            == (&other.indptr, &other.indices, &other.values)
    }
}

#[test]
fn shared_csr_arrays_are_checked_like_a_csr_file() {
    let good = Arrays {
        indptr: vec![0, 2, 2, 3],
        indices: vec![0, 2, 1],
        values: vec![1.0, -2.0, 3.0],
    };
    let y = array![1.0, -1.0, 1.0];
    let check = |arrays: Arrays, shape: (usize, usize), y: Array1<f64>| {
        Dataset::from_shared_csr(Arc::new(arrays), shape, y)
    };
    assert!(check(good.clone(), (3, 3), y.clone()).is_ok());
    let malformed = |arrays: Arrays, shape: (usize, usize)| -> (Option<usize>, String) {
        match check(arrays, shape, Array1::ones(shape.0)) {
            Err(Error::MalformedCsr { row, message }) => (row, message),
            other => panic!("expected MalformedCsr, got {other:?}"),
        }
    };
    // A column index beyond d, in the last row.
    let (row, message) = malformed(good.clone(), (3, 1));
    assert_eq!(row, Some(0));
    assert!(
        message.contains("stored entry 1: column index 2 is beyond the 1 columns"),
        "{message}"
    );
    // Indices that do not increase within a row.
    let mut unsorted = good.clone();
    unsorted.indices = vec![2, 0, 1];
    let (row, message) = malformed(unsorted, (3, 3));
    assert_eq!(row, Some(0));
    assert!(message.contains("column index 0 follows 2"), "{message}");
    let mut repeated = good.clone();
    repeated.indices = vec![1, 1, 1];
    assert!(malformed(repeated, (3, 3)).1.contains("follows 1"));
    // A decreasing indptr, one that does not start at 0 or end at nnz, or has the wrong length.
    let mut decreasing = good.clone();
    decreasing.indptr = vec![0, 2, 1, 3];
    let (row, message) = malformed(decreasing, (3, 3));
    assert_eq!(row, Some(1));
    assert!(message.contains("decreases from 2 to 1"), "{message}");
    let mut late = good.clone();
    late.indptr = vec![1, 2, 2, 3];
    assert!(malformed(late, (3, 3)).1.contains("starts at 1"));
    let mut short = good.clone();
    short.indptr = vec![0, 2, 2, 2];
    assert!(malformed(short, (3, 3)).1.contains("ends at 2"));
    assert!(malformed(good.clone(), (2, 3)).1.contains("2 rows need 3"));
    let mut unequal = good.clone();
    unequal.values.pop();
    assert!(malformed(unequal, (3, 3)).1.contains("same length"));
    // A value that is not finite is the error every constructor gives, at its row and column.
    let mut nan = good.clone();
    nan.values[2] = f64::NAN;
    let bad = check(nan, (3, 3), y.clone());
    assert!(
        matches!(
            bad,
            Err(Error::NonFinite {
                row: 2,
                column: 1,
                ..
            })
        ),
        "{bad:?}"
    );
    let bad = check(good.clone(), (3, 3), array![1.0, 0.5, 1.0]);
    assert!(matches!(bad, Err(Error::Label { row: 1, .. })), "{bad:?}");
    let bad = check(good.clone(), (3, 0), y.clone());
    assert!(matches!(bad, Err(Error::NoFeatures)), "{bad:?}");
    assert!(check(good, (usize::MAX, 3), y).is_err());
    let bad = malformed(
        Arrays {
            indptr: vec![0, 1],
            indices: vec![0],
            values: vec![1.0],
        },
        (1, usize::MAX),
    );
    assert!(bad.1.contains("32-bit"), "{bad:?}");
}
