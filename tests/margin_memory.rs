//! The max-margin solve's own memory on sparse data in very many columns, counted by this test
//! binary's allocator: a vector of `d` values (the separator, the descent's weights, a scattered row)
//! is the large thing there, and the solve holds at most two of them at a time.
//!
//! Its own binary, with one test, so that nothing else allocates while it counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use novikoff::generate::{Family, SparseParams};
use novikoff::margin::{Bias, MarginResult, max_margin};

/// The system's allocator, counting the bytes held and their peak.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let held = HELD.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(held, Relaxed);
}

// SAFETY: every call is passed on to `System` unchanged; only the counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            grew(layout.size());
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            grew(layout.size());
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        unsafe { System.dealloc(pointer, layout) };
        HELD.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                HELD.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// With 4·10⁶ columns and 10⁴ stored values, a vector of `d` values (32 MB) outweighs everything else
/// the solve holds. The first working set's class sums, direction and centre once took four of them
/// together; the separator, the scattered row of the span and the last round's separator took three.
#[test]
fn a_sparse_solve_holds_at_most_two_vectors_of_d_values_at_a_time() {
    let d = 4_000_000;
    let generated = SparseParams::new(1000, d)
        .nnz(10)
        .margin(0.02)
        .seed(11)
        .check()
        .unwrap()
        .generate()
        .unwrap();
    let data = generated.data;
    let before = HELD.load(Relaxed);
    PEAK.store(before, Relaxed);
    let result = max_margin(&data, Bias::Free).unwrap();
    let peak = PEAK.load(Relaxed) - before;
    assert!(
        matches!(result, MarginResult::Separable { .. }),
        "{result:?}"
    );
    let vector = d * size_of::<f64>();
    let others = 4 << 20;
    assert!(
        peak <= 2 * vector + others,
        "the solve held {peak} bytes at its peak: {:.2} vectors of d values",
        peak as f64 / vector as f64
    );
}
