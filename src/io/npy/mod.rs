//! NumPy files: `.npy` (one 2-D array whose last column is the label) and `.npz` (arrays `x` and `y`).
//!
//! The header is parsed by ndarray-npy; the data is then streamed straight into the dataset's matrix,
//! after the shape has been checked against the bytes actually present, so a corrupt or hostile header can
//! neither make the reader allocate more than the file could fill nor abort it. Peak memory is the final
//! matrix plus one block of 64–256 KiB. Native float64 in C order (what `np.save` writes) takes a path
//! with no per-element conversion that loads a file larger than the cache as fast as `std::fs::read`
//! merely reads it (`benches/io.rs`, group `load_large`).
//!
//! Element types are converted explicitly and exactly: float64 as is; float32, (u)int8/16/32 and bool
//! (as 0/1) are exactly representable in f64; (u)int64 values are accepted when |v| ≤ 2⁵³ (exact) and
//! refused otherwise. Anything else (float16, complex, strings, objects, structured dtypes) is refused
//! with a message saying how to convert it.

use std::io::{Cursor, Read, Seek, Write};
use std::path::Path;

use ndarray::{Array1, Array2};
use ndarray_npy::npy::header::{Header, ReadHeaderError};

use super::ReadOptions;
use super::labels::LabelMapper;
use super::source::{self, Source};
use super::text::{with_capacity, zeros};
use crate::dataset::Dataset;
use crate::error::{Error, Location, Result};

mod header;
mod npz;
mod sparse;
mod write;

use header::*;
use npz::*;
pub use write::{write_npy, write_npy_to, write_npz};

/// Bytes converted at a time.
const BLOCK: usize = 64 * 1024;
/// NumPy itself refuses headers above 10 000 bytes by default; anything near this is corrupt.
const MAX_HEADER: u64 = 1 << 20;

/// Read a `.npy` file: a 2-D array of n rows and d + 1 columns, the last column holding the labels.
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[1.0, 2.0], [3.0, 4.0]], array![1.0, -1.0])?;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("d.npy");
/// novikoff::io::write_npy(&path, &data)?;
/// assert_eq!(novikoff::io::read_npy(&path, &Default::default())?, data);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn read_npy(path: &Path, options: &ReadOptions) -> Result<Dataset> {
    let name = source::display_name(path);
    match source::open(path)? {
        Source::Regular => {
            let file = super::text::open(path)?;
            let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
            // Unbuffered: the header takes two small reads, the data is read in blocks of 64–256 KiB,
            // and a buffer in between would only add a copy.
            read_matrix(file, size, path, options)
        }
        // The header's shape is checked against the bytes present, so a stream is first held whole.
        Source::Stream(mut reader) => {
            let bytes = source::read_stream(&mut reader, &name, b"\x93NUMPY", ".npy array")?;
            read_npy_from(&bytes, &name, options)
        }
    }
}

/// Read `.npy` bytes from memory; `path` names the source in error messages.
///
/// ```
/// let err = novikoff::io::read_npy_from(b"\x93NUMPY\x01\x00", "m.npy".as_ref(), &Default::default())
///     .unwrap_err();
/// assert!(err.to_string().starts_with("m.npy: truncated"), "{err}");
/// ```
pub fn read_npy_from(bytes: &[u8], path: &Path, options: &ReadOptions) -> Result<Dataset> {
    read_matrix(bytes, bytes.len() as u64, path, options)
}

/// Read a `.npz` archive holding a 2-D array `x` (n × d) and a 1-D array `y` of n labels (also accepted:
/// `X`, and `y` of shape (n, 1)). Stored and deflate-compressed archives both work (`np.savez`,
/// `np.savez_compressed`).
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[1.0], [2.0]], array![-1.0, 1.0])?;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("d.npz");
/// novikoff::io::write_npz(&path, &data)?;
/// assert_eq!(novikoff::io::read_npz(&path, &Default::default())?, data);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn read_npz(path: &Path, options: &ReadOptions) -> Result<Dataset> {
    let name = source::display_name(path);
    match source::open(path)? {
        Source::Regular => {
            let file = super::text::open(path)?;
            let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
            read_archive(std::io::BufReader::new(file), size, path, options)
        }
        // A zip archive is read from its end (the central directory), so a stream is first held whole.
        Source::Stream(mut reader) => {
            let bytes = source::read_stream(&mut reader, &name, b"PK", ".npz (zip) archive")?;
            read_npz_from(&bytes, &name, options)
        }
    }
}

/// Read `.npz` bytes from memory; `path` names the source in error messages.
///
/// ```
/// let err = novikoff::io::read_npz_from(b"PK", "m.npz".as_ref(), &Default::default()).unwrap_err();
/// assert!(err.to_string().starts_with("m.npz: not a valid .npz"), "{err}");
/// ```
pub fn read_npz_from(bytes: &[u8], path: &Path, options: &ReadOptions) -> Result<Dataset> {
    read_archive(Cursor::new(bytes), bytes.len() as u64, path, options)
}

/// Fill `buffer`, or fail with "truncated: {what}" at the end of the source (`what` is formatted only
/// then).
fn read_full<R: Read>(
    reader: &mut R,
    buffer: &mut [u8],
    fail: &dyn Fn(String) -> Error,
    what: impl std::fmt::Display,
) -> Result<()> {
    reader.read_exact(buffer).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            fail(format!("truncated: {what}"))
        } else {
            fail(format!("cannot read: {e}"))
        }
    })
}

/// Stream `count` elements in file order, decoded to f64 in blocks: `sink(first, block)` receives the
/// values of elements `first..first + block.len()`. Then require the end of the data.
fn stream<R: Read>(
    reader: &mut R,
    dtype: Dtype,
    count: usize,
    fail: &dyn Fn(String) -> Error,
    mut sink: impl FnMut(usize, &[f64]) -> Result<()>,
) -> Result<()> {
    let size = dtype.size;
    let per_block = BLOCK / 8;
    let mut raw = vec![0u8; per_block * size];
    let mut values = vec![0.0f64; per_block];
    let mut done = 0usize;
    while done < count {
        let take = (count - done).min(per_block);
        let chunk = &mut raw[..take * size];
        read_full(
            reader,
            chunk,
            fail,
            format_args!(
                "the header promises {count} values, the data ends before value {}",
                done + 1
            ),
        )?;
        let block = &mut values[..take];
        if dtype.kind == Kind::Float && size == 8 && !dtype.big_endian {
            // The common case, kept free of the generic dispatch so that it compiles to a copy.
            for (value, bytes) in block.iter_mut().zip(chunk.chunks_exact(8)) {
                let mut b = [0u8; 8];
                b.copy_from_slice(bytes);
                *value = f64::from_le_bytes(b);
            }
        } else {
            for (k, (value, bytes)) in block.iter_mut().zip(chunk.chunks_exact(size)).enumerate() {
                *value = dtype
                    .decode(bytes)
                    .map_err(|m| fail(format!("value {}: {m}", done + k)))?;
            }
        }
        sink(done, block)?;
        done += take;
    }
    require_end(reader, count, fail)
}

/// Bytes of whole rows read at a time by [`stream_rows`]: small enough to stay in L2 between the read
/// and the copy out of it, large enough that the system calls do not show.
const ROW_BLOCK: usize = 256 * 1024;

/// True when the elements are float64 in this machine's byte order and in C order (`np.save` writes
/// little-endian float64 C order on every common machine), which [`stream_rows`] reads without a
/// per-element conversion.
fn is_native_rows(header: &NpyHeader) -> bool {
    header.dtype.kind == Kind::Float
        && header.dtype.size == 8
        && header.dtype.big_endian == cfg!(target_endian = "big")
        && !header.fortran
}

/// Read an n × c native float64 C-order array: the first d columns are appended to `x`, and with
/// c = d + 1 the last one goes to `labels(first_row, values)`, a block at a time. Then require the end of
/// the data.
///
/// Each block of rows crosses memory once, from the file into a buffer that stays in cache and from
/// there into `x` by a copy per row, which is what a plain `fs::read` of the file costs; the finiteness
/// of the features is accumulated on the way instead of in a second pass over the matrix. Returns
/// whether every feature value is finite (the caller locates the first one that is not).
fn stream_rows<R: Read>(
    reader: &mut R,
    (n, d, c): (usize, usize, usize),
    x: &mut Vec<f64>,
    fail: &dyn Fn(String) -> Error,
    mut labels: impl FnMut(usize, &[f64]) -> Result<()>,
) -> Result<bool> {
    const EXPONENT: u64 = 0x7ff0_0000_0000_0000;
    let rows_per_block = (ROW_BLOCK / (8 * c)).max(1);
    let mut block = vec![0.0f64; rows_per_block * c];
    let mut block_labels = Vec::with_capacity(if c > d { rows_per_block } else { 0 });
    let mut non_finite = 0u64;
    let mut row = 0usize;
    while row < n {
        let take = (n - row).min(rows_per_block);
        let values = &mut block[..take * c];
        read_full(
            reader,
            bytemuck::cast_slice_mut(values),
            fail,
            format_args!(
                "the header promises {n} rows, the data ends in the block of rows {}..{}",
                row + 1,
                row + take
            ),
        )?;
        block_labels.clear();
        for values in values.chunks_exact(c) {
            // One inlined, vectorised loop that copies and tests finiteness at once: for short rows a
            // `memcpy` call per row followed by a second pass cost more than the copy itself.
            x.extend(values[..d].iter().map(|&v| {
                non_finite |= u64::from(v.to_bits() & EXPONENT == EXPONENT);
                v
            }));
            if c > d {
                block_labels.push(values[d]);
            }
        }
        if c > d {
            labels(row, &block_labels)?;
        }
        row += take;
    }
    require_end(reader, n * c, fail)?;
    Ok(non_finite == 0)
}

/// Fail unless the reader is at its end, after the `count` values a header described.
fn require_end<R: Read>(
    reader: &mut R,
    count: usize,
    fail: &dyn Fn(String) -> Error,
) -> Result<()> {
    let mut extra = [0u8; 1];
    match reader.read(&mut extra) {
        Ok(0) => Ok(()),
        Ok(_) => Err(fail(format!(
            "unexpected bytes after the {count} values the header describes"
        ))),
        Err(e) => Err(fail(format!("cannot read the data: {e}"))),
    }
}

/// Fills an n × d row-major matrix, and optionally a label column after the features, from the elements
/// of an n × c array (c = d + 1 with labels, d without) delivered in file order.
struct Filler {
    n: usize,
    d: usize,
    c: usize,
    fortran: bool,
    x: Vec<f64>,
}

impl Filler {
    fn new(n: usize, d: usize, c: usize, fortran: bool, path: &Path) -> Result<Self> {
        // C order fills x front to back, so it can grow into its exact capacity without zeroing first.
        let x = if fortran {
            zeros(n * d, path)?
        } else {
            with_capacity(n * d, path)?
        };
        Ok(Self {
            n,
            d,
            c,
            fortran,
            x,
        })
    }

    /// Take the block of elements starting at `first`; `label(row, value)` receives the label column.
    fn take(
        &mut self,
        first: usize,
        block: &[f64],
        mut label: impl FnMut(usize, f64) -> Result<()>,
    ) -> Result<()> {
        let (n, d, c) = (self.n, self.d, self.c);
        if self.fortran {
            let (mut row, mut column) = (first % n, first / n);
            for &value in block {
                if column < d {
                    self.x[row * d + column] = value;
                } else {
                    label(row, value)?;
                }
                row += 1;
                if row == n {
                    row = 0;
                    column += 1;
                }
            }
            return Ok(());
        }
        let (mut row, mut column) = (first / c, first % c);
        let mut i = 0;
        while i < block.len() {
            if column < d {
                let run = (d - column).min(block.len() - i);
                self.x.extend_from_slice(&block[i..i + run]);
                i += run;
                column += run;
            }
            if column == d && i < block.len() {
                if c > d {
                    label(row, block[i])?;
                    i += 1;
                }
                column = 0;
                row += 1;
            } else if column == d && c == d {
                column = 0;
                row += 1;
            }
        }
        Ok(())
    }
}

fn read_matrix<R: Read>(
    mut reader: R,
    available: u64,
    path: &Path,
    options: &ReadOptions,
) -> Result<Dataset> {
    let file = Location::new(path);
    let fail = |message: String| Error::parse(file.clone(), message);
    let header = read_header(&mut reader, available, &fail)?;
    let (n, c) = match header.shape.as_slice() {
        &[n, c] => (n, c),
        shape => {
            return Err(fail(format!(
                "the array has shape {shape:?}; a .npy dataset is 2-D with the label in the last column (use .npz with arrays x and y otherwise)"
            )));
        }
    };
    check_size(&header, available, &fail)?;
    if n == 0 {
        return Err(fail("no examples: the array has 0 rows".into()));
    }
    if c < 2 {
        return Err(fail(format!(
            "the array has {c} column{}: a dataset needs at least one feature column and the label column",
            if c == 1 { "" } else { "s" }
        )));
    }
    let d = c - 1;
    check_features(options, d, &fail)?;
    let mut filler = Filler::new(n, d, c, header.fortran, path)?;
    let mut labels = LabelMapper::for_options(options);
    labels.reserve(n, path)?;
    let mut label = |row: usize, value: f64| {
        labels
            .push_number(value, row)
            .map_err(|m| fail(format!("entry [{row}, {d}] (the label column): {m}")))
    };
    let finite = if is_native_rows(&header) {
        stream_rows(
            &mut reader,
            (n, d, c),
            &mut filler.x,
            &fail,
            |first, values| {
                labels
                    .push_numbers(values, first)
                    .map_err(|(row, m)| fail(format!("entry [{row}, {d}] (the label column): {m}")))
            },
        )?
    } else {
        stream(&mut reader, header.dtype, n * c, &fail, |first, block| {
            filler.take(first, block, &mut label)
        })?;
        false
    };
    let y = labels.finish(path, |row| {
        (Location::new(path), format!(" (first at row {row})"))
    })?;
    finish(filler.x, y, (n, d, finite), &file, &fail)
}

fn check_size(header: &NpyHeader, available: u64, fail: &dyn Fn(String) -> Error) -> Result<()> {
    let elements = header
        .elements()
        .ok_or_else(|| fail(format!("the shape {:?} is too large", header.shape)))?;
    let bytes = elements * header.dtype.size as u64;
    if header.length + bytes > available {
        return Err(fail(format!(
            "truncated: the header promises {elements} values ({bytes} bytes) but only {} bytes follow it",
            available.saturating_sub(header.length)
        )));
    }
    if usize::try_from(elements).is_err() {
        return Err(fail("the array is too large for memory".into()));
    }
    Ok(())
}

fn check_features(options: &ReadOptions, d: usize, fail: &dyn Fn(String) -> Error) -> Result<()> {
    match options.n_features {
        Some(expected) if expected != d => Err(fail(format!(
            "the file has {d} feature columns but --features says {expected}"
        ))),
        _ => Ok(()),
    }
}

/// Build the dataset; `finite` says the features are already known to be finite.
fn finish(
    x: Vec<f64>,
    y: Vec<f64>,
    (n, d, finite): (usize, usize, bool),
    file: &Location,
    fail: &dyn Fn(String) -> Error,
) -> Result<Dataset> {
    let x = Array2::from_shape_vec((n, d), x)
        .map_err(|e| Error::parse(file.clone(), format!("internal shape error: {e}")))?;
    let y = Array1::from_vec(y);
    let data = if finite {
        Dataset::with_finite_features(x, y)
    } else {
        Dataset::new(x, y)
    };
    data.map_err(|e| match e {
        // Name the array entry, numpy-style and 0-based.
        Error::NonFinite { row, column, value } => fail(format!(
            "entry [{row}, {column}]: value {value} is not finite"
        )),
        other => other.at_file(file, |_| 0),
    })
}
