//! Reading and writing datasets: CSV, LIBSVM/SVMlight and NumPy.
//!
//! [`open`] chooses the reader by the file's extension and [`save`] the writer. Every reader feeds the same
//! validation (finite features, at least one row and one feature) and the same label mapping (see
//! [`ReadOptions::positive`]), and every error names the file, the line and the column (for the binary
//! formats, the array and the entry), and says what is wrong.
//!
//! | extension | format | reader / writer |
//! |---|---|---|
//! | `.csv`, `.txt`, `.tsv` | delimited text, header row optional, label column chosen by name or number | [`read_csv`] / [`write_csv`] |
//! | `.svm`, `.libsvm` | LIBSVM / SVMlight: `label index:value …`, 1-based, `#` comments | [`read_libsvm`] / [`write_libsvm`] |
//! | `.npy` | one 2-D array, the label in the last column | [`read_npy`] / [`write_npy`] |
//! | `.npz` | arrays `x` (n × d) and `y` (n) | [`read_npz`] / [`write_npz`] |
//!
//! **Round trips are exact**: a dataset written in any format reads back with identical bits (text
//! formats write the shortest decimal that parses back to the same `f64`; the parser is correctly rounded).
//!
//! **Loading is streamed**: the text readers read the file in 256 KiB blocks, count the records first and
//! allocate the matrix once at its final size, so peak memory is the final dataset plus one block; the
//! NumPy readers stream the data into the matrix after checking the header's shape against the bytes
//! present. No reader panics or aborts on any input.

mod csv;
mod labels;
mod libsvm;
mod npy;
mod text;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub use self::csv::{read_csv, read_csv_from, write_csv, write_csv_to};
pub use self::libsvm::{read_libsvm, read_libsvm_from, write_libsvm, write_libsvm_to};
pub use self::npy::{
    read_npy, read_npy_from, read_npz, read_npz_from, write_npy, write_npy_to, write_npz,
};

use crate::dataset::Dataset;
use crate::error::{Error, Location, Result};

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
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            label: LabelColumn::Last,
            positive: None,
            header: true,
            delimiter: None,
            n_features: None,
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

/// The formats [`open`] and [`save`] know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Delimited text with a label column.
    Csv,
    /// LIBSVM / SVMlight sparse text.
    Libsvm,
    /// A NumPy `.npy` array with the label in the last column.
    Npy,
    /// A NumPy `.npz` archive with arrays `x` and `y`.
    Npz,
}

impl Format {
    /// The format for a path, by extension (case-insensitive).
    ///
    /// ```
    /// use novikoff::io::Format;
    /// assert_eq!(Format::from_path("a/b.csv".as_ref())?, Format::Csv);
    /// assert_eq!(Format::from_path("a/b.SVM".as_ref())?, Format::Libsvm);
    /// assert_eq!(Format::from_path("b.npz".as_ref())?, Format::Npz);
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
            "svm" | "libsvm" => Ok(Format::Libsvm),
            "npy" => Ok(Format::Npy),
            "npz" => Ok(Format::Npz),
            _ => Err(Error::parse(
                Location::new(path),
                format!(
                    "unknown file extension `.{ext}`: expected .csv, .tsv, .txt, .svm, .libsvm, .npy or .npz"
                ),
            )),
        }
    }

    /// The format's name.
    ///
    /// ```
    /// assert_eq!(novikoff::io::Format::Libsvm.name(), "libsvm");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Libsvm => "libsvm",
            Format::Npy => "npy",
            Format::Npz => "npz",
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
            Location::new(path),
            "is a directory, not a data file",
        ));
    }
    let format = Format::from_path(path)?;
    options.check_format(format)?;
    match format {
        Format::Csv => read_csv(path, options),
        Format::Libsvm => read_libsvm(path, options),
        Format::Npy => read_npy(path, options),
        Format::Npz => read_npz(path, options),
    }
}

/// Write a dataset, choosing the writer by extension. The file is replaced atomically (written beside it
/// under a temporary name, then renamed), so a failed write never leaves a half-written file or destroys
/// the previous one.
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[0.1, 0.2], [0.3, 0.4]], array![1.0, -1.0])?;
/// let dir = tempfile::tempdir().unwrap();
/// for name in ["d.csv", "d.svm", "d.npy", "d.npz"] {
///     let path = dir.path().join(name);
///     novikoff::io::save(&path, &data)?;
///     assert_eq!(novikoff::io::open(&path, &Default::default())?, data);
/// }
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn save(path: impl AsRef<Path>, data: &Dataset) -> Result<()> {
    let path = path.as_ref();
    match Format::from_path(path)? {
        Format::Csv => write_csv(path, data),
        Format::Libsvm => write_libsvm(path, data),
        Format::Npy => write_npy(path, data),
        Format::Npz => write_npz(path, data),
    }
}

/// Write through a temporary sibling file, then rename it over `path`.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<()>,
) -> Result<()> {
    if path.is_dir() {
        return Err(Error::parse(
            Location::new(path),
            "is a directory, not a file to write",
        ));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary: PathBuf = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let relabel = |e: Error| match e {
        Error::Io { source, .. } => Error::io(path, source),
        other => other,
    };
    let result = (|| {
        let file = File::create(&temporary).map_err(|e| Error::io(path, e))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        write(&mut out).map_err(relabel)?;
        out.flush().map_err(|e| Error::io(path, e))?;
        drop(out);
        std::fs::rename(&temporary, path).map_err(|e| Error::io(path, e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}
