//! The maximum margin in rounds: few passes, small working sets, honest limits, no copy of the data, and
//! the degenerate inputs that must end in the right answer rather than a hang.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ndarray::{Array1, Array2, array};
use novikoff::generate::{Family, SparseParams};
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
    let data = planted(7, 20_000, 12, 0.01);
    let dataset_bytes = 20_000 * 12 * 8;
    let (result, peak) = free_solve_with_peak(&data);
    assert!(result.is_separable());
    assert!(
        peak * 2 < dataset_bytes,
        "the solve allocated {peak} bytes at its peak, against {dataset_bytes} of data"
    );
}

/// The free-bias solve of `data` and the most bytes it held at once (the dataset's own cache of its
/// radius filled first: it is the dataset's, not the solver's).
fn free_solve_with_peak(data: &Dataset) -> (MarginResult, usize) {
    let _ = data.radius();
    peak_on_one_thread(|| max_margin(data, Bias::Free).unwrap())
}

/// `f`'s result and the most bytes it held at once. The allocator counts each thread's bytes, and a
/// solve runs on a thread of rayon's pool, so `f` runs on the one thread of a pool of its own: the solve
/// and every parallel step in it run there, where the bytes are counted.
fn peak_on_one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> (T, usize) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    pool.install(|| {
        let base = LIVE.with(Cell::get);
        PEAK.with(|p| p.set(base));
        let result = f();
        let peak = (PEAK.with(Cell::get) - base).max(0) as usize;
        (result, peak)
    })
}

/// A dense working set is read where the dataset holds it: a first working set of most of the rows
/// (`4(d + 1)` a class) adds the factorisation and `O(n + d)` to the data, never a copy of its rows.
#[test]
fn a_dense_working_set_is_never_copied() {
    // 3000 × 200 in the unit ball, where most rows lie near the margin, so that the descent keeps
    // most of the first working set (2·804 rows): a copy of it would take 2.6 MB, the factorisation
    // takes at most 200 columns of Q and R, 0.5 MB.
    let (n, d) = (3_000, 200);
    let data = novikoff::generate::separable(n, d, 0.05, 1.0, 21)
        .unwrap()
        .data;
    let dataset_bytes = n * d * 8;
    let (result, peak) = free_solve_with_peak(&data);
    let MarginResult::Separable { stats, .. } = &result else {
        panic!("{result:?}");
    };
    let copy_bytes = stats.working_set * d * 8;
    assert!(copy_bytes > dataset_bytes / 2, "{stats:?}");
    assert!(
        peak * 4 < dataset_bytes,
        "the solve allocated {peak} bytes at its peak, against {dataset_bytes} of data and \
         {copy_bytes} for a copy of its working set"
    );
}

/// With hundreds of support rows in hundreds of dimensions, the factorisation's `Q` (as large as the
/// support's rows) would pass half the data: past a quarter of it the solve drops `Q` and goes on with
/// `R` alone, so what it adds to the data stays well under half of it, and it still certifies.
#[test]
fn a_support_of_many_rows_is_certified_within_half_the_data() {
    let (n, d) = (1_000, 800);
    let data = planted(23, n, d, 0.05);
    let dataset_bytes = n * d * 8;
    let (result, peak) = free_solve_with_peak(&data);
    let MarginResult::Separable {
        support, bracket, ..
    } = &result
    else {
        panic!("{result:?}");
    };
    let q_bytes = support.len() * d * 8;
    assert!(
        q_bytes * 2 > dataset_bytes,
        "{} support rows",
        support.len()
    );
    assert!(
        peak * 5 < dataset_bytes * 2,
        "the solve allocated {peak} bytes at its peak, against {dataset_bytes} of data and \
         {q_bytes} for Q"
    );
    assert!(bracket.1 - bracket.0 <= 1e-9 * bracket.1, "{result:?}");
}

/// On sparse data of millions of columns a solve holds nothing of all the columns but a few vectors
/// (its direction, the scan's scores): the upper end's hull point is summed over the columns its rows
/// use, a block at a time, where one compensated sum a column and class took 64 bytes a column.
#[test]
fn a_sparse_solve_over_millions_of_columns_holds_a_few_vectors_of_its_columns() {
    let d = 2_000_000;
    let data = SparseParams::new(400, d)
        .nnz(10)
        .seed(3)
        .check()
        .unwrap()
        .generate()
        .unwrap()
        .data;
    let (result, peak) = free_solve_with_peak(&data);
    let MarginResult::Separable { bracket, .. } = &result else {
        panic!("{result:?}");
    };
    assert!(bracket.1 - bracket.0 <= 1e-9 * bracket.1, "{result:?}");
    let column_vector = d * 8;
    assert!(
        peak < 5 * column_vector,
        "the solve allocated {peak} bytes at its peak, {:.1} vectors of {d} columns",
        peak as f64 / column_vector as f64
    );
}

/// The augmented problems `(x, c)` read `c` as a virtual last entry: the same answer as the solve on the
/// augmented copy, for either storage, any `c`, separable or not, and at extreme scales.
#[test]
fn the_augmented_solve_is_the_solve_on_the_augmented_copy() {
    let solver = MaxMarginParams::new(Bias::ThroughOrigin).check().unwrap();
    let planted_set = planted(11, 3_000, 8, 0.02);
    let radius = planted_set.radius();
    let clash = Dataset::new(
        array![[1.0, 2.0], [0.0, 1.0], [1.0, 2.0]],
        array![1.0, 1.0, -1.0],
    )
    .unwrap();
    let huge = Dataset::new(
        array![[3e300, 1e299], [-2e300, 5e299], [1e300, -4e300]],
        array![1.0, -1.0, 1.0],
    )
    .unwrap();
    let tiny = Dataset::new(
        array![[3e-300, 1e-299], [-2e-300, 5e-299], [1e-300, -4e-300]],
        array![1.0, -1.0, 1.0],
    )
    .unwrap();
    let cases = [
        (planted_set.clone(), vec![1.0, radius, 0.25, -2.0]),
        (planted_set.to_sparse(), vec![1.0, radius]),
        (clash, vec![1.0, 3.0]),
        (huge, vec![1.0, 1e300, 4e300]),
        (tiny, vec![1e-300, 1.0]),
    ];
    for (data, constants) in cases {
        for c in constants {
            let copy = data.augment(c);
            let virtual_column = solver.solve_augmented(&data, c);
            let copied = solver.solve(&copy);
            let (virtual_column, copied) = match (virtual_column, copied) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(a), Err(b)) => {
                    assert_eq!(a.to_string(), b.to_string(), "c = {c}");
                    continue;
                }
                (a, b) => panic!("c = {c}: {a:?} against {b:?}"),
            };
            assert_eq!(
                virtual_column.separability(),
                copied.separability(),
                "c = {c}: {virtual_column:?} against {copied:?}"
            );
            match (&virtual_column, &copied) {
                (
                    MarginResult::Separable {
                        bracket: (lower, upper),
                        w,
                        ..
                    },
                    MarginResult::Separable {
                        bracket: (copy_lower, copy_upper),
                        ..
                    },
                ) => {
                    assert_eq!(w.len(), copy.n_features());
                    assert!(
                        lower <= copy_upper && copy_lower <= upper,
                        "c = {c}: [{lower}, {upper}] against [{copy_lower}, {copy_upper}]"
                    );
                    assert!(upper - lower <= 1e-9 * upper, "c = {c}: [{lower}, {upper}]");
                    // The separator's margin on the augmented copy is at least the certified lower end.
                    let margin = novikoff::margin::margin(&copy, w.view(), 0.0).unwrap();
                    assert!(
                        margin >= lower * (1.0 - 1e-12),
                        "c = {c}: {margin} < {lower}"
                    );
                }
                (
                    MarginResult::Inaccurate {
                        bracket: (lower, upper),
                        ..
                    },
                    MarginResult::Inaccurate {
                        bracket: (copy_lower, copy_upper),
                        ..
                    },
                ) => assert!(
                    lower <= copy_upper && copy_lower <= upper,
                    "c = {c}: [{lower}, {upper}] against [{copy_lower}, {copy_upper}]"
                ),
                (MarginResult::NotSeparable { certificate, .. }, _) => {
                    assert!(
                        certificate.verify(&copy, 1e-9 * copy.radius()),
                        "c = {c}: {certificate:?}"
                    );
                }
                (a, b) => panic!("c = {c}: {a:?} against {b:?}"),
            }
        }
    }
    assert!(
        solver
            .solve_augmented(&planted(1, 10, 2, 0.1), f64::NAN)
            .is_err()
    );
}

#[test]
fn the_geometry_never_copies_the_data() {
    // The four problems of the bounds, two of them on the augmented points (x, 1) and (x, R).
    let data = planted(13, 20_000, 12, 0.01);
    let dataset_bytes = 20_000 * 12 * 8;
    let _ = data.radius();
    let (geometry, peak) =
        peak_on_one_thread(|| novikoff::bounds::Geometry::compute(&data).unwrap());
    for solve in [&geometry.augmented_one, &geometry.augmented_radius] {
        assert!(solve.result().is_some_and(MarginResult::is_separable));
    }
    assert!(
        peak * 2 < dataset_bytes,
        "the geometry allocated {peak} bytes at its peak, against {dataset_bytes} of data"
    );
}

/// A dense working set's rows are read in place, so its memory budget holds the exact solve's
/// factorisation alone: `Q` (`d` values a column) and the triangle `R` while they fit, `R` alone
/// beyond. Past `R` the answer is an honest `Inaccurate` whose bracket holds the certified γ* and whose
/// reason names the budget; a budget that holds `R` of every column there can be certifies γ* without
/// `Q`, and one that holds `Q` too certifies the same bracket as the default budget, however many rows
/// the working set holds.
#[test]
fn a_dense_working_set_beyond_its_memory_budget_is_inaccurate_and_says_why() {
    let d = 60;
    let data = planted(17, 4_000, d, 0.01);
    let certified = max_margin(&data, Bias::Free).unwrap();
    let MarginResult::Separable {
        bracket,
        stats,
        support,
        ..
    } = &certified
    else {
        panic!("{certified:?}");
    };
    let solve_within = |budget: usize| {
        MaxMarginParams::new(Bias::Free)
            .working_set_memory(budget)
            .check()
            .unwrap()
            .solve(&data)
            .unwrap()
    };
    // `c` columns of `Q` and `R`: c·(d + ⌈c/2⌉ + 1) values; of `R` alone c·(⌈c/2⌉ + 1).
    let factorisation = |c: usize| c * (d + c.div_ceil(2) + 1) * 8;
    let triangle = |c: usize| c * (c.div_ceil(2) + 1) * 8;
    // The optimum's active set has a column for each support row but one of each class.
    let active_columns = support.len() - 2;
    for budget in [1 << 10, triangle(active_columns / 2)] {
        let small = solve_within(budget);
        let (lower, upper) = common::inaccurate_because(&small, "working_set_memory");
        assert!(
            lower <= bracket.0 && bracket.1 <= upper,
            "{budget}: {small:?}"
        );
    }
    // `R` of every column the centred points can have (d), and not `Q` of half as many: certified
    // without `Q`, a bracket as narrow that holds the same γ*.
    assert!(triangle(d) < factorisation(active_columns / 2));
    let without_q = solve_within(triangle(d));
    let MarginResult::Separable {
        bracket: (lower, upper),
        ..
    } = &without_q
    else {
        panic!("{without_q:?}");
    };
    assert!(
        *lower <= bracket.1 && bracket.0 <= *upper,
        "{without_q:?} against {certified:?}"
    );
    assert!(upper - lower <= 1e-9 * upper, "{without_q:?}");
    // Far less than a copy of the working set's rows would need.
    let fits = factorisation(d);
    assert!(fits < stats.working_set * d * 8, "{fits} {stats:?}");
    assert_eq!(solve_within(fits).bracket(), certified.bracket());
}

/// Dense data in many dimensions start the exact solve from dual coordinate descent on the first working
/// set, which reads the first set a few tens of times: the same points in 40 columns (below the
/// threshold) and with 200 zero columns more (above it) have the same maximum margin, and the wider
/// copy counts the descent's passes.
#[test]
fn a_dense_solve_in_many_dimensions_starts_from_the_descent_with_the_same_answer() {
    let narrow = planted(17, 600, 40, 0.05);
    let mut wide_x = Array2::zeros((600, 240));
    wide_x.slice_mut(ndarray::s![.., ..40]).assign(&narrow.x());
    let wide = Dataset::new(wide_x, narrow.y().to_owned()).unwrap();
    let solve = |data: &Dataset| -> ((f64, f64), usize, usize) {
        let result = max_margin(data, Bias::Free).unwrap();
        let MarginResult::Separable { bracket, .. } = &result else {
            panic!("{result:?}");
        };
        assert!(bracket.1 - bracket.0 <= 1e-9 * bracket.1, "{result:?}");
        (*bracket, result.stats().passes, result.stats().rounds)
    };
    let (narrow_bracket, narrow_passes, narrow_rounds) = solve(&narrow);
    let (wide_bracket, wide_passes, wide_rounds) = solve(&wide);
    assert!(
        narrow_bracket.0 <= wide_bracket.1 && wide_bracket.0 <= narrow_bracket.1,
        "{narrow_bracket:?} against {wide_bracket:?}"
    );
    // Two passes choose the first set and one follows each round; the descent adds at least three.
    assert_eq!(narrow_passes, 2 + narrow_rounds);
    assert!(wide_passes >= 2 + wide_rounds + 3, "{wide_passes} passes");
}

/// A solve's parallel steps (the scans, the pricing, the batches' projections) share rows and columns
/// among the threads, each with the bits it has alone, so the answer is the same to the bit from
/// outside rayon's pool (where the solve moves onto a thread of the global pool) and on pools of one,
/// two and three threads. In 450 dimensions the support passes 300 rows, and from 292 columns of `Q` a
/// batch's projection on them is shared among the threads (`Q` is kept: the 3000 rows' values are
/// more than four times its own).
#[test]
fn a_solve_has_the_same_bits_on_any_number_of_threads() {
    let data = novikoff::generate::separable(3_000, 450, 0.05, 1.0, 5)
        .unwrap()
        .data;
    let outside = max_margin(&data, Bias::Free).unwrap();
    let MarginResult::Separable { support, .. } = &outside else {
        panic!("{outside:?}");
    };
    assert!(support.len() > 300, "{} support rows", support.len());
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let inside = pool.install(|| max_margin(&data, Bias::Free).unwrap());
        assert_eq!(
            format!("{inside:?}"),
            format!("{outside:?}"),
            "{threads} threads"
        );
    }
}

/// Dense data in 48 to 255 dimensions may start their exact solves from Newton's method on the squared
/// hinge loss (the first from the descent's separator when the descent did not settle, a later one from
/// the last optimum when many rows join it: on this set 263 and then 37 rows join, and both restart);
/// sparse storage takes neither. The two storages certify the same margin and support, free and
/// through the origin.
#[test]
fn a_dense_solve_started_by_newtons_method_agrees_with_the_sparse_storage() {
    let data = novikoff::generate::separable(20_000, 90, 0.005, 1.0, 11)
        .unwrap()
        .data;
    let sparse = data.to_sparse();
    for bias in [Bias::Free, Bias::ThroughOrigin] {
        let solve = |data: &Dataset| -> ((f64, f64), Vec<usize>, usize) {
            let result = max_margin(data, bias).unwrap();
            let MarginResult::Separable {
                bracket, support, ..
            } = &result
            else {
                panic!("{result:?}");
            };
            assert!(bracket.1 - bracket.0 <= 1e-9 * bracket.1, "{result:?}");
            (*bracket, support.clone(), result.stats().rounds)
        };
        let (dense, dense_support, rounds) = solve(&data);
        let (packed, packed_support, _) = solve(&sparse);
        assert!(
            dense.0 <= packed.1 && packed.0 <= dense.1,
            "{bias:?}: {dense:?} against {packed:?}"
        );
        assert_eq!(dense_support, packed_support, "{bias:?}");
        assert!(rounds >= 2, "{bias:?}: {rounds} rounds");
    }
}
