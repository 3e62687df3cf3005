//! Datasets over values owned elsewhere (`Dataset::from_shared`, how the Python package passes a NumPy
//! array): no copy, the checks of `Dataset::new`, and every algorithm's bits unchanged.

use std::sync::Arc;

use ndarray::{Array1, Array2, array};
use novikoff::dataset::SharedValues;
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
    assert_eq!(data, owned);
    assert_eq!(data.radius().to_bits(), owned.radius().to_bits());
    for rule in [BiasRule::None, BiasRule::Classic, BiasRule::Novikoff] {
        for summation in [Summation::Sequential, Summation::Fast] {
            let params = PerceptronParams::new()
                .bias(rule)
                .summation(summation)
                .max_epochs(20);
            let a = params.fit(&data).unwrap();
            let b = params.fit(&owned).unwrap();
            assert_eq!((a.w, a.b, a.mistakes), (b.w, b.b, b.mistakes));
        }
    }
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
