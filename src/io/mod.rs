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
//! **Loading is streamed**: the text readers read a regular file in 256 KiB blocks, count the records
//! first and allocate the matrix once at its final size, so peak memory is the final dataset plus one
//! block; the NumPy readers stream the data into the matrix after checking the header's shape against the
//! bytes present. No reader panics or aborts on any input.
//!
//! **Streams are read once**: the path `-` is standard input (its format comes from
//! [`ReadOptions::format`]), and a named pipe, process substitution or device is never opened twice. A
//! text stream's matrix grows as rows arrive ([`read_csv_stream`], [`read_libsvm_stream`]); `.npy` and
//! `.npz` streams are held in memory first, after their first bytes are checked.
//!
//! **gzip** and **zstd** input is recognised by its first bytes, whatever its name, and decompressed as a
//! stream; [`save`] compresses a name ending in `.gz` (and refuses `.zst`, which it cannot write). Nothing caps the decompressed size except the line cap
//! and the readers' matrix-size checks (a LIBSVM dimension far beyond what the input could hold needs
//! `--features`).
//!
//! **Lines are at most [`MAX_LINE`] bytes** (64 MiB): a longer one is an error naming the file, the line
//! and its byte offset, so an input that never ends a line (`/dev/zero`) ends in an error, not a hang or an
//! abort. Lines end with `\n`, `\r\n`, or a lone `\r` when the first line ends so. Values echoed in
//! messages are cut after 60 characters and control bytes are escaped.

mod atomic;
mod classes;
mod csv;
mod labels;
mod libsvm;
mod matrix;
mod npy;
mod options;
mod source;
mod storage;
mod text;

use std::path::Path;

pub use self::classes::{open_features, open_multiclass, open_multiclass_as, save_multiclass};
pub use self::csv::{read_csv, read_csv_stream, write_csv};
pub use self::libsvm::{read_libsvm, read_libsvm_stream, write_libsvm};
pub use self::matrix::read_matrix;
pub use self::npy::{read_npy, read_npz, write_npy, write_npz};
pub use self::options::{LabelColumn, ReadOptions};
pub use self::storage::Storage;
// Readers of bytes and writers to any `Write`, for the tests and benches: not the documented API.
#[doc(hidden)]
pub use self::{
    csv::{read_csv_from, write_csv_to},
    libsvm::{read_libsvm_from, write_libsvm_to},
    npy::{read_npy_from, read_npz_from, write_npy_to},
    text::MAX_LINE,
};

use crate::dataset::Dataset;
use crate::error::{Error, Location, Result};
pub(crate) use atomic::write_atomically;

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
    /// assert_eq!(Format::from_path("a/b.csv.gz".as_ref())?, Format::Csv);
    /// assert!(Format::from_path("a/b.xlsx".as_ref()).is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn from_path(path: &Path) -> Result<Self> {
        if source::is_stdin(path) {
            return Err(Error::parse(
                Location::new(source::STDIN_NAME),
                "standard input (`-`) has no file name to tell its format: give --input-format \
                 csv, tsv, libsvm, npy or npz",
            ));
        }
        let ext = source::format_extension(path);
        Self::from_extension(&ext).ok_or_else(|| {
            Error::parse(
                Location::new(path),
                format!(
                    "unknown file extension `.{ext}`: expected .csv, .tsv, .txt, .svm, .libsvm, .npy or .npz, \
                     optionally followed by .gz"
                ),
            )
        })
    }

    /// The format for a lower-case extension without its dot.
    fn from_extension(ext: &str) -> Option<Self> {
        match ext {
            "csv" | "txt" | "tsv" => Some(Format::Csv),
            "svm" | "libsvm" => Some(Format::Libsvm),
            "npy" => Some(Format::Npy),
            "npz" => Some(Format::Npz),
            _ => None,
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

/// Read a dataset, choosing the reader by [`input_format`]. The path `-` reads standard input; named
/// pipes, process substitution and gzip-compressed files (by their first bytes) are read as streams,
/// each byte once.
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
    let format = input_format(path, options)?;
    options.check_format(format)?;
    let data = match format {
        Format::Csv => read_csv(path, options),
        Format::Libsvm => read_libsvm(path, options),
        Format::Npy => read_npy(path, options),
        Format::Npz => read_npz(path, options),
    }?;
    // A dense format is read densely; asked for the sparse storage, its rows are then kept as CSR
    // rather than the request being ignored.
    Ok(if options.storage == Storage::Sparse && !data.is_sparse() {
        data.to_sparse()
    } else {
        data
    })
}

/// Write a dataset, choosing the writer by extension. The file is replaced atomically (written beside it
/// under a temporary name, then renamed), so a failed write never leaves a half-written file or destroys
/// the previous one. A name ending in `.gz` (`d.csv.gz`, `d.svm.gz`, `d.npy.gz`) is written
/// gzip-compressed; `.npz.gz` is refused, an `.npz` being a zip archive already.
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
    let format = Format::from_path(path)?;
    if source::is_gzip_name(path) {
        return save_gzip(path, format, data);
    }
    if source::is_zstd_name(path) {
        return Err(Error::parse(
            Location::new(path),
            "zstd files are read but not written: name the output `….gz` for a compressed file",
        ));
    }
    match format {
        Format::Csv => write_csv(path, data),
        Format::Libsvm => write_libsvm(path, data),
        Format::Npy => write_npy(path, data),
        Format::Npz => write_npz(path, data),
    }
}

/// Write `data.csv.gz`, `data.svm.gz` or `data.npy.gz` gzip-compressed, atomically like [`save`].
fn save_gzip(path: &Path, format: Format, data: &Dataset) -> Result<()> {
    if format == Format::Npz {
        return Err(Error::parse(
            Location::new(path),
            "a .npz archive is a zip file already: write .npz, or .npy.gz",
        ));
    }
    write_atomically(path, |out| {
        let mut gz = flate2::write::GzEncoder::new(out, flate2::Compression::default());
        match format {
            Format::Csv => csv::write_delimited(&mut gz, data, csv::delimiter_for(path))?,
            Format::Libsvm => write_libsvm_to(&mut gz, data)?,
            Format::Npy | Format::Npz => write_npy_to(&mut gz, data)?,
        }
        gz.finish().map_err(|e| Error::io(path, e))?;
        Ok(())
    })
}

/// The format [`open`] reads `path` as: [`ReadOptions::format`] if set, otherwise by extension (a
/// trailing `.gz` is looked through). Standard input (`-`) needs [`ReadOptions::format`].
///
/// ```
/// use novikoff::io::{input_format, Format, ReadOptions};
/// assert_eq!(input_format("d.svm.gz".as_ref(), &ReadOptions::default())?, Format::Libsvm);
/// let from_stdin = ReadOptions::default().input_format("npy")?;
/// assert_eq!(input_format("-".as_ref(), &from_stdin)?, Format::Npy);
/// assert!(input_format("-".as_ref(), &ReadOptions::default()).is_err());
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn input_format(path: &Path, options: &ReadOptions) -> Result<Format> {
    match options.format {
        Some(format) => Ok(format),
        // A name without a known extension, such as `/dev/fd/63` from `<(zcat data.svm.gz)`.
        None => Format::from_path(path).map_err(|e| match e {
            Error::Parse { at, message } if !source::is_stdin(path) => {
                Error::parse(at, format!("{message}; or give --input-format"))
            }
            other => other,
        }),
    }
}
