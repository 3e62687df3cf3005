//! Vectors whose first value starts a cache line, for the kernels that load and store them a whole
//! register at a time.
//!
//! A `Vec<f64>` starts wherever the allocator puts it: glibc gives 16-byte alignment, so a 64-byte
//! AVX-512 load or store from it spans two cache lines three times in four. Modified Gram–Schmidt's
//! step (`axpy_dot2`: four loads and two stores a register) on 900 columns of 1000 values ran at 11–13
//! G element-steps a second on one core from such vectors and at 20 from aligned ones (session 37,
//! AMD Zen 5, a standalone copy of the kernel, three runs each). Alignment changes no arithmetic: the
//! values and their order are the same, so are the bits.

use std::ops::{Deref, DerefMut};

/// Values a cache line holds.
const LINE: usize = 8;

/// `len` values starting at a 64-byte boundary, read as a slice. The storage is a `Vec<f64>` of
/// `len + 7` values and the slice starts at its first aligned value, so no `unsafe` is needed; a clone
/// is aligned anew in its own allocation.
#[derive(Default)]
pub(crate) struct Aligned {
    storage: Vec<f64>,
    len: usize,
}

impl Aligned {
    /// `len` zeros.
    pub(crate) fn zeros(len: usize) -> Self {
        Aligned {
            storage: vec![0.0; len + LINE - 1],
            len,
        }
    }

    /// Values from an iterator of exactly `len` of them (fewer leave zeros at the end).
    pub(crate) fn collect(len: usize, values: impl IntoIterator<Item = f64>) -> Self {
        let mut aligned = Aligned::zeros(len);
        for (slot, value) in aligned.iter_mut().zip(values) {
            *slot = value;
        }
        aligned
    }

    /// Grow to `len` values, the new ones `value`, or keep the first `len`.
    pub(crate) fn resize(&mut self, len: usize, value: f64) {
        if len <= self.len {
            self.len = len;
            return;
        }
        let grown = Aligned::collect(len, self.iter().copied().chain(std::iter::repeat(value)));
        *self = grown;
    }

    /// The values as a plain vector, moved to the front of the same allocation: a copy would hold both
    /// at once, and on a million columns that is 8 MB more at the moment a solve peaks.
    pub(crate) fn into_vec(self) -> Vec<f64> {
        let (start, len) = (self.offset(), self.len);
        let mut storage = self.storage;
        storage.copy_within(start..start + len, 0);
        storage.truncate(len);
        storage
    }

    /// Where the aligned values start in `storage`: `Vec<f64>` is at least 8-byte aligned, so the next
    /// 64-byte boundary is at most seven values on.
    fn offset(&self) -> usize {
        if self.storage.is_empty() {
            // `Default`'s, which holds nothing.
            return 0;
        }
        let address = self.storage.as_ptr() as usize;
        (address.wrapping_neg() % (8 * LINE)) / 8
    }
}

impl From<&[f64]> for Aligned {
    fn from(values: &[f64]) -> Self {
        Aligned::collect(values.len(), values.iter().copied())
    }
}

impl Clone for Aligned {
    fn clone(&self) -> Self {
        Aligned::from(&self[..])
    }
}

impl std::fmt::Debug for Aligned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self[..].fmt(f)
    }
}

impl PartialEq for Aligned {
    fn eq(&self, other: &Self) -> bool {
        self[..] == other[..]
    }
}

impl Deref for Aligned {
    type Target = [f64];

    #[inline]
    fn deref(&self) -> &[f64] {
        let start = self.offset();
        &self.storage[start..start + self.len]
    }
}

impl DerefMut for Aligned {
    #[inline]
    fn deref_mut(&mut self) -> &mut [f64] {
        let start = self.offset();
        &mut self.storage[start..start + self.len]
    }
}

impl AsRef<[f64]> for Aligned {
    fn as_ref(&self) -> &[f64] {
        self
    }
}

impl AsMut<[f64]> for Aligned {
    fn as_mut(&mut self) -> &mut [f64] {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_aligned_vector_starts_a_cache_line_and_keeps_its_values_through_clones() {
        for len in [0, 1, 7, 8, 9, 100, 1000] {
            let values: Vec<f64> = (0..len).map(|i| i as f64 - 0.5).collect();
            let aligned = Aligned::from(&values[..]);
            assert_eq!(&aligned[..], &values[..]);
            assert_eq!(aligned.as_ptr() as usize % 64, 0, "len {len}");
            assert_eq!(aligned.clone().into_vec(), values, "len {len}");
            // Clones of many sizes land at many offsets of their allocations.
            let clones: Vec<Aligned> = (0..16).map(|_| aligned.clone()).collect();
            for clone in &clones {
                assert_eq!(clone.as_ptr() as usize % 64, 0);
                assert_eq!(clone, &aligned);
            }
            let mut zeros = Aligned::zeros(len);
            assert!(zeros.iter().all(|&v| v == 0.0) && zeros.len() == len);
            zeros.iter_mut().for_each(|v| *v = 2.0);
            assert_eq!(zeros.as_ptr() as usize % 64, 0);
            assert!(zeros.iter().all(|&v| v == 2.0));
        }
        assert!(Aligned::default().is_empty());
    }

    #[test]
    fn a_resized_vector_keeps_its_values_and_its_alignment() {
        let mut v = Aligned::from(&[1.0, 2.0, 3.0][..]);
        v.resize(20, -1.0);
        assert_eq!(v.len(), 20);
        assert_eq!(&v[..4], &[1.0, 2.0, 3.0, -1.0]);
        assert!(v[3..].iter().all(|&x| x == -1.0));
        assert_eq!(v.as_ptr() as usize % 64, 0);
        v.resize(2, 0.0);
        assert_eq!(&v[..], &[1.0, 2.0]);
    }
}
