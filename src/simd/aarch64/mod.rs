//! The AArch64 path: NEON, part of every AArch64 CPU that runs Linux, confirmed at run time all the same.
//!
//! The path is a set of `#[target_feature(enable = "neon")]` functions, reachable only through the
//! [`SimdPath`] that [`detect`] returns after checking the CPU, as on x86-64.

mod neon;

use super::SimdPath;
use super::shared::simd_path;

/// The NEON path, if this CPU has it.
pub(super) fn detect() -> Vec<SimdPath> {
    if std::arch::is_aarch64_feature_detected!("neon") {
        vec![NEON]
    } else {
        Vec::new()
    }
}

// SAFETY: the NEON path is only among the `SimdPath`s that `detect` returns after
// `is_aarch64_feature_detected!` confirmed the feature.
simd_path!(NEON, "neon", neon, asks_first);
