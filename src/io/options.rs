//! How a data file is read: the label column and the options every reader takes.

use super::{Format, Storage, labels};
use crate::error::{Error, Result};

/// Which column holds the labels.
///
/// ```
/// use novikoff::io::LabelColumn;
/// assert_eq!(LabelColumn::parse("3"), LabelColumn::Index(2));
/// assert_eq!(LabelColumn::parse("class"), LabelColumn::Name("class".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum LabelColumn {
    /// The last column (the default).
    #[default]
    Last,
    /// The column with this header name.
    Name(String),
    /// The column at this 0-based index.
    Index(usize),
}

impl LabelColumn {
    /// Parse the CLI's `--label-col`: a header name, or a 1-based column number when no header cell has
    /// that name. Parsing itself never fails; an unknown name is reported when the file is read.
    ///
    /// ```
    /// assert_eq!(novikoff::io::LabelColumn::parse("1"), novikoff::io::LabelColumn::Index(0));
    /// ```
    pub fn parse(text: &str) -> Self {
        match text.trim().parse::<usize>() {
            Ok(k) if k >= 1 => LabelColumn::Index(k - 1),
            _ => LabelColumn::Name(text.trim().to_string()),
        }
    }
}

/// How to read a dataset file.
///
/// ```
/// use novikoff::io::{LabelColumn, ReadOptions};
/// let opts = ReadOptions::default().label(LabelColumn::Name("y".into())).positive(Some("M".into()));
/// assert_eq!(opts.positive.as_deref(), Some("M"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    /// Where the labels are (CSV).
    pub label: LabelColumn,
    /// The value of the positive class; every other value becomes −1. Without it the labels must be ±1
    /// or 0/1.
    pub positive: Option<String>,
    /// Whether the first line is a header (CSV).
    pub header: bool,
    /// The field delimiter (CSV); `None` picks `\t` for `.tsv` and `,` otherwise.
    pub delimiter: Option<u8>,
    /// The number of features d. For LIBSVM it sets the dimension (the default is the largest index in the
    /// file) and an index beyond it is an error; for the other formats it is a check that the file has
    /// exactly d feature columns.
    pub n_features: Option<usize>,
    /// A least dimension for LIBSVM, whose dimension is otherwise the largest index in the file: a
    /// model's, when a held-out file's rows happen to end before its last features (absent entries
    /// are zeros). The other formats state their dimension, and ignore it; `n_features` overrides it.
    pub min_features: Option<usize>,
    /// The format, whatever the file's name says; required for standard input (`-`), which has no
    /// name. `None` picks the format by extension (see [`Format::from_path`]).
    pub format: Option<Format>,
    /// The storage of a sparse format (LIBSVM, scipy's sparse `.npz`); see [`Storage`].
    pub storage: Storage,
    /// Keep every class (set by [`open_multiclass`](super::open_multiclass)).
    pub(crate) classes: labels::ClassSink,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            label: LabelColumn::Last,
            positive: None,
            header: true,
            delimiter: None,
            n_features: None,
            min_features: None,
            format: None,
            storage: Storage::Auto,
            classes: labels::ClassSink::default(),
        }
    }
}

impl ReadOptions {
    /// Set the label column.
    ///
    /// ```
    /// let o = novikoff::io::ReadOptions::default().label(novikoff::io::LabelColumn::Index(0));
    /// assert_eq!(o.label, novikoff::io::LabelColumn::Index(0));
    /// ```
    #[must_use]
    pub fn label(mut self, label: LabelColumn) -> Self {
        self.label = label;
        self
    }

    /// Set the positive class.
    ///
    /// ```
    /// let o = novikoff::io::ReadOptions::default().positive(Some("4".into()));
    /// assert_eq!(o.positive.as_deref(), Some("4"));
    /// ```
    #[must_use]
    pub fn positive(mut self, positive: Option<String>) -> Self {
        self.positive = positive;
        self
    }

    /// Say whether the first line is a header.
    ///
    /// ```
    /// assert!(!novikoff::io::ReadOptions::default().header(false).header);
    /// ```
    #[must_use]
    pub fn header(mut self, header: bool) -> Self {
        self.header = header;
        self
    }

    /// Set the delimiter byte.
    ///
    /// ```
    /// assert_eq!(novikoff::io::ReadOptions::default().delimiter(b';').delimiter, Some(b';'));
    /// ```
    #[must_use]
    pub fn delimiter(mut self, delimiter: u8) -> Self {
        self.delimiter = Some(delimiter);
        self
    }

    /// Set the number of features (see [`ReadOptions::n_features`]).
    ///
    /// ```
    /// assert_eq!(novikoff::io::ReadOptions::default().n_features(10).n_features, Some(10));
    /// ```
    #[must_use]
    pub fn n_features(mut self, d: usize) -> Self {
        self.n_features = Some(d);
        self
    }

    /// Set a least dimension for LIBSVM (see [`ReadOptions::min_features`]).
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("short.svm");
    /// std::fs::write(&path, "1 1:0.5\n-1 2:1\n").unwrap();
    /// let options = novikoff::io::ReadOptions::default().min_features(5);
    /// assert_eq!(novikoff::io::open(&path, &options)?.n_features(), 5);
    /// assert_eq!(novikoff::io::open(&path, &Default::default())?.n_features(), 2);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[must_use]
    pub fn min_features(mut self, d: usize) -> Self {
        self.min_features = Some(d);
        self
    }

    /// Set the storage of a sparse format (see [`Storage`]).
    ///
    /// ```
    /// use novikoff::io::{ReadOptions, Storage};
    /// assert_eq!(ReadOptions::default().storage(Storage::Sparse).storage, Storage::Sparse);
    /// ```
    #[must_use]
    pub fn storage(mut self, storage: Storage) -> Self {
        self.storage = storage;
        self
    }

    /// Set the input format, whatever the file's name says (required to read standard input, `-`).
    ///
    /// ```
    /// use novikoff::io::{Format, ReadOptions};
    /// assert_eq!(ReadOptions::default().format(Format::Libsvm).format, Some(Format::Libsvm));
    /// ```
    #[must_use]
    pub fn format(mut self, format: Format) -> Self {
        self.format = Some(format);
        self
    }

    /// Set the input format by name, as the CLI's `--input-format` does: `csv`, `tsv` (CSV with a tab
    /// delimiter unless one is set), `txt`, `svm`/`libsvm`, `npy` or `npz` (case-insensitive).
    ///
    /// ```
    /// use novikoff::io::{Format, ReadOptions};
    /// let o = ReadOptions::default().input_format("tsv")?;
    /// assert_eq!((o.format, o.delimiter), (Some(Format::Csv), Some(b'\t')));
    /// assert!(ReadOptions::default().input_format("xlsx").is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn input_format(mut self, name: &str) -> Result<Self> {
        let name = name.trim().to_ascii_lowercase();
        let format = Format::from_extension(&name).ok_or_else(|| {
            Error::parameter(
                "input-format",
                format!("`{name}` is not a format: use csv, tsv, txt, libsvm, svm, npy or npz"),
            )
        })?;
        if name == "tsv" && self.delimiter.is_none() {
            self.delimiter = Some(b'\t');
        }
        self.format = Some(format);
        Ok(self)
    }
}

impl ReadOptions {
    /// Refuse the options that `format` would ignore: the label column, `header = false` and the
    /// delimiter describe delimited text only. A LIBSVM, `.npy` or `.npz` file has its labels in a fixed
    /// place, and reading it as if the option had been honoured would give a silently different dataset
    /// from the one asked for. The error is [`Error::Parameter`] named `label`, `header` or `delimiter`.
    ///
    /// ```
    /// use novikoff::io::{Format, LabelColumn, ReadOptions};
    /// let options = ReadOptions::default().label(LabelColumn::Index(0));
    /// assert!(options.check_format(Format::Csv).is_ok());
    /// let err = options.check_format(Format::Libsvm).unwrap_err();
    /// assert!(matches!(err, novikoff::Error::Parameter { name: "label", .. }));
    /// assert!(ReadOptions::default().check_format(Format::Npz).is_ok());
    /// ```
    pub fn check_format(&self, format: Format) -> Result<()> {
        let (label, header, delimiter) = match format {
            Format::Csv => return Ok(()),
            Format::Libsvm => (
                "the label is the first field of every line",
                "there is no header line",
                "the fields are separated by spaces and tabs",
            ),
            Format::Npy => (
                "the label is the last column of the array",
                "there is no header row (the file is binary)",
                "there is no delimiter (the file is binary)",
            ),
            Format::Npz => (
                "the labels are the array `y`",
                "there is no header row (the file is binary)",
                "there is no delimiter (the file is binary)",
            ),
        };
        let refuse = |name: &'static str, what: &str, why: &str| {
            Err(Error::parameter(
                name,
                format!(
                    "{what} applies only to delimited text (.csv, .tsv, .txt); in a {} file {why}, so it would be ignored",
                    format.name()
                ),
            ))
        };
        if self.label != LabelColumn::Last {
            return refuse("label", "a label column", label);
        }
        if !self.header {
            return refuse("header", "saying there is no header", header);
        }
        if self.delimiter.is_some() {
            return refuse("delimiter", "a delimiter", delimiter);
        }
        Ok(())
    }
}
