//! Hints to the caches: the lines the solver reads next from another allocation, where the hardware
//! prefetchers do not follow. On targets without such an instruction they do nothing.

/// Ask for every cache line of `values` (eight values a 64-byte line): for a row or a column read next
/// from another allocation, where the hardware prefetchers do not follow.
#[inline]
pub(crate) fn prefetch_values(values: &[f64]) {
    for k in (0..values.len()).step_by(8) {
        prefetch(values.as_ptr().wrapping_add(k));
    }
}

/// Ask for the cache line holding `p` (a hint: any address is allowed, none is dereferenced).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    // SAFETY (both): a prefetch never faults and changes nothing the program can observe. SSE is part
    // of the x86-64 baseline; `prfm` is part of the AArch64 base instruction set.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        std::arch::asm!("prfm pldl1keep, [{0}]", in(reg) p, options(nostack, preserves_flags, readonly));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = p;
}
