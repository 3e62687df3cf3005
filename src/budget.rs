//! Memory budgets: how much of the machine one input or one derived matrix may fill, so that a
//! request beyond it ends in an error that names its size, not in the system's out-of-memory killer
//! (on a machine that overcommits memory, an allocation can succeed and the process still be killed
//! when it touches the pages).

/// The most memory one matrix the crate derives from the data may take, in bytes (Kesler's lifted
/// vectors, `k − 1` signed copies of every row): half the machine's physical memory (Linux), or 16 GiB
/// where that is unknown. A derived matrix beyond it is refused before it is allocated.
/// `NOVIKOFF_MEMORY_BUDGET` (bytes) sets another budget.
pub(crate) fn memory_budget() -> usize {
    static BUDGET: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BUDGET.get_or_init(|| from_env("NOVIKOFF_MEMORY_BUDGET").unwrap_or_else(half_the_memory))
}

/// The bytes an environment variable sets, when it holds a whole number.
pub(crate) fn from_env(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Half the machine's physical memory, or 16 GiB where that is unknown.
pub(crate) fn half_the_memory() -> usize {
    physical_memory().map_or(16 << 30, |bytes| bytes / 2)
}

#[cfg(target_os = "linux")]
fn physical_memory() -> Option<usize> {
    // SAFETY: sysconf reads a system constant and has no preconditions.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    let (pages, page) = (usize::try_from(pages).ok()?, usize::try_from(page).ok()?);
    pages.checked_mul(page)
}

#[cfg(not(target_os = "linux"))]
fn physical_memory() -> Option<usize> {
    None
}
