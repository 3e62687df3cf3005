//! The worked examples of the source documents, built in.
//!
//! | name | source | what it shows |
//! |---|---|---|
//! | `seed004` | 10-607 slides (seed 004) | six 2-D points; the no-bias perceptron goes (1,−2), (2,−1), (3,1); R² = 5, γ = 1 |
//! | `cs536-xor` | CS 536 (seed 001) | XOR: not linearly separable |
//! | `cs536-1d` | CS 536 (seed 001) | (−1, −1), (0, +1), (1, −1): not separable by a threshold |

use ndarray::array;

use crate::dataset::Dataset;

/// The names of the built-in examples.
///
/// ```
/// assert!(novikoff::textbook::NAMES.contains(&"seed004"));
/// ```
pub const NAMES: [&str; 3] = ["seed004", "cs536-xor", "cs536-1d"];

/// A built-in example by name.
///
/// ```
/// let data = novikoff::textbook::example("seed004").unwrap();
/// assert_eq!(data.n_samples(), 6);
/// assert!(novikoff::textbook::example("nope").is_none());
/// ```
pub fn example(name: &str) -> Option<Dataset> {
    let (x, y) = match name {
        "seed004" => (
            array![
                [-1.0, 2.0],
                [1.0, 0.0],
                [1.0, 1.0],
                [-1.0, 0.0],
                [-1.0, -2.0],
                [1.0, -1.0]
            ],
            array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0],
        ),
        "cs536-xor" => (
            array![[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]],
            array![1.0, -1.0, -1.0, 1.0],
        ),
        "cs536-1d" => (array![[-1.0], [0.0], [1.0]], array![-1.0, 1.0, -1.0]),
        _ => return None,
    };
    Some(Dataset::new(x, y).expect("the built-in examples are valid"))
}
