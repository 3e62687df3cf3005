//! The maximum margin in rounds: few passes, small working sets, honest limits, no copy of the data, and
//! the degenerate inputs that must end in the right answer rather than a hang.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ndarray::{Array1, Array2, array};
use novikoff::margin::{Bias, MarginResult, MaxMarginParams, max_margin};
use novikoff::{Dataset, rng};
use rand_distr::{Distribution, StandardNormal};

/// Gaussian points pushed to at least `gap` from a random plane on the side of their label.
fn planted(seed: u64, n: usize, d: usize, gap: f64) -> Dataset {
    let mut r = rng::from_seed(seed);
    let mut gauss = || -> f64 { StandardNormal.sample(&mut r) };
    let u: Array1<f64> = (0..d).map(|_| gauss()).collect();
    let u = &u / u.dot(&u).sqrt();
    let b = 0.2;
    let mut x = Array2::zeros((n, d));
    let mut y = Array1::zeros(n);
    for i in 0..n {
        let mut row: Array1<f64> = (0..d).map(|_| gauss()).collect();
        let label = if i % 3 == 0 { -1.0 } else { 1.0 };
        let s = u.dot(&row) + b;
        if label * s < gap {
            row.scaled_add(label * (gap + 0.5 * gauss().abs()) - s, &u);
        }
        x.row_mut(i).assign(&row);
        y[i] = label;
    }
    Dataset::new(x, y).expect("finite data")
}

#[test]
fn a_small_support_costs_a_few_passes() {
    let data = planted(3, 20_000, 10, 0.01);
    for bias in [Bias::Free, Bias::ThroughOrigin] {
        let result = max_margin(&data, bias).unwrap();
        let stats = result.stats();
        if bias == Bias::Free {
            let (lower, upper) = result.bracket().unwrap();
            assert!(result.is_separable(), "{result:?}");
            assert!(upper - lower <= 1e-9 * upper, "{lower} {upper}");
        }
        assert!(stats.passes <= 12, "{bias:?}: {stats:?}");
        // Two passes choose the first working set; each round that finds a separator adds one.
        assert!(stats.passes <= stats.rounds + 2, "{stats:?}");
        assert!(stats.working_set < 2_000, "{bias:?}: {stats:?}");
    }
}

#[test]
fn dense_and_sparse_storage_give_the_same_margin() {
    let dense = planted(4, 3_000, 8, 0.05);
    let sparse = dense.to_sparse();
    let a = max_margin(&dense, Bias::Free).unwrap();
    let b = max_margin(&sparse, Bias::Free).unwrap();
    let (la, ua) = a.bracket().unwrap();
    let (lb, ub) = b.bracket().unwrap();
    assert!(
        la <= ub && lb <= ua,
        "[{la}, {ua}] and [{lb}, {ub}] must overlap"
    );
    assert!(a.is_separable() && b.is_separable());
}

#[test]
fn the_round_limit_gives_an_honest_bracket() {
    let data = planted(5, 20_000, 10, 0.001);
    let exact = max_margin(&data, Bias::Free).unwrap();
    let (exact_lower, exact_upper) = exact.bracket().unwrap();
    assert!(exact.stats().rounds > 1, "{:?}", exact.stats());
    let limited = MaxMarginParams::new(Bias::Free)
        .max_rounds(1)
        .check()
        .unwrap()
        .solve(&data)
        .unwrap();
    let MarginResult::Inaccurate {
        bracket: (lower, upper),
        reason,
        stats,
        ..
    } = &limited
    else {
        panic!("one round cannot finish here: {limited:?}");
    };
    assert!(reason.contains("1 rounds"), "{reason}");
    assert_eq!(stats.rounds, 1);
    // Rigorous even though unfinished: it contains the certified answer.
    assert!(
        *lower <= exact_upper && exact_lower <= *upper,
        "{lower} {upper}"
    );
}

#[test]
fn the_time_limit_gives_an_honest_bracket() {
    let data = planted(6, 20_000, 10, 0.001);
    let exact = max_margin(&data, Bias::Free).unwrap();
    let (exact_lower, exact_upper) = exact.bracket().unwrap();
    let limited = MaxMarginParams::new(Bias::Free)
        .time_limit(1e-9)
        .check()
        .unwrap()
        .solve(&data)
        .unwrap();
    // No second round starts after 1 ns.
    let (lower, upper) = common::inaccurate_because(&limited, "time limit");
    assert!(
        lower <= exact_upper && exact_lower <= upper,
        "{lower} {upper}"
    );
    assert!(
        MaxMarginParams::new(Bias::Free)
            .time_limit(f64::NAN)
            .check()
            .is_err()
    );
}

#[test]
fn degenerate_inputs_get_the_right_answer() {
    // A row repeated with the opposite label: no separator with or without a bias.
    let clash = Dataset::new(
        array![[1.0, 2.0], [0.0, 1.0], [1.0, 2.0]],
        array![1.0, 1.0, -1.0],
    )
    .unwrap();
    for bias in [Bias::Free, Bias::ThroughOrigin] {
        let certificate = max_margin(&clash, bias).unwrap().certificate().cloned();
        assert!(
            certificate.is_some_and(|c| c.verify(&clash, 1e-12)),
            "{bias:?}"
        );
    }
    // Every row the same point: the two classes' hulls are that point.
    let same = Dataset::new(
        Array2::from_elem((50, 3), 0.7),
        (0..50)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect(),
    )
    .unwrap();
    assert!(
        max_margin(&same, Bias::Free)
            .unwrap()
            .certificate()
            .is_some()
    );
    // A single row: through the origin its margin is its length.
    let single = Dataset::new(array![[3.0, 4.0]], array![-1.0]).unwrap();
    let (lower, upper) = max_margin(&single, Bias::ThroughOrigin)
        .unwrap()
        .bracket()
        .unwrap();
    assert!(
        lower <= 5.0 && 5.0 <= upper && upper - lower < 1e-12,
        "{lower} {upper}"
    );
    // d = 1 with many rows: the gap between the classes' nearest points.
    let n = 10_000;
    let x: Array2<f64> = Array2::from_shape_fn((n, 1), |(i, _)| {
        if i % 2 == 0 {
            1.0 + i as f64
        } else {
            -(i as f64)
        }
    });
    let y: Array1<f64> = (0..n)
        .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    let line = Dataset::new(x, y).unwrap();
    let (lower, upper) = max_margin(&line, Bias::Free).unwrap().bracket().unwrap();
    // Nearest points: +1 (row 0) and −1 (row 1): γ* = 1.
    assert!(
        lower <= 1.0 && 1.0 <= upper && upper - lower < 1e-12,
        "{lower} {upper}"
    );
}

struct CountingAllocator;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn note(delta: isize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn the_solve_never_copies_the_data() {
    // 20 000 × 12 values: small enough that every pass runs on this thread, where the allocator counts.
    let data = planted(7, 20_000, 12, 0.01);
    let dataset_bytes = 20_000 * 12 * 8;
    let _ = data.radius(); // the dataset's own cache, not the solver's
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let result = max_margin(&data, Bias::Free).unwrap();
    let peak = (PEAK.with(Cell::get) - base).max(0) as usize;
    assert!(result.is_separable());
    assert!(
        peak * 2 < dataset_bytes,
        "the solve allocated {peak} bytes at its peak, against {dataset_bytes} of data"
    );
}
