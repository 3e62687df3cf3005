//! Which storage a reader builds: dense, sparse (CSR), or chosen by the data's density.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The storage a reader builds for a sparse format (LIBSVM, a scipy sparse `.npz`). Dense formats
/// (CSV, `.npy`, a dense `.npz`) are read densely, and with `Sparse` their rows are then stored as CSR.
///
/// | storage | reads into |
/// |---|---|
/// | `Auto` (default) | sparse when at most a quarter of the values are stored and the dense matrix would take more than [`Storage::AUTO_DENSE_BYTES`]; dense otherwise, where the SIMD kernels are fastest |
/// | `Dense` | a dense `Array2<f64>` (LIBSVM's check that the matrix is plausible for the file's size applies) |
/// | `Sparse` | compressed sparse rows, never forming the dense matrix |
///
/// ```
/// use novikoff::io::Storage;
/// assert_eq!(Storage::parse("sparse")?, Storage::Sparse);
/// assert!(Storage::Auto.is_sparse_for(20_242, 47_236, 1_500_000)); // rcv1's shape
/// assert!(!Storage::Auto.is_sparse_for(6, 2, 12));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Storage {
    /// By density and size.
    #[default]
    Auto,
    /// Always dense.
    Dense,
    /// Always compressed sparse rows.
    Sparse,
}

impl Storage {
    /// Below this size a dense matrix is kept dense by `Auto` (16 MiB).
    pub const AUTO_DENSE_BYTES: u64 = 16 << 20;

    /// The storage by name, as the CLI's `--storage` spells it: `auto`, `dense` or `sparse`.
    ///
    /// ```
    /// assert!(novikoff::io::Storage::parse("csr").is_err());
    /// ```
    pub fn parse(name: &str) -> Result<Storage> {
        match name.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Storage::Auto),
            "dense" => Ok(Storage::Dense),
            "sparse" => Ok(Storage::Sparse),
            other => Err(Error::parameter(
                "storage",
                format!("`{other}` is not a storage: use auto, dense or sparse"),
            )),
        }
    }

    /// Whether `n × d` data with `nnz` stored values are read sparse.
    ///
    /// ```
    /// use novikoff::io::Storage;
    /// assert!(Storage::Sparse.is_sparse_for(1, 1, 1) && !Storage::Dense.is_sparse_for(10, 10_000_000, 1));
    /// ```
    pub fn is_sparse_for(self, n: usize, d: usize, nnz: usize) -> bool {
        match self {
            Storage::Dense => false,
            Storage::Sparse => true,
            Storage::Auto => {
                let cells = (n as u64).saturating_mul(d as u64);
                cells.saturating_mul(8) > Self::AUTO_DENSE_BYTES
                    && (nnz as u64).saturating_mul(4) <= cells
            }
        }
    }
}
