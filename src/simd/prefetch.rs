//! Hints to the caches: the lines the solver reads next from another allocation, where the hardware
//! prefetchers do not follow. On targets without such an instruction they do nothing.
//!
//! Two destinations. [`prefetch`] and [`prefetch_values`] ask for lines into the first-level cache,
//! for the few lines a step reads next (a column of `R`, a sparse row's entries). [`prefetch_row`] and
//! the kernels' `Ahead` ask for a whole dense row read next, by the max-margin solver's descent or by a
//! shuffled epoch's pass: into the first-level cache when it is short, into the second-level cache
//! only from [`SECOND_LEVEL_ROW`] values. The descent asks for the row after next while it reads one
//! row and updates `w`: at a thousand values a row those three rows and `w` are 32 KB, all of a Zen 4's
//! first-level data cache, so rows asked for there evicted `w` and the row being read. In the
//! second-level cache they wait out of the way, and the core's own first-level prefetcher brings each
//! in as its stream is read.
//!
//! Measured (session 45, AMD EPYC of family 25, model 17: Zen 4, AVX-512, 32 KB of first-level data
//! cache a core): a standalone loop taking the dot product of `w` with 8000 rows of 1000 values in a
//! shuffled order, each row asking for the row after next as it goes, read 11.5–11.8 GB/s asking into
//! the first level and 14.9–15.4 GB/s into the second (8.9–9.2 without asking; 11.0–11.1 and
//! 14.5–14.6 asking for the next row). In `benches/margin_suite`'s `high` set, four rounds alternating
//! with the base build, the 2·10⁴ × 1000 set of `benches/margin_passes` solved 1.19 × faster and the
//! hard 10⁴ × 1000 1.17 ×; its shapes of 300–500 dimensions took 0.98–1.03 × their time. Asking for
//! the columns of `R` in the back substitutions into the second level as well changed nothing (1.00
//! and 1.04 × on those two sets).

/// Ask for every cache line of `values` (eight values a 64-byte line): for a row or a column read next
/// from another allocation, where the hardware prefetchers do not follow.
#[inline]
pub(crate) fn prefetch_values(values: &[f64]) {
    for k in (0..values.len()).step_by(8) {
        prefetch(values.as_ptr().wrapping_add(k));
    }
}

/// Rows of this many values or more are asked for into the second-level cache, shorter ones into the
/// first as before: three rows and `w` of 256 values fill a quarter of a 32 KB first-level cache.
/// Asking for every row into the second level gained nothing below it: over the shapes of
/// `benches/margin_suite`'s `wide` and `narrow` sets (those in 48–250 dimensions take the descent),
/// four rounds alternating, the geometric mean of the speed-ups was 0.989, against 1.004 with the
/// same build on both sides.
const SECOND_LEVEL_ROW: usize = 256;

/// How many rows ahead of the one it reads a pass over dense rows out of order asks for (the row after
/// next, with [`prefetch_row`]): the variants' pass and the multi-class perceptron's.
pub(crate) const DENSE_AHEAD: usize = 2;

/// Ask for every cache line of the dense row `values`, read next, whole: into the second-level cache
/// from [`SECOND_LEVEL_ROW`] values (see the module docs for why), else into the first.
#[inline]
pub(crate) fn prefetch_row(values: &[f64]) {
    let second_level = values.len() >= SECOND_LEVEL_ROW;
    for k in (0..values.len()).step_by(8) {
        ask_into(values.as_ptr().wrapping_add(k), second_level);
    }
}

/// Ask for the cache line holding `p` into the second-level cache only when `second_level`, else into
/// the first (a hint, as [`prefetch`]).
#[inline(always)]
fn ask_into<T>(p: *const T, second_level: bool) {
    if second_level {
        ask::<T, true>(p);
    } else {
        ask::<T, false>(p);
    }
}

/// Ask for the cache line holding `p` (a hint: any address is allowed, none is dereferenced).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    ask::<T, false>(p);
}

/// Ask for the cache line holding `p` into the first-level cache, or into the second only.
#[inline(always)]
fn ask<T, const SECOND_LEVEL: bool>(p: *const T) {
    // SAFETY (both): a prefetch never faults and changes nothing the program can observe. SSE is part
    // of the x86-64 baseline; `prfm` is part of the AArch64 base instruction set.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _MM_HINT_T1, _mm_prefetch};
        if SECOND_LEVEL {
            _mm_prefetch::<_MM_HINT_T1>(p.cast())
        } else {
            _mm_prefetch::<_MM_HINT_T0>(p.cast())
        }
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        if SECOND_LEVEL {
            std::arch::asm!("prfm pldl2keep, [{0}]", in(reg) p, options(nostack, preserves_flags, readonly));
        } else {
            std::arch::asm!("prfm pldl1keep, [{0}]", in(reg) p, options(nostack, preserves_flags, readonly));
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = p;
}

/// A row the caller reads next, asked for from inside a kernel's loop over another row: four lines (32
/// values) for each chunk of [`LANES`](super::LANES) values the kernel reads, so that the requests are
/// spread over the kernel's time instead of issued in one burst before it, which the core's few
/// outstanding misses cannot hold; into the cache [`prefetch_row`] picks for its length. A hint only: it
/// changes no result. Only the x86-64 paths' kernels ask as they go; the others ask first, at two
/// values a register.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct Ahead {
    start: *const f64,
    len: usize,
    /// The row is asked for into the second-level cache ([`SECOND_LEVEL_ROW`]).
    second_level: bool,
}

#[cfg(target_arch = "x86_64")]
impl Ahead {
    pub(super) fn of(values: &[f64]) -> Ahead {
        Ahead {
            start: values.as_ptr(),
            len: values.len(),
            second_level: values.len() >= SECOND_LEVEL_ROW,
        }
    }
}

/// What a kernel asks for as it goes: a row ([`Ahead`]) or nothing (`()`), so that the plain kernels
/// are compiled without a test in their loops.
#[cfg(target_arch = "x86_64")]
pub(super) trait AskAhead: Copy {
    /// Ask for the four lines from value `k` on, those within the row.
    fn chunk(self, k: usize);
    /// Ask for the lines from value `k` to the row's end (after a kernel's last whole chunk).
    fn rest(self, k: usize);
}

#[cfg(target_arch = "x86_64")]
impl AskAhead for () {
    #[inline(always)]
    fn chunk(self, _: usize) {}
    #[inline(always)]
    fn rest(self, _: usize) {}
}

#[cfg(target_arch = "x86_64")]
impl AskAhead for Ahead {
    #[inline(always)]
    fn chunk(self, k: usize) {
        if k < self.len {
            for line in 0..4 {
                if k + 8 * line < self.len {
                    ask_into(self.start.wrapping_add(k + 8 * line), self.second_level);
                }
            }
        }
    }

    #[inline(always)]
    fn rest(self, k: usize) {
        for k in (k..self.len).step_by(8) {
            ask_into(self.start.wrapping_add(k), self.second_level);
        }
    }
}
