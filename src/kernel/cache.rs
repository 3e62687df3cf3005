//! Rows of the Gram matrix on demand, kept in a cache of bounded size.
//!
//! The kernel perceptron needs the row `K(xₜ, ·)` of each example it updates on, and the margin solver
//! the rows of the pairs it moves. Rows are computed on first use and kept while they fit in the memory
//! budget; beyond it the least recently used row is dropped (LIBSVM's cache, with scikit-learn's
//! `cache_size` as the model). The whole `n × n` matrix is formed only when it fits the budget, and then
//! computed in parallel with rayon ([`GramCache::form_full`]). Every entry is computed independently by
//! the same code, so a row has the same bits whether it came from the cache, a recomputation or the
//! parallel fill, on any number of threads.

use rayon::prelude::*;
use serde::Serialize;

use super::eval::OnData;
use super::function::{Kernel, Kind};
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::simd::Summation;

/// The default memory budget of a Gram cache: 200 MiB, scikit-learn's `SVC(cache_size=200)`.
///
/// ```
/// assert_eq!(novikoff::kernel::DEFAULT_CACHE_BYTES, 200 << 20);
/// ```
pub const DEFAULT_CACHE_BYTES: usize = 200 << 20;

/// Rows computed in one parallel block: well above rayon's per-task cost for a row of any length.
const PARALLEL_ENTRIES: usize = 1 << 15;

/// What a cache did: how often a row was found, computed, and the most memory it held.
///
/// ```
/// let stats = novikoff::kernel::CacheStats::default();
/// assert_eq!(stats.hits + stats.misses, 0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    /// Rows found in the cache.
    pub hits: u64,
    /// Rows computed (on first use or after an eviction).
    pub misses: u64,
    /// The most bytes of rows held at once.
    pub peak_bytes: usize,
    /// The budget, in bytes.
    pub budget_bytes: usize,
    /// True when the whole matrix was formed.
    pub full: bool,
}

/// The Gram matrix `Kᵢⱼ = K(xᵢ, xⱼ)` of a dataset, row by row, within a memory budget.
///
/// ```
/// use ndarray::array;
/// use novikoff::{kernel::{GramCache, KernelParams}, simd::Summation, Dataset};
/// let data = Dataset::new(array![[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]], array![1.0, -1.0, 1.0])?;
/// let kernel = KernelParams::linear().check()?;
/// // A budget of two rows (2·3·8 bytes): the third row evicts the least recently used.
/// let mut cache = GramCache::new(&kernel, &data, Summation::Sequential, 48)?;
/// assert_eq!(cache.row(2), &[1.0, 2.0, 2.0]);
/// assert_eq!(cache.row(0), &[1.0, 0.0, 1.0]);
/// assert_eq!(cache.row(1), &[0.0, 4.0, 2.0]);
/// assert_eq!(cache.stats().misses, 3);
/// assert!(cache.stats().peak_bytes <= 48);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug)]
pub struct GramCache<'a> {
    on: OnData<'a>,
    n: usize,
    capacity: usize,
    slots: Vec<Vec<f64>>,
    slot_of: Vec<u32>,
    row_of: Vec<usize>,
    last_used: Vec<u64>,
    clock: u64,
    diagonal: Vec<f64>,
    stats: CacheStats,
}

const NOT_CACHED: u32 = u32::MAX;

impl<'a> GramCache<'a> {
    /// A cache of at most `budget_bytes` of rows (each `8·n` bytes) of the kernel on `data`, with the
    /// inner products in `summation` order. The diagonal (`8·n` bytes) is kept besides.
    ///
    /// # Errors
    /// [`Error::Parameter`] named `cache_bytes` when the budget holds fewer than two rows (the solver
    /// needs a pair at once); [`Error::Shape`] for a Gram matrix of another size than the data.
    pub fn new(
        kernel: &'a Kernel,
        data: &'a Dataset,
        summation: Summation,
        budget_bytes: usize,
    ) -> Result<Self> {
        kernel.check_data(data)?;
        let n = data.n_samples();
        let row_bytes = n.saturating_mul(8);
        let capacity = (budget_bytes / row_bytes.max(1))
            .min(n)
            .min(NOT_CACHED as usize - 1);
        if capacity < 2.min(n) {
            return Err(Error::parameter(
                "cache_bytes",
                format!(
                    "a budget of {budget_bytes} bytes holds fewer than two rows of the Gram matrix \
                     ({row_bytes} bytes each for n = {n})"
                ),
            ));
        }
        let on = OnData::new(kernel, data, summation);
        Ok(Self {
            on,
            n,
            capacity,
            slots: Vec::new(),
            slot_of: vec![NOT_CACHED; n],
            row_of: Vec::new(),
            last_used: Vec::new(),
            clock: 0,
            diagonal: on.diagonal(),
            stats: CacheStats {
                budget_bytes,
                ..CacheStats::default()
            },
        })
    }

    /// The number of examples.
    pub(crate) fn n(&self) -> usize {
        self.n
    }

    /// The kernel on its data.
    pub(crate) fn on(&self) -> OnData<'a> {
        self.on
    }

    /// `K(xᵢ, xᵢ)` for every row.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{GramCache, KernelParams, DEFAULT_CACHE_BYTES}, simd::Summation, Dataset};
    /// let data = Dataset::new(array![[3.0, 4.0]], array![1.0])?;
    /// let kernel = KernelParams::linear().check()?;
    /// let cache = GramCache::new(&kernel, &data, Summation::Fast, DEFAULT_CACHE_BYTES)?;
    /// assert_eq!(cache.diagonal(), &[25.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn diagonal(&self) -> &[f64] {
        &self.diagonal
    }

    /// What the cache did so far.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// True when the budget holds every row.
    pub fn fits_whole_matrix(&self) -> bool {
        self.capacity >= self.n
    }

    /// Compute every row not yet cached, in parallel (rayon), when the whole matrix fits the budget;
    /// otherwise do nothing. Returns whether the whole matrix is now held.
    pub fn form_full(&mut self) -> bool {
        if !self.fits_whole_matrix() || matches!(self.on.kernel.kind, Kind::Precomputed(_)) {
            return matches!(self.on.kernel.kind, Kind::Precomputed(_));
        }
        let missing: Vec<usize> = (0..self.n)
            .filter(|&i| self.slot_of[i] == NOT_CACHED)
            .collect();
        let on = self.on;
        let n = self.n;
        let rows: Vec<(usize, Vec<f64>)> = missing
            .par_iter()
            .map(|&i| {
                let mut row = vec![0.0; n];
                on.row_into(i, &mut row);
                (i, row)
            })
            .collect();
        for (i, row) in rows {
            self.stats.misses += 1;
            let slot = self.slots.len();
            self.slots.push(row);
            self.row_of.push(i);
            self.last_used.push(self.clock);
            self.slot_of[i] = slot as u32;
        }
        self.note_size();
        self.stats.full = true;
        true
    }

    fn note_size(&mut self) {
        self.stats.peak_bytes = self.stats.peak_bytes.max(self.slots.len() * self.n * 8);
    }

    /// Row `i`, `K(xᵢ, ·)`.
    pub fn row(&mut self, i: usize) -> &[f64] {
        if let Kind::Precomputed(gram) = &self.on.kernel.kind {
            self.stats.hits += 1;
            return gram_row(gram, i);
        }
        let slot = self.slot(i);
        &self.slots[slot]
    }

    /// Rows `i` and `j` at once (both stay cached: the budget holds at least two).
    pub(crate) fn two_rows(&mut self, i: usize, j: usize) -> (&[f64], &[f64]) {
        if let Kind::Precomputed(gram) = &self.on.kernel.kind {
            self.stats.hits += 2;
            return (gram_row(gram, i), gram_row(gram, j));
        }
        let a = self.slot(i);
        let b = self.slot(j);
        let a = if self.row_of[a] == i { a } else { self.slot(i) };
        (&self.slots[a], &self.slots[b])
    }

    /// The slot holding row `i`, computing it (and evicting the least recently used row) if needed.
    fn slot(&mut self, i: usize) -> usize {
        self.clock += 1;
        let found = self.slot_of[i];
        if found != NOT_CACHED {
            self.stats.hits += 1;
            self.last_used[found as usize] = self.clock;
            return found as usize;
        }
        self.stats.misses += 1;
        let slot = if self.slots.len() < self.capacity {
            self.slots.push(vec![0.0; self.n]);
            self.row_of.push(i);
            self.last_used.push(self.clock);
            self.note_size();
            self.slots.len() - 1
        } else {
            let victim = (0..self.slots.len())
                .min_by_key(|&s| self.last_used[s])
                .expect("the cache holds at least two rows");
            self.slot_of[self.row_of[victim]] = NOT_CACHED;
            self.row_of[victim] = i;
            self.last_used[victim] = self.clock;
            victim
        };
        self.slot_of[i] = slot as u32;
        let on = self.on;
        let row = &mut self.slots[slot];
        if self.n * on.data.row_view(i).nnz().max(1) >= PARALLEL_ENTRIES
            && rayon::current_num_threads() > 1
        {
            row.par_chunks_mut(1024)
                .enumerate()
                .for_each(|(block, out)| {
                    for (k, value) in out.iter_mut().enumerate() {
                        *value = on.entry(i, block * 1024 + k);
                    }
                });
        } else {
            on.row_into(i, row);
        }
        slot
    }
}

fn gram_row(gram: &super::GramMatrix, i: usize) -> &[f64] {
    let view = gram.values();
    let n = view.ncols();
    &view
        .to_slice()
        .expect("a Gram matrix is kept in standard layout")[i * n..(i + 1) * n]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{Gamma, KernelParams};
    use ndarray::Array2;

    #[test]
    fn cached_recomputed_and_parallel_rows_have_the_same_bits() {
        let n = 300;
        let x = Array2::from_shape_fn((n, 3), |(i, j)| ((i * 7 + j * 13) % 17) as f64 / 7.0);
        let y = ndarray::Array1::from_shape_fn(n, |i| if i % 3 == 0 { 1.0 } else { -1.0 });
        let data = Dataset::new(x, y).unwrap();
        let kernel = KernelParams::rbf()
            .gamma(Gamma::Value(0.4))
            .check()
            .unwrap();
        let mut full = GramCache::new(&kernel, &data, Summation::Fast, 8 * n * n).unwrap();
        assert!(full.form_full());
        let mut small = GramCache::new(&kernel, &data, Summation::Fast, 8 * n * 5).unwrap();
        for i in [0, 5, 299, 7, 0, 150, 5, 42, 43, 44, 45, 0] {
            let expected = full.row(i).to_vec();
            assert_eq!(small.row(i), expected.as_slice());
        }
        assert!(small.stats().peak_bytes <= 8 * n * 5);
        assert!(small.stats().misses > 5);
        let (a, b) = small.two_rows(3, 4);
        assert_eq!((a[4], b[3]), (full.row(3)[4], full.row(4)[3]));
    }

    #[test]
    fn a_budget_below_two_rows_is_refused() {
        let data = Dataset::new(Array2::zeros((4, 1)), ndarray::Array1::ones(4)).unwrap();
        let kernel = Kernel::linear();
        let err = GramCache::new(&kernel, &data, Summation::Fast, 40).unwrap_err();
        assert!(err.to_string().contains("fewer than two rows"), "{err}");
    }
}
