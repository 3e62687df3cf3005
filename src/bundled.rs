//! Small real datasets bundled with the crate, for experiments that need no download: Fisher's iris,
//! the wine cultivars, the Wisconsin breast-cancer diagnoses, the 8 × 8 optical digits and the Palmer
//! penguins (`data/real/`, where `LICENSES.md` gives each one's source and licence).
//!
//! Each is multi-class; [`dataset`] turns one into a binary problem, one class against the rest, the
//! way `--positive` does for a file. Their raw features are on very different scales, which is what
//! makes them interesting for the theorem: the bound `(R/γ)²` of the breast-cancer data is about 10¹⁶.
//!
//! | name | rows × features | classes |
//! |---|---|---|
//! | `iris` | 150 × 4 | setosa, versicolor, virginica |
//! | `wine` | 178 × 13 | class_0, class_1, class_2 |
//! | `breast-cancer` | 569 × 30 | malignant, benign |
//! | `digits` | 1797 × 64 | 0 … 9 |
//! | `penguins` | 342 × 4 | Adelie, Chinstrap, Gentoo |

use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::io::{ReadOptions, read_csv_stream};

/// The names of the bundled datasets.
///
/// ```
/// assert!(novikoff::bundled::NAMES.contains(&"iris"));
/// ```
pub const NAMES: [&str; 5] = ["iris", "wine", "breast-cancer", "digits", "penguins"];

/// The CSV text of a bundled dataset (header row, the class in the last column).
///
/// ```
/// assert!(novikoff::bundled::csv("penguins").unwrap().starts_with("bill_length_mm,"));
/// assert!(novikoff::bundled::csv("mnist").is_none());
/// ```
pub fn csv(name: &str) -> Option<&'static str> {
    Some(match name {
        "iris" => include_str!("../data/real/iris.csv"),
        "wine" => include_str!("../data/real/wine.csv"),
        "breast-cancer" => include_str!("../data/real/breast_cancer.csv"),
        "digits" => include_str!("../data/real/digits.csv"),
        "penguins" => include_str!("../data/real/penguins.csv"),
        _ => return None,
    })
}

/// A bundled dataset as a binary problem: the class `positive` (+1) against the rest (−1).
///
/// ```
/// let setosa = novikoff::bundled::dataset("iris", "setosa")?;
/// assert_eq!((setosa.n_samples(), setosa.n_features()), (150, 4));
/// assert_eq!(setosa.class_counts(), (50, 100));
/// assert!(novikoff::bundled::dataset("iris", "rose").is_err());
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// [`Error::Parameter`] for an unknown name, or a class the dataset does not have.
pub fn dataset(name: &str, positive: &str) -> Result<Dataset> {
    let text = csv(name).ok_or_else(|| {
        Error::parameter(
            "family",
            format!(
                "unknown bundled dataset `{name}`: expected one of {}",
                NAMES.join(", ")
            ),
        )
    })?;
    let options = ReadOptions::default().positive(Some(positive.to_string()));
    let data = read_csv_stream(
        &mut text.as_bytes(),
        format!("<bundled {name}>").as_ref(),
        &options,
    )?;
    if data.class_counts().0 == 0 {
        return Err(Error::parameter(
            "positive",
            format!("the bundled dataset `{name}` has no class `{positive}`"),
        ));
    }
    Ok(data)
}
