//! Reading datasets with `k ≥ 2` classes: every label kept as a class.

use std::path::Path;

use super::{ReadOptions, labels, open};
use crate::dataset::{Dataset, MulticlassDataset};
use crate::error::{Error, Result};

/// Read a dataset with `k ≥ 2` classes ([`MulticlassDataset`]): every distinct label is a class, named as
/// the file spells it (numbers compare by value: `1` and `1.0` are one class), sorted as scikit-learn's
/// `classes_`. The features are read as [`open`] reads them.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("three.csv");
/// std::fs::write(&path, "x,y\n0.5,cat\n1.5,dog\n2.5,emu\n3.5,dog\n").unwrap();
/// let data = novikoff::io::open_multiclass(&path, &Default::default())?;
/// assert_eq!(data.classes(), &["cat", "dog", "emu"]);
/// assert_eq!(data.labels(), &[0, 1, 2, 1]);
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// Those of [`open`]; [`Error::Parameter`] with `--positive` (which maps the labels to two classes);
/// [`Error::Parse`] for a file with a single class, at its first row.
pub fn open_multiclass(path: impl AsRef<Path>, options: &ReadOptions) -> Result<MulticlassDataset> {
    let path = path.as_ref();
    let (features, labels) = read_classes(path, options)?;
    if labels.names.len() < 2 {
        let (at, suffix) = labels.first[0].clone();
        return Err(Error::parse(
            at,
            format!(
                "every label is `{}`{suffix}: multi-class learning needs at least two classes",
                labels.names[0]
            ),
        ));
    }
    MulticlassDataset::from_features(features, labels.names, labels.ids)
}

/// Read the features of a data file whose labels may be any classes, one or many (what a multi-class
/// model predicts on): the labels are read as [`open_multiclass`] reads them, and dropped.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("new.csv");
/// std::fs::write(&path, "x,y\n0.5,?\n1.5,?\n").unwrap();
/// let features = novikoff::io::open_features(&path, &Default::default())?;
/// assert_eq!((features.n_samples(), features.n_features()), (2, 1));
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// As [`open_multiclass`], without its refusal of a single class.
pub fn open_features(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Dataset> {
    read_classes(path.as_ref(), options).map(|(features, _)| features)
}

/// Read held-out data against the classes of the training data: a class the training data lack is an
/// error at its first row in this file. A label names a class when it is spelt the same, or when both
/// are numbers of the same value (`1.0` is the class `1`).
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("test.csv");
/// std::fs::write(&path, "x,y\n0.5,dog\n1.5,yak\n").unwrap();
/// let classes = vec!["cat".to_string(), "dog".to_string()];
/// let err = novikoff::io::open_multiclass_as(&path, &Default::default(), &classes).unwrap_err();
/// assert!(err.to_string().ends_with("test.csv:3: the class `yak` does not occur in the training data (its classes: cat, dog)"), "{err}");
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// Those of [`open`], and [`Error::Parse`] for a class only this file has.
pub fn open_multiclass_as(
    path: impl AsRef<Path>,
    options: &ReadOptions,
    classes: &[String],
) -> Result<MulticlassDataset> {
    let path = path.as_ref();
    let (features, labels) = read_classes(path, options)?;
    let mut map = Vec::with_capacity(labels.names.len());
    for (name, (at, suffix)) in labels.names.iter().zip(&labels.first) {
        let Some(class) = class_named(classes, name) else {
            return Err(Error::parse(
                at.clone(),
                format!(
                    "the class `{name}`{suffix} does not occur in the training data (its classes: {})",
                    classes.join(", ")
                ),
            ));
        };
        map.push(class);
    }
    MulticlassDataset::from_features(
        features,
        classes.to_vec(),
        labels.ids.iter().map(|&c| map[c]).collect(),
    )
}

/// The class of `classes` that a label names: the one spelt the same, else the one of the same
/// number (a file may spell the class `1` as `1.0`, as reading compares numbers by value).
fn class_named(classes: &[String], name: &str) -> Option<usize> {
    classes.iter().position(|c| c == name).or_else(|| {
        let value = labels::parse_number(name)?;
        classes
            .iter()
            .position(|c| labels::parse_number(c) == Some(value))
    })
}

fn read_classes(path: &Path, options: &ReadOptions) -> Result<(Dataset, labels::ClassLabels)> {
    if options.positive.is_some() {
        return Err(Error::parameter(
            "positive",
            "naming a positive class maps the labels to two classes, but a multi-class read keeps every \
             class: drop one of the two",
        ));
    }
    let mut options = options.clone();
    options.classes = labels::ClassSink::active();
    let features = open(path, &options)?;
    let labels = options
        .classes
        .take()
        .expect("a reader in class mode leaves its classes");
    Ok((features, labels))
}

/// Write a multi-class dataset as CSV (`x1,…,xd,y`, the class names in `y`; tab-separated for `.tsv`)
/// or LIBSVM (`name index:value …`, stored values only), replacing the file atomically. Values are
/// written in the shortest form that reads back to the same bits, so [`open_multiclass`] reads the same
/// dataset back.
///
/// ```
/// use ndarray::array;
/// use novikoff::dataset::MulticlassDataset;
/// let data = MulticlassDataset::new(array![[0.5, 0.0], [1e-300, 2.0]], vec!["a".into(), "b".into()], vec![1, 0])?;
/// let dir = tempfile::tempdir().unwrap();
/// for name in ["d.csv", "d.svm"] {
///     let path = dir.path().join(name);
///     novikoff::io::save_multiclass(&path, &data)?;
///     assert_eq!(novikoff::io::open_multiclass(&path, &Default::default())?, data);
/// }
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// [`Error::Parse`] for another format or a class name the format cannot hold (a delimiter, a quote or
/// a line break in CSV, white space in LIBSVM); [`Error::Io`] when the file cannot be written.
pub fn save_multiclass(path: impl AsRef<Path>, data: &MulticlassDataset) -> Result<()> {
    use std::io::Write;
    let path = path.as_ref();
    let format = super::Format::from_path(path)?;
    let refuse = |message: String| Err(Error::parse(crate::Location::new(path), message));
    if super::source::is_gzip_name(path) || super::source::is_zstd_name(path) {
        return refuse("a multi-class dataset is written uncompressed (.csv, .tsv or .svm)".into());
    }
    let delimiter = match format {
        super::Format::Csv => Some(if super::source::format_extension(path) == "tsv" {
            '\t'
        } else {
            ','
        }),
        super::Format::Libsvm => None,
        other => {
            return refuse(format!(
                "a multi-class dataset is written as .csv, .tsv or .svm, not {}",
                other.name()
            ));
        }
    };
    for name in data.classes() {
        let bad = match delimiter {
            Some(d) => name.contains(d) || name.contains(['"', '\n', '\r']),
            None => name.is_empty() || name.contains(char::is_whitespace) || name.contains('#'),
        };
        if bad {
            return refuse(format!(
                "the class name `{name}` cannot be written in this format (a delimiter, a quote, white \
                 space or a line break)"
            ));
        }
    }
    let features = data.features();
    if delimiter.is_some() {
        features.check_dense_size("a CSV file")?;
    }
    let d = features.n_features();
    let fail = |e: std::io::Error| Error::io(path, e);
    super::write_atomically(path, |out| {
        let mut text = String::new();
        if let Some(delimiter) = delimiter {
            for j in 1..=d {
                text.push_str(&format!("x{j}{delimiter}"));
            }
            text.push_str("y\n");
        }
        let mut dense = vec![0.0; d];
        for i in 0..data.n_samples() {
            let row = features.row_view(i);
            let name = &data.classes()[data.labels()[i]];
            match delimiter {
                Some(delimiter) => {
                    dense.iter_mut().for_each(|v| *v = 0.0);
                    for (j, v) in row.entries() {
                        dense[j] = v;
                    }
                    for v in &dense {
                        text.push_str(&format!("{v:?}{delimiter}"));
                    }
                    text.push_str(name);
                }
                None => {
                    text.push_str(name);
                    for (j, v) in row.entries().filter(|&(_, v)| v != 0.0) {
                        text.push_str(&format!(" {}:{v:?}", j + 1));
                    }
                }
            }
            text.push('\n');
            if text.len() >= 1 << 16 {
                out.write_all(text.as_bytes()).map_err(fail)?;
                text.clear();
            }
        }
        out.write_all(text.as_bytes()).map_err(fail)
    })
}
