//! Reading and writing datasets.
//!
//! [`open`] chooses the reader by the file's extension and every reader feeds the same validation, so an
//! error always names the file, the line and the column, and says what is wrong. Labels are mapped to ±1
//! by one set of rules for every format (see [`ReadOptions::positive`]).
//!
//! | extension | format |
//! |---|---|
//! | `.csv`, `.txt`, `.tsv` | delimited text with a header row; the label is the last column unless named |

mod csv;
mod labels;

use std::path::{Path, PathBuf};

pub use self::csv::{read_csv, read_csv_from};

use crate::dataset::Dataset;
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
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            label: LabelColumn::Last,
            positive: None,
            header: true,
            delimiter: None,
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
}

/// The formats [`open`] knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Delimited text with a label column.
    Csv,
}

impl Format {
    /// The format for a path, by extension.
    ///
    /// ```
    /// use novikoff::io::Format;
    /// assert_eq!(Format::from_path("a/b.csv".as_ref())?, Format::Csv);
    /// assert!(Format::from_path("a/b.xlsx".as_ref()).is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn from_path(path: &Path) -> Result<Self> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        match ext.as_str() {
            "csv" | "txt" | "tsv" => Ok(Format::Csv),
            _ => Err(Error::parse(
                crate::Location::new(path),
                format!("unknown file extension `.{ext}`: expected .csv, .tsv or .txt"),
            )),
        }
    }
}

/// Read a dataset, choosing the reader by extension.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("tiny.csv");
/// std::fs::write(&path, "x1,x2,y\n1,2,1\n-1,0,-1\n").unwrap();
/// let data = novikoff::io::open(&path, &Default::default())?;
/// assert_eq!((data.n_samples(), data.n_features()), (2, 2));
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn open(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Dataset> {
    let path = path.as_ref();
    if path.is_dir() {
        return Err(Error::parse(
            crate::Location::new(path),
            "is a directory, not a data file",
        ));
    }
    match Format::from_path(path)? {
        Format::Csv => read_csv(path, options),
    }
}

/// Read a whole file, turning a missing file or a directory into a clear error.
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    if path.is_dir() {
        return Err(Error::parse(
            crate::Location::new(path),
            "is a directory, not a data file",
        ));
    }
    std::fs::read(path).map_err(|e| Error::io(PathBuf::from(path), e))
}
