//! The crate's error type.
//!
//! Every fallible function in novikoff returns [`Result<T>`](Result). Input errors (a file that does not
//! parse, a value that is not finite, labels that cannot be mapped to ±1) carry the path, the line and the
//! column where the problem was found, so that a user can open the file at that place. The CLI maps
//! [`Error::is_input`] errors to exit code 2 and everything else to exit code 1.

use std::fmt;
use std::path::PathBuf;

/// Where in an input file an error was found. Lines and columns are 1-based; `0` means "not known" and is
/// not printed.
///
/// ```
/// use novikoff::Location;
/// let at = Location::new("data.csv").line(3).column(2);
/// assert_eq!(at.to_string(), "data.csv:3:2");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    /// The file, or a description such as `<stdin>` or `<memory>`.
    pub path: PathBuf,
    /// 1-based line number, `0` when not known.
    pub line: usize,
    /// 1-based column number (a field index for CSV), `0` when not known.
    pub column: usize,
}

impl Location {
    /// A location naming only a file.
    ///
    /// ```
    /// let at = novikoff::Location::new("x.svm");
    /// assert_eq!(at.to_string(), "x.svm");
    /// ```
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            line: 0,
            column: 0,
        }
    }

    /// The same location at a 1-based line.
    ///
    /// ```
    /// assert_eq!(novikoff::Location::new("a.csv").line(7).to_string(), "a.csv:7");
    /// ```
    #[must_use]
    pub fn line(mut self, line: usize) -> Self {
        self.line = line;
        self
    }

    /// The same location at a 1-based column.
    ///
    /// ```
    /// assert_eq!(novikoff::Location::new("a.csv").line(7).column(3).to_string(), "a.csv:7:3");
    /// ```
    #[must_use]
    pub fn column(mut self, column: usize) -> Self {
        self.column = column;
        self
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        Ok(())
    }
}

/// Everything that can go wrong in novikoff.
///
/// The enum is `#[non_exhaustive]`: new kinds of failure may be added without a breaking change, so match
/// with a wildcard arm.
///
/// ```
/// use novikoff::{Dataset, Error};
/// use ndarray::array;
/// let err = Dataset::new(array![[1.0, f64::NAN]], array![1.0]).unwrap_err();
/// assert!(matches!(err, Error::NonFinite { row: 0, column: 1, .. }));
/// assert!(err.is_input());
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The operating system refused a read or a write.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// A file could not be parsed, or its contents are not a valid dataset.
    #[error("{at}: {message}")]
    Parse {
        /// Where the problem is.
        at: Location,
        /// What is wrong, in words.
        message: String,
    },

    /// A dataset has no rows.
    #[error("the dataset is empty: it has no examples")]
    Empty,

    /// A dataset has no feature columns.
    #[error("the dataset has no features: every example needs at least one")]
    NoFeatures,

    /// The number of labels differs from the number of rows.
    #[error("shape mismatch: {what}: expected {expected}, found {found}")]
    Shape {
        /// What was being compared.
        what: &'static str,
        /// The length that was required.
        expected: usize,
        /// The length that was given.
        found: usize,
    },

    /// A feature value is NaN or infinite.
    #[error("row {row}, column {column}: value {value} is not finite")]
    NonFinite {
        /// 0-based row index.
        row: usize,
        /// 0-based column index.
        column: usize,
        /// The offending value.
        value: f64,
    },

    /// A label is not +1 or -1.
    #[error("row {row}: label {value} is not +1 or -1")]
    Label {
        /// 0-based row index.
        row: usize,
        /// The offending label.
        value: f64,
    },

    /// Only one class is present where a free bias needs two: with one class the maximum margin with a
    /// free bias is unbounded. Through the origin a single class is legitimate, and nothing refuses it.
    #[error(
        "only one class is present{context} (every label is {label:+}); a free bias needs both classes, \
         since with one class the margin with a free bias is unbounded; through the origin one class is fine"
    )]
    SingleClass {
        /// The one label that occurs.
        label: f64,
        /// Extra context such as the file name, starting with a separator, or empty.
        context: String,
    },

    /// A row of zeros cannot be scaled to unit length.
    #[error("row {row} is the zero vector, so it cannot be normalised to unit length")]
    ZeroRow {
        /// 0-based row index.
        row: usize,
    },

    /// A parameter is out of its domain.
    #[error("invalid parameter `{name}`: {reason}")]
    Parameter {
        /// The parameter's name.
        name: &'static str,
        /// Why it was refused.
        reason: String,
    },

    /// The feature values span more binades than exact `f64` arithmetic can handle: no power-of-two
    /// scaling brings the largest into range without rounding the smallest (for instance 10³⁰⁰ and
    /// 10⁻³⁰⁰ in one matrix). An input error: rescale or round the data.
    #[error("values out of range: {reason}")]
    Range {
        /// Which values, and why.
        reason: String,
    },

    /// A numerical computation failed on valid input: an SVD that does not converge, a margin answer
    /// that fails its own check, weights that overflow in online learning, a generator whose rounding
    /// allowance proved too small. Never an internal invariant of the crate (those are assertions: a
    /// broken one is a bug to report, not an outcome to handle).
    #[error("solver failure: {0}")]
    Solver(String),

    /// An algorithm that needs the dense matrix was given a sparse dataset too large to hold densely. Not
    /// an input error: the data are valid, and the algorithm does not yet work on sparse rows.
    #[error(
        "{what} needs the dense matrix, and this sparse {n} × {d} dataset would take {bytes} bytes as one \
         (the limit is {limit} bytes)"
    )]
    TooLargeToDensify {
        /// The algorithm that needs the dense matrix.
        what: &'static str,
        /// Rows.
        n: usize,
        /// Columns.
        d: usize,
        /// The bytes the dense matrix would take.
        bytes: u64,
        /// The limit.
        limit: u64,
    },

    /// A sparse matrix would have more columns than its 32-bit column indices can address (see
    /// [`MAX_SPARSE_COLUMNS`](crate::dataset::MAX_SPARSE_COLUMNS)): a file or matrix beyond it, or a
    /// lifted matrix (Kesler's `k` blocks of `d + 1` columns) beyond `u32::MAX − 1`.
    #[error(
        "{what} would have {d} columns, more than the sparse storage's 32-bit column indices address \
         (at most {limit})"
    )]
    TooManyColumns {
        /// The matrix.
        what: &'static str,
        /// The columns it would have.
        d: u64,
        /// The most it may have.
        limit: u64,
    },

    /// The arrays handed to [`Dataset::from_shared_csr`](crate::Dataset::from_shared_csr) are not a
    /// CSR matrix of the stated shape (a file's are reported as [`Error::Parse`], at the file).
    #[error("the CSR matrix is malformed{}: {message}", row.map(|r| format!(" at row {r}")).unwrap_or_default())]
    MalformedCsr {
        /// The 0-based row, when the problem is in one.
        row: Option<usize>,
        /// What is wrong, naming the stored entry.
        message: String,
    },

    /// An experiment spec or results file is inconsistent.
    #[error("{at}: {message}")]
    Spec {
        /// Where the problem is (file, line).
        at: Location,
        /// What is wrong.
        message: String,
    },

    /// Tasks of an experiment failed. Their rows are stored with their errors; this reports them once the
    /// run is over, so that a batch script notices.
    #[error(
        "{failed} task(s) failed; their rows hold the errors. The first: {first_task}: {first_error}"
    )]
    TasksFailed {
        /// How many tasks of this run failed.
        failed: usize,
        /// The first failed task's dataset and rule.
        first_task: String,
        /// Its error.
        first_error: String,
        /// Whether every failure came from the input (a data file, a generator's parameters) rather than
        /// a solver.
        input: bool,
    },
}

impl Error {
    /// Build a [`Error::Parse`] at a location.
    ///
    /// ```
    /// let e = novikoff::Error::parse(novikoff::Location::new("a.csv").line(2), "ragged row");
    /// assert_eq!(e.to_string(), "a.csv:2: ragged row");
    /// ```
    pub fn parse(at: Location, message: impl Into<String>) -> Self {
        Error::Parse {
            at,
            message: message.into(),
        }
    }

    /// Build a [`Error::Parameter`].
    ///
    /// ```
    /// let e = novikoff::Error::parameter("eta", "must be positive");
    /// assert_eq!(e.to_string(), "invalid parameter `eta`: must be positive");
    /// ```
    pub fn parameter(name: &'static str, reason: impl Into<String>) -> Self {
        Error::Parameter {
            name,
            reason: reason.into(),
        }
    }

    /// Build a [`Error::Io`] for a path.
    ///
    /// ```
    /// let e = novikoff::Error::io("missing.csv", std::io::Error::from(std::io::ErrorKind::NotFound));
    /// assert!(e.to_string().starts_with("missing.csv: "));
    /// ```
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// True when the error is the user's input (a file, a value, a parameter, a spec), as opposed to a
    /// failure of the machine or of a solver. The CLI exits with code 2 for these and 1 otherwise.
    ///
    /// ```
    /// assert!(novikoff::Error::Empty.is_input());
    /// assert!(!novikoff::Error::Solver("stalled".into()).is_input());
    /// ```
    pub fn is_input(&self) -> bool {
        match self {
            Error::Io { source, .. } => matches!(
                source.kind(),
                std::io::ErrorKind::NotFound
                    | std::io::ErrorKind::InvalidData
                    | std::io::ErrorKind::InvalidInput
                    | std::io::ErrorKind::IsADirectory
                    | std::io::ErrorKind::PermissionDenied
                    | std::io::ErrorKind::UnexpectedEof
            ),
            Error::Solver(_) | Error::TooLargeToDensify { .. } => false,
            Error::TasksFailed { input, .. } => *input,
            _ => true,
        }
    }

    /// Re-anchor a dataset validation error (which knows rows and columns but not the file) at a file
    /// location. `line_of_row` maps a 0-based row index to a 1-based line of the file. Other errors pass
    /// through unchanged.
    ///
    /// ```
    /// use novikoff::{Error, Location};
    /// let e = Error::Label { row: 4, value: 3.0 };
    /// let e = e.at_file(&Location::new("d.csv"), |row| row + 2);
    /// assert_eq!(e.to_string(), "d.csv:6: label 3 is not +1 or -1");
    /// ```
    pub fn at_file(self, file: &Location, line_of_row: impl Fn(usize) -> usize) -> Self {
        let base = Location::new(file.path.clone());
        match self {
            Error::NonFinite { row, column, value } => Error::parse(
                base.line(line_of_row(row)).column(column + 1),
                format!("value {value} is not finite"),
            ),
            Error::Label { row, value } => Error::parse(
                base.line(line_of_row(row)),
                format!("label {value} is not +1 or -1"),
            ),
            Error::ZeroRow { row } => Error::parse(
                base.line(line_of_row(row)),
                "the zero vector cannot be normalised to unit length",
            ),
            Error::Empty => Error::parse(base, "no examples: the file holds no data rows"),
            Error::NoFeatures => Error::parse(base, "no feature columns: only a label column"),
            Error::SingleClass { label, .. } => Error::SingleClass {
                label,
                context: format!(" in {}", file.path.display()),
            },
            other => other,
        }
    }

    /// The exit code the CLI uses for this error: 2 for input and usage errors, 1 otherwise.
    ///
    /// ```
    /// assert_eq!(novikoff::Error::Empty.exit_code(), 2);
    /// ```
    pub fn exit_code(&self) -> i32 {
        if self.is_input() { 2 } else { 1 }
    }
}

/// `Result<T, novikoff::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;
