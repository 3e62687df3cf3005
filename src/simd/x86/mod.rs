//! The x86-64 paths: SSE2 (part of every x86-64 CPU), AVX2 and AVX-512F, chosen by run-time detection.
//!
//! Each path is a set of `#[target_feature]` functions. They may only run on a CPU that has the
//! feature, so the safe wrappers below are private and reachable only through the [`SimdPath`]s that
//! [`detect`] returns after checking the CPU.

mod avx2;
mod avx512;
mod sse2;

use super::SimdPath;
use super::shared::simd_path;

/// The paths this CPU can run, in order of preference (best last).
pub(super) fn detect() -> Vec<SimdPath> {
    let mut paths = vec![SSE2];
    if is_x86_feature_detected!("avx2") {
        paths.push(AVX2);
        if is_x86_feature_detected!("avx512f") {
            paths.push(AVX512);
        }
    }
    paths
}

// SAFETY (all three): SSE2 is part of the x86-64 baseline, and the AVX2 and AVX-512F paths are only
// among the `SimdPath`s that `detect` returns after `is_x86_feature_detected!` confirmed the feature
// (AVX-512F only where AVX2 is there too: its long rows run the AVX2 loop).
simd_path!(SSE2, "sse2", sse2, asks_first);
simd_path!(AVX2, "avx2", avx2);
simd_path!(AVX512, "avx512f", avx512, several_rows);
