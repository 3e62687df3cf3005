//! Sparse (CSR) datasets: every stage on either storage, and the sequential run's bits.
//!
//! The claim checked here (documented on `novikoff::dataset::RowView`): on the same data a sparse run and
//! a dense run in `Summation::Sequential` order make the same updates with the same activations, and end
//! with the same weights up to the sign of zero.

mod common;

use ndarray::{Array1, Array2, array};
use novikoff::bounds::{Geometry, verify, verify_with};
use novikoff::dataset::{CsrMatrix, MAX_SPARSE_COLUMNS, MulticlassDataset, RowView};
use novikoff::generate::{Family, SparseParams};
use novikoff::io::{ReadOptions, Storage, read_libsvm_from, write_libsvm_to};
use novikoff::margin::{self, Bias, MarginResult};
use novikoff::perceptron::{BiasRule, Fit, Order, PerceptronParams, Trace};
use novikoff::simd::Summation;
use novikoff::{Dataset, Error, rng};
use rand::Rng;

/// A dataset whose rows are mostly zeros: `nnz` random entries a row, labelled by a random `u` (so it is
/// separable through the origin) or at random.
fn random_sparse(seed: u64, n: usize, d: usize, nnz: usize, separable: bool) -> Dataset {
    let mut stream = rng::from_seed(seed);
    let u: Vec<f64> = (0..d).map(|_| stream.random_range(-1.0..1.0)).collect();
    let mut x = Array2::zeros((n, d));
    let mut y = Array1::zeros(n);
    for i in 0..n {
        for _ in 0..nnz {
            let j = stream.random_range(0..d);
            x[[i, j]] = stream.random_range(-2.0..2.0);
        }
        let s: f64 = (0..d).map(|j| u[j] * x[[i, j]]).sum();
        y[i] = if separable {
            if s >= 0.0 { 1.0 } else { -1.0 }
        } else if stream.random_bool(0.5) {
            1.0
        } else {
            -1.0
        };
    }
    Dataset::new(x, y).unwrap()
}

fn rules() -> [BiasRule; 4] {
    [
        BiasRule::None,
        BiasRule::Classic,
        BiasRule::Novikoff,
        BiasRule::Constant(0.75),
    ]
}

/// Equal as numbers (so `-0.0 == 0.0`), element by element.
fn same_up_to_zero_sign(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

#[test]
fn sparse_and_dense_sequential_runs_make_the_same_updates() {
    let mut checked = 0;
    for seed in 0..12 {
        let separable = seed % 3 != 2;
        let dense = random_sparse(seed, 60, 25, 4, separable);
        let sparse = dense.to_sparse();
        assert!(sparse.is_sparse() && sparse.nnz() < dense.nnz());
        for rule in rules() {
            for order in [Order::Cyclic, Order::Shuffle { seed: 7 + seed }] {
                let params = PerceptronParams::new()
                    .bias(rule)
                    .order(order)
                    .max_epochs(40)
                    .summation(Summation::Sequential)
                    .check()
                    .unwrap();
                let (mut dense_trace, mut sparse_trace) = (Trace::default(), Trace::default());
                let a = params.fit_with_trace(&dense, &mut dense_trace).unwrap();
                let b = params.fit_with_trace(&sparse, &mut sparse_trace).unwrap();
                assert_eq!(
                    (a.mistakes, a.epochs, a.stop_reason),
                    (b.mistakes, b.epochs, b.stop_reason)
                );
                assert!(same_up_to_zero_sign(
                    a.w.as_slice().unwrap(),
                    b.w.as_slice().unwrap()
                ));
                assert_eq!(a.b.to_bits(), b.b.to_bits(), "{rule:?}");
                assert_eq!(a.bias_weight.to_bits(), b.bias_weight.to_bits());
                assert_eq!(dense_trace.records.len(), sparse_trace.records.len());
                for (p, q) in dense_trace.records.iter().zip(&sparse_trace.records) {
                    assert_eq!((p.row, p.epoch), (q.row, q.epoch));
                    assert_eq!(p.activation.to_bits(), q.activation.to_bits());
                    assert!(same_up_to_zero_sign(&p.w, &q.w));
                    assert_eq!(p.b.to_bits(), q.b.to_bits());
                }
                checked += a.mistakes;
            }
        }
    }
    assert!(
        checked > 1000,
        "the runs made updates to compare: {checked}"
    );
}

#[test]
fn the_fast_order_on_sparse_rows_is_fixed_and_recomputed_by_predictions() {
    let sparse = random_sparse(3, 80, 40, 9, true).to_sparse();
    let params = PerceptronParams::new().summation(Summation::Fast);
    let (a, b) = (params.fit(&sparse).unwrap(), params.fit(&sparse).unwrap());
    assert_eq!(
        a,
        Fit {
            train_seconds: a.train_seconds,
            ..b.clone()
        },
        "the same bits twice"
    );
    assert!(a.converged);
    assert_eq!(a.summation, Summation::Fast);
    // Predictions sum each row as the pass did: four lanes by entry position, (l0 + l2) + (l1 + l3).
    let w = a.w.as_slice().unwrap();
    let decisions = a.decision_function_dataset(&sparse).unwrap();
    for i in 0..sparse.n_samples() {
        let RowView::Sparse { indices, values } = sparse.row_view(i) else {
            panic!("a sparse row")
        };
        let mut lanes = [0.0f64; 4];
        for (k, (&j, &x)) in indices.iter().zip(values).enumerate() {
            lanes[k % 4] += w[j as usize] * x;
        }
        let expected = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]) + a.b;
        assert_eq!(decisions[i].to_bits(), expected.to_bits(), "row {i}");
    }
    // The sequential order is another fixed order, which both storages share (tested above).
    let sequential = PerceptronParams::new()
        .summation(Summation::Sequential)
        .fit(&sparse)
        .unwrap();
    assert!(sequential.converged);
}

#[test]
fn geometry_margins_and_predictions_agree_between_storages() {
    for seed in 0..6 {
        let dense = random_sparse(100 + seed, 40, 12, 3, true);
        let sparse = dense.to_sparse();
        assert_eq!(dense.radius().to_bits(), sparse.radius().to_bits());
        let w = Array1::from_iter((0..12).map(|j| (j as f64 - 5.5) / 3.0));
        for b in [0.0, 0.25] {
            let m_dense = margin::margins(&dense, w.view(), b).unwrap();
            let m_sparse = margin::margins(&sparse, w.view(), b).unwrap();
            assert_eq!(m_dense, m_sparse);
        }
        for bias in [Bias::Free, Bias::ThroughOrigin] {
            let a = margin::max_margin(&dense, bias).unwrap();
            let b = margin::max_margin(&sparse, bias).unwrap();
            agree(&a, &b, &sparse, &format!("seed {seed}, {bias:?}"));
        }
        let fit = PerceptronParams::new()
            .summation(Summation::Sequential)
            .fit(&dense)
            .unwrap();
        assert_eq!(
            fit.predict_dataset(&sparse).unwrap(),
            fit.predict(dense.x()).unwrap()
        );
        assert_eq!(
            fit.accuracy(&sparse).unwrap(),
            fit.accuracy(&dense).unwrap()
        );
    }
}

/// Two answers to the same maximum-margin problem (one from the dense solver, one from the row-subset
/// solver of sparse data) agree: the same outcome, and rigorous brackets that overlap; a certificate
/// verifies on the sparse data.
fn agree(dense: &MarginResult, sparse: &MarginResult, data: &Dataset, case: &str) {
    assert_eq!(dense.is_separable(), sparse.is_separable(), "{case}");
    match (dense.bracket(), sparse.bracket()) {
        (Some((a_lo, a_hi)), Some((b_lo, b_hi))) => {
            assert!(
                a_lo <= b_hi && b_lo <= a_hi,
                "{case}: [{a_lo}, {a_hi}] and [{b_lo}, {b_hi}]"
            );
            assert!(
                matches!(sparse, MarginResult::Separable { .. }),
                "{case}: {sparse:?}"
            );
            assert!(b_hi - b_lo <= 1e-6 * b_hi, "{case}");
        }
        (None, None) => {
            let certificate = sparse.certificate().expect("not separable");
            assert!(certificate.verify(data, 1e-9 * data.radius()), "{case}");
        }
        other => panic!("{case}: {other:?}"),
    }
}

/// A generated sparse set of `n` rows in `d` dimensions, `nnz` values a row, four support directions.
fn support_four(n: usize, d: usize, nnz: usize, margin: f64, seed: u64) -> Dataset {
    generated(SparseParams::new(n, d).nnz(nnz).support(4), margin, seed)
}

/// The set `params` generate with margin `margin` and seed `seed`.
fn generated(params: SparseParams, margin: f64, seed: u64) -> Dataset {
    params
        .margin(margin)
        .seed(seed)
        .check()
        .unwrap()
        .generate()
        .unwrap()
        .data
}

/// A sparse working set is held as its rows' coordinates in their span: rows that repeat others, sums
/// of others and empty rows open no dimension, and the answer is still the dense solver's.
#[test]
fn dependent_sparse_rows_give_the_dense_answer() {
    for seed in 0..3 {
        let base = support_four(120, 4000, 10, 0.05, seed).to_dense().unwrap();
        let (x, y) = (base.x(), base.labels());
        let mut rows: Vec<Array1<f64>> = Vec::new();
        let mut labels = Vec::new();
        for i in 0..x.nrows() {
            rows.push(x.row(i).to_owned());
            labels.push(y[i]);
            // A copy of every third row, and the mean of two rows of one class (inside its hull).
            if i % 3 == 0 {
                rows.push(x.row(i).to_owned());
                labels.push(y[i]);
            }
            if i >= 2 && y[i] == y[i - 2] {
                rows.push((&x.row(i) + &x.row(i - 2)) * 0.5);
                labels.push(y[i]);
            }
        }
        let mut matrix = Array2::zeros((rows.len(), x.ncols()));
        for (k, row) in rows.iter().enumerate() {
            matrix.row_mut(k).assign(row);
        }
        let dense = Dataset::new(matrix, Array1::from(labels)).unwrap();
        let sparse = dense.to_sparse();
        for bias in [Bias::ThroughOrigin, Bias::Free] {
            let a = margin::max_margin(&dense, bias).unwrap();
            let b = margin::max_margin(&sparse, bias).unwrap();
            agree(&a, &b, &sparse, &format!("seed {seed}, {bias:?}"));
            let (lower, upper) = b.bracket().unwrap();
            assert!(
                upper - lower <= 1e-9 * upper,
                "seed {seed}, {bias:?}: {b:?}"
            );
        }
    }
}

/// The generator's sparse sets with two or three values a row, in hundreds to thousands of columns,
/// whose rows are nearly dependent on others. Each ended `Inaccurate`, the first with a lower end of
/// −0.04, though the generator proves a margin of 0.01:
/// * 2000 × 400: read in place now (sparse data in up to 1024 columns are);
/// * 1500 × 1050: its span's coordinates (from the Gram matrix) lost digits along dimensions opened by
///   tiny pivots, and its bracket stayed 1 % wide; done again in place now;
/// * 3000 × 5000: the descent's weights started Wolfe's method on an active set so ill-conditioned
///   that it stalled after two iterations; solved again from a cold start now.
#[test]
fn sparse_sets_of_a_few_values_a_row_in_a_thousand_columns_are_certified() {
    for (n, d, nnz, seed) in [(2000, 400, 3, 24), (1500, 1050, 3, 54), (3000, 5000, 2, 61)] {
        let data = generated(SparseParams::new(n, d).nnz(nnz), 0.01, seed);
        assert!(data.is_sparse());
        let result = margin::max_margin(&data, Bias::Free).unwrap();
        let case = format!("{n} × {d}, {nnz} a row, seed {seed}");
        let MarginResult::Separable { bracket, .. } = result else {
            panic!("{case}: {result:?}");
        };
        assert!(bracket.0 >= 0.01 * (1.0 - 1e-9), "{case}: {bracket:?}");
        assert!(
            bracket.1 - bracket.0 <= 1e-9 * bracket.1,
            "{case}: {bracket:?}"
        );
    }
}

#[test]
fn the_row_subset_solver_certifies_sparse_data_without_the_dense_matrix() {
    // Enough rows that the first subset (32 a class) misses some of the support.
    for seed in 0..2 {
        let sparse = support_four(300, 1500, 8, 0.05, seed);
        let dense = sparse.to_dense().unwrap();
        for bias in [Bias::ThroughOrigin, Bias::Free] {
            let a = margin::max_margin(&dense, bias).unwrap();
            let b = margin::max_margin(&sparse, bias).unwrap();
            agree(&a, &b, &sparse, &format!("seed {seed}, {bias:?}"));
            // γ* is at least the prescribed margin of u.
            assert!(b.bracket().unwrap().1 >= 0.05, "seed {seed}");
        }
    }
    // Random labels: not separable through the origin, with a certificate checked on all rows.
    let noisy = random_sparse(77, 300, 6, 3, false).to_sparse();
    for bias in [Bias::ThroughOrigin, Bias::Free] {
        let a = margin::max_margin(&noisy.to_dense().unwrap(), bias).unwrap();
        let b = margin::max_margin(&noisy, bias).unwrap();
        agree(&a, &b, &noisy, &format!("noisy, {bias:?}"));
    }
}

#[test]
fn verify_gives_the_dense_sequential_verdict_on_sparse_data() {
    let dense = random_sparse(5, 50, 10, 3, true);
    let sparse = dense.to_sparse();
    let (g_dense, g_sparse) = (
        Geometry::compute(&dense).unwrap(),
        Geometry::compute(&sparse).unwrap(),
    );
    for rule in rules() {
        let params = PerceptronParams::new()
            .bias(rule)
            .summation(Summation::Sequential);
        let a = verify_with(&g_dense, &params).unwrap();
        let b = verify_with(&g_sparse, &params).unwrap();
        assert_eq!(a.holds, b.holds, "{rule:?}");
        assert_eq!(a.fit.mistakes, b.fit.mistakes);
        assert_eq!(a.invariants.violations, 0);
        assert_eq!(b.invariants.violations, 0);
        assert_eq!(a.invariants.updates, b.invariants.updates);
    }
    // Non-separable sparse data: no bound applies, and nothing fails.
    let noisy = random_sparse(6, 40, 8, 3, false).to_sparse();
    let verdict = verify(&noisy, &PerceptronParams::new().max_epochs(30)).unwrap();
    assert!(verdict.failures().is_empty());
}

#[test]
fn transforms_keep_sparse_data_sparse_and_equal_to_the_dense_result() {
    let dense = random_sparse(9, 30, 7, 2, true);
    let sparse = dense.to_sparse();
    let pairs = [
        (dense.augment(1.5), sparse.augment(1.5)),
        (dense.augment(0.0), sparse.augment(0.0)),
        (dense.negate_negatives(), sparse.negate_negatives()),
        (dense.select(&[4, 0, 4]), sparse.select(&[4, 0, 4])),
    ];
    for (a, b) in pairs {
        assert!(b.is_sparse());
        assert_eq!(b.to_dense().unwrap(), a);
    }
    let with_zero_row = Dataset::new(array![[0.0, 3.0], [4.0, 0.0]], array![1.0, -1.0]).unwrap();
    let unit = with_zero_row.to_sparse().unit_normalize().unwrap();
    assert!(unit.is_sparse());
    assert_eq!(
        unit.to_dense().unwrap(),
        with_zero_row.unit_normalize().unwrap()
    );
    let zero = Dataset::new(array![[0.0, 0.0], [1.0, 0.0]], array![1.0, -1.0]).unwrap();
    assert!(matches!(
        zero.to_sparse().unit_normalize(),
        Err(Error::ZeroRow { row: 0 })
    ));
}

#[test]
fn libsvm_reads_into_either_storage_and_round_trips() {
    let text = b"+1 2:0.5 7:-3\n-1 1:1 # comment\n\n+1 qid:3 3:2.25 4:1e-3\n-1\n";
    let dense = read_libsvm_from(
        text,
        "d.svm".as_ref(),
        &ReadOptions::default().storage(Storage::Dense),
    )
    .unwrap();
    let sparse = read_libsvm_from(
        text,
        "d.svm".as_ref(),
        &ReadOptions::default().storage(Storage::Sparse),
    )
    .unwrap();
    assert!(!dense.is_sparse() && sparse.is_sparse());
    assert_eq!(
        (sparse.n_samples(), sparse.n_features(), sparse.nnz()),
        (4, 7, 5)
    );
    assert_eq!(sparse.to_dense().unwrap(), dense);
    // An empty line holds no example; a line with only a label is the zero vector.
    assert_eq!(sparse.row_view(3).nnz(), 0);
    let mut out = Vec::new();
    write_libsvm_to(&mut out, &sparse).unwrap();
    let mut dense_out = Vec::new();
    write_libsvm_to(&mut dense_out, &dense).unwrap();
    assert_eq!(out, dense_out);
    let back = read_libsvm_from(
        &out,
        "back.svm".as_ref(),
        &ReadOptions::default().storage(Storage::Sparse),
    )
    .unwrap();
    assert_eq!(back, sparse);
    // The dimension survives a round trip when no row stores the last column.
    let narrow = read_libsvm_from(
        b"+1 1:1\n-1 2:1\n",
        "n.svm".as_ref(),
        &ReadOptions::default()
            .storage(Storage::Sparse)
            .n_features(5),
    )
    .unwrap();
    let mut out = Vec::new();
    write_libsvm_to(&mut out, &narrow).unwrap();
    assert_eq!(out, b"+1 1:1 5:0\n-1 2:1\n");
}

#[test]
fn a_dense_format_asked_for_the_sparse_storage_is_kept_as_csr() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("d.csv");
    std::fs::write(&csv, "x1,x2,x3,y\n0,2.5,0,1\n-1,0,0,-1\n0,0,0,1\n").unwrap();
    let dense = novikoff::io::open(&csv, &ReadOptions::default()).unwrap();
    let sparse =
        novikoff::io::open(&csv, &ReadOptions::default().storage(Storage::Sparse)).unwrap();
    assert!(!dense.is_sparse() && sparse.is_sparse());
    assert_eq!(sparse.nnz(), 2);
    assert_eq!(sparse.to_dense().unwrap(), dense);
    let classes =
        novikoff::io::open_multiclass(&csv, &ReadOptions::default().storage(Storage::Sparse))
            .unwrap();
    assert!(classes.features().is_sparse());
}

#[test]
fn libsvm_errors_name_the_line_and_entry_in_sparse_storage_too() {
    let sparse = ReadOptions::default().storage(Storage::Sparse);
    let cases: [(&[u8], &str); 6] = [
        (b"+1 3:1 2:1\n", "x.svm:1:8: feature index 2 after 3"),
        (b"+1 3:1 3:1\n", "x.svm:1:8: feature index 3 after 3"),
        (b"+1 0:1\n", "x.svm:1:4: feature index 0"),
        (
            b"+1 -2:1\n",
            "x.svm:1:4: feature index `-2` is not a positive integer",
        ),
        (
            b"-1 1:1\n+1 2:nan\n",
            "x.svm:2:6: value `nan` is not finite",
        ),
        (b"+1 1:inf\n", "x.svm:1:6: value `inf` is not finite"),
    ];
    for (text, expected) in cases {
        let err = read_libsvm_from(text, "x.svm".as_ref(), &sparse).unwrap_err();
        assert!(err.to_string().starts_with(expected), "{expected} in {err}");
        assert!(err.is_input());
    }
    let err =
        read_libsvm_from(b"+1 9:1\n", "x.svm".as_ref(), &sparse.clone().n_features(4)).unwrap_err();
    assert!(err.to_string().contains("exceeds --features 4"), "{err}");
    // An absurd index is refused as implausible for the file, with the flag that confirms it.
    let err = read_libsvm_from(b"+1 99999999999:1\n", "x.svm".as_ref(), &sparse).unwrap_err();
    assert!(err.to_string().contains("--features 99999999999"), "{err}");
}

#[test]
fn auto_storage_is_sparse_for_large_sparse_files_only() {
    // 3 rows of 3 million features: the dense matrix would take 72 MB, the stored pairs are 5.
    let text = b"+1 1:1 3000000:2\n-1 2:1\n+1 5:1 6:1\n";
    let auto = read_libsvm_from(text, "a.svm".as_ref(), &ReadOptions::default()).unwrap();
    assert!(auto.is_sparse());
    assert_eq!(auto.n_features(), 3_000_000);
    let small = read_libsvm_from(
        b"+1 1:1 3:2\n-1 2:1\n",
        "s.svm".as_ref(),
        &ReadOptions::default(),
    )
    .unwrap();
    assert!(!small.is_sparse());
    // Dense storage keeps its plausibility check.
    let err = read_libsvm_from(
        text,
        "a.svm".as_ref(),
        &ReadOptions::default().storage(Storage::Dense),
    )
    .unwrap_err();
    assert!(err.to_string().contains("--features 3000000"), "{err}");
}

#[test]
fn a_csr_matrix_is_validated_like_a_dense_one() {
    let bad_value = sprs::CsMat::new((2, 2), vec![0, 1, 2], vec![0, 1], vec![1.0, f64::NAN]);
    assert!(matches!(
        Dataset::from_csr(bad_value, array![1.0, -1.0]),
        Err(Error::NonFinite {
            row: 1,
            column: 1,
            ..
        })
    ));
    // The storage's own index type takes the path that keeps the matrix: checked the same way.
    let bad_value: CsrMatrix = CsrMatrix::new(
        (2, 3),
        vec![0, 2, 3],
        vec![0, 2, 1],
        vec![1.0, 3.0, f64::INFINITY],
    );
    assert!(matches!(
        Dataset::from_csr(bad_value, array![1.0, -1.0]),
        Err(Error::NonFinite {
            row: 1,
            column: 1,
            ..
        })
    ));
    let kept: CsrMatrix =
        CsrMatrix::new((2, 3), vec![0, 2, 3], vec![0, 2, 1], vec![1.0, 3.0, -2.0]);
    let data = Dataset::from_csr(kept.clone(), array![1.0, -1.0]).unwrap();
    assert_eq!(data.csr(), Some(kept.view()));
    let ok = sprs::CsMat::new((2, 2), vec![0, 1, 1], vec![1], vec![2.0]);
    assert!(matches!(
        Dataset::from_csr(ok.clone(), array![1.0, 0.5]),
        Err(Error::Label { row: 1, .. })
    ));
    assert!(matches!(
        Dataset::from_csr(ok.clone(), array![1.0]),
        Err(Error::Shape { .. })
    ));
    let data = Dataset::from_csr(ok.to_csc(), array![1.0, -1.0]).unwrap();
    assert!(data.is_sparse());
    assert_eq!(data.row_view(1).nnz(), 0, "an empty row is the zero vector");
    // The zero row is a mistake at w = 0 (y·0 ≤ 0) and stays one: the run stops at its cap, as dense.
    let fit = PerceptronParams::new().max_epochs(5).fit(&data).unwrap();
    let dense_fit = PerceptronParams::new()
        .max_epochs(5)
        .summation(Summation::Sequential)
        .fit(&data.to_dense().unwrap())
        .unwrap();
    assert_eq!(
        (fit.mistakes, fit.converged),
        (dense_fit.mistakes, dense_fit.converged)
    );
}

#[test]
fn the_cli_trains_and_verifies_a_sparse_libsvm_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = random_sparse(21, 60, 30, 3, true);
    let mut text = Vec::new();
    write_libsvm_to(&mut text, &data).unwrap();
    let path = common::write(&dir, "s.svm", &text);
    let path = path.to_str().unwrap();
    let sparse = common::stdout(&common::novikoff(&[
        "train",
        path,
        "--storage",
        "sparse",
        "--summation",
        "sequential",
        "--format",
        "json",
    ]));
    let dense = common::stdout(&common::novikoff(&[
        "train",
        path,
        "--storage",
        "dense",
        "--summation",
        "sequential",
        "--format",
        "json",
    ]));
    let field = |json: &str, key: &str| -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(json).unwrap()[key].clone()
    };
    for key in ["mistakes", "epochs", "w", "b", "converged"] {
        assert_eq!(field(&sparse, key), field(&dense, key), "{key}");
    }
    let verified = common::novikoff(&["verify", path, "--storage", "sparse"]);
    assert_eq!(
        verified.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&verified.stderr)
    );
    let refused = common::novikoff(&["train", path, "--storage", "csr"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--storage"));
}

/// A `.npz` archive of `.npy` entries built by hand, as numpy writes them: `(name, descr, shape, bytes)`.
fn npz(entries: &[(&str, &str, &[usize], Vec<u8>)]) -> Vec<u8> {
    use std::io::Write;
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    for (name, descr, shape, payload) in entries {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        let shape = match shape {
            [] => "()".to_string(),
            [n] => format!("({n},)"),
            s => format!(
                "({})",
                s.iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        let total = (10 + dict.len() + 1).div_ceil(64) * 64;
        zip.write_all(b"\x93NUMPY\x01\x00").unwrap();
        zip.write_all(&((total - 10) as u16).to_le_bytes()).unwrap();
        zip.write_all(dict.as_bytes()).unwrap();
        zip.write_all(&vec![b' '; total - 10 - dict.len() - 1])
            .unwrap();
        zip.write_all(b"\n").unwrap();
        zip.write_all(payload).unwrap();
    }
    zip.finish().unwrap();
    out.into_inner()
}

fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn i64s(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn f64s(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The arrays of scipy's `save_npz` for the 2 × 3 matrix [[0, 2, 0], [-1, 0, 4]] (int32 indices, a byte
/// string format, an int64 shape), with labels `y`.
fn scipy_like(indptr: &[i32], indices: &[i32], data: &[f64], y: &[f64]) -> Vec<u8> {
    npz(&[
        ("indices.npy", "<i4", &[indices.len()], i32s(indices)),
        ("indptr.npy", "<i4", &[indptr.len()], i32s(indptr)),
        ("format.npy", "|S3", &[], b"csr".to_vec()),
        ("shape.npy", "<i8", &[2], i64s(&[2, 3])),
        ("data.npy", "<f8", &[data.len()], f64s(data)),
        ("y.npy", "<f8", &[y.len()], f64s(y)),
    ])
}

#[test]
fn scipy_sparse_npz_reads_as_csr_and_round_trips() {
    let bytes = scipy_like(&[0, 1, 3], &[1, 0, 2], &[2.0, -1.0, 4.0], &[1.0, -1.0]);
    let options = ReadOptions::default().storage(Storage::Sparse);
    let data = novikoff::io::read_npz_from(&bytes, "s.npz".as_ref(), &options).unwrap();
    assert!(data.is_sparse());
    assert_eq!(
        data.to_dense().unwrap().x(),
        array![[0.0, 2.0, 0.0], [-1.0, 0.0, 4.0]]
    );
    // Dense storage, and auto on a small matrix, give the dense dataset.
    let dense = novikoff::io::read_npz_from(&bytes, "s.npz".as_ref(), &Default::default()).unwrap();
    assert!(!dense.is_sparse());
    assert_eq!(dense, data.to_dense().unwrap());
    // Written back as scipy's layout, and read again: the same dataset.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("back.npz");
    novikoff::io::write_npz(&path, &data).unwrap();
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&path).unwrap()).unwrap();
    let mut names: Vec<String> = archive.file_names().map(str::to_string).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "data.npy",
            "format.npy",
            "indices.npy",
            "indptr.npy",
            "shape.npy",
            "y.npy"
        ]
    );
    assert!(archive.by_name("format.npy").is_ok());
    // int32 indices and row pointers, as scipy stores a matrix this size.
    for name in ["indices.npy", "indptr.npy"] {
        let mut header = [0u8; 64];
        std::io::Read::read_exact(&mut archive.by_name(name).unwrap(), &mut header).unwrap();
        let header = String::from_utf8_lossy(&header);
        assert!(header.contains("'descr': '<i4'"), "{name}: {header}");
    }
    let back = novikoff::io::read_npz(&path, &options).unwrap();
    assert_eq!(back, data);
    // CSC is read too (the same matrix stored by columns).
    let csc = npz(&[
        ("indices.npy", "<i8", &[3], i64s(&[1, 0, 1])),
        ("indptr.npy", "<i8", &[4], i64s(&[0, 1, 2, 3])),
        ("format.npy", "|S3", &[], b"csc".to_vec()),
        ("shape.npy", "<i8", &[2], i64s(&[2, 3])),
        ("data.npy", "<f8", &[3], f64s(&[-1.0, 2.0, 4.0])),
        ("y.npy", "<f8", &[2], f64s(&[1.0, -1.0])),
    ]);
    let from_csc = novikoff::io::read_npz_from(&csc, "c.npz".as_ref(), &options).unwrap();
    assert_eq!(from_csc, data);
}

#[test]
fn columns_beyond_the_32_bit_index_are_refused_never_wrapped() {
    // 2³¹ − 1 columns is scipy's int32 limit, and ours.
    let empty_rows = |d: usize| sprs::CsMat::new((2, d), vec![0, 1, 1], vec![d - 1], vec![1.0]);
    let at_limit = Dataset::from_csr(empty_rows(MAX_SPARSE_COLUMNS), array![1.0, -1.0]).unwrap();
    assert_eq!(at_limit.n_features(), 2_147_483_647);
    assert_eq!(
        at_limit.row_view(0),
        RowView::Sparse {
            indices: &[2_147_483_646],
            values: &[1.0]
        }
    );
    let err = Dataset::from_csr(empty_rows(MAX_SPARSE_COLUMNS + 1), array![1.0, -1.0]).unwrap_err();
    assert!(
        matches!(err, novikoff::Error::TooManyColumns { .. }),
        "{err}"
    );
    assert!(err.is_input());
    // Kesler's lifted matrix of k blocks of d + 1 columns must fit the index too.
    let classes = |k: usize| (0..k).map(|c| c.to_string()).collect::<Vec<_>>();
    let data = MulticlassDataset::from_features(at_limit, classes(3), vec![0, 2]).unwrap();
    let err = data.kesler(1.0).unwrap_err();
    assert!(
        err.to_string()
            .contains("Kesler's lifted matrix would have 6442450944 columns"),
        "{err}"
    );
    let small = random_sparse(20, 30, 50, 4, true).to_sparse();
    let fits =
        MulticlassDataset::from_features(small, classes(3), (0..30).map(|i| i % 3).collect());
    assert_eq!(fits.unwrap().kesler(1.0).unwrap().n_features(), 153);
}

#[test]
fn a_broken_sparse_npz_is_refused_with_the_array_row_and_entry() {
    let options = ReadOptions::default().storage(Storage::Sparse);
    let read = |bytes: Vec<u8>| {
        novikoff::io::read_npz_from(&bytes, "b.npz".as_ref(), &options)
            .unwrap_err()
            .to_string()
    };
    let y = [1.0, -1.0];
    let cases = [
        (
            read(scipy_like(&[0, 4, 3], &[1, 0, 2], &[2.0, -1.0, 4.0], &y)),
            "csr matrix, row 0: indptr reaches 4, beyond the 3 stored values",
        ),
        (
            read(scipy_like(&[0, 2, 1, 3], &[1, 0, 2], &[2.0, -1.0, 4.0], &y)),
            "indptr has 4 entries, and 2 rows need 3",
        ),
        (
            read(scipy_like(&[0, 1, 3], &[1, 0, 3], &[2.0, -1.0, 4.0], &y)),
            "row 1: stored entry 2: column index 3 is beyond the 3 columns",
        ),
        (
            read(scipy_like(&[0, 1, 3], &[1, 2, 0], &[2.0, -1.0, 4.0], &y)),
            "row 1: stored entry 2: column index 0 follows 2",
        ),
        (
            read(scipy_like(&[0, 1, 3], &[1, 0, 2], &[2.0, -1.0], &y)),
            "indices has 3 entries and data 2",
        ),
        (
            read(scipy_like(
                &[0, 1, 3],
                &[1, 0, 2],
                &[2.0, f64::NAN, 4.0],
                &y,
            )),
            "row 1: stored entry 1, column 0: value NaN is not finite",
        ),
        (
            read(scipy_like(
                &[0, 1, 3],
                &[1, 0, 2],
                &[2.0, -1.0, 4.0],
                &[1.0],
            )),
            "arrays `shape` and `y` disagree",
        ),
        (
            read(scipy_like(&[0, 1, 3], &[1, -1, 2], &[2.0, -1.0, 4.0], &y)),
            "array `indices`: entry [1]: -1 is not a valid index",
        ),
        (
            read(npz(&[
                ("row.npy", "<i8", &[1], i64s(&[0])),
                ("format.npy", "|S3", &[], b"coo".to_vec()),
                ("indices.npy", "<i8", &[1], i64s(&[0])),
                ("indptr.npy", "<i8", &[3], i64s(&[0, 1, 1])),
                ("data.npy", "<f8", &[1], f64s(&[1.0])),
                ("shape.npy", "<i8", &[2], i64s(&[2, 3])),
                ("y.npy", "<f8", &[2], f64s(&y)),
            ])),
            "stored as `coo`",
        ),
        (
            read(npz(&[
                ("indices.npy", "<i8", &[1], i64s(&[0])),
                ("indptr.npy", "<i8", &[3], i64s(&[0, 1, 1])),
                ("data.npy", "<f8", &[1], f64s(&[1.0])),
                ("shape.npy", "<i8", &[2], i64s(&[2, 3_000_000_000])),
                ("y.npy", "<f8", &[2], f64s(&y)),
            ])),
            "array `shape`: 3000000000 columns are more than a csr matrix's 32-bit indices address",
        ),
    ];
    for (message, expected) in cases {
        assert!(message.starts_with("b.npz: "), "{message}");
        assert!(message.contains(expected), "{expected} in {message}");
    }
}

#[test]
fn the_online_learner_on_sparse_rows_makes_the_first_epochs_updates() {
    for seed in 0..4 {
        let sparse = random_sparse(200 + seed, 70, 30, 4, seed % 2 == 0).to_sparse();
        for summation in [Summation::Fast, Summation::Sequential] {
            for rule in [BiasRule::None, BiasRule::Classic] {
                let params = PerceptronParams::new()
                    .bias(rule)
                    .summation(summation)
                    .max_epochs(1);
                let fit = params.fit(&sparse).unwrap();
                let mut learner = params.check().unwrap().online(30, None).unwrap();
                for i in 0..sparse.n_samples() {
                    learner
                        .observe_row(sparse.row_view(i), sparse.labels()[i])
                        .unwrap();
                }
                assert_eq!(learner.mistakes(), fit.mistakes, "seed {seed}");
                assert_eq!(learner.w(), fit.w);
                assert_eq!(learner.b().to_bits(), fit.b.to_bits());
            }
        }
    }
    let mut learner = PerceptronParams::new()
        .check()
        .unwrap()
        .online(5, None)
        .unwrap();
    let bad = [
        RowView::Sparse {
            indices: &[3, 1],
            values: &[1.0, 1.0],
        },
        RowView::Sparse {
            indices: &[5],
            values: &[1.0],
        },
        RowView::Sparse {
            indices: &[0],
            values: &[f64::NAN],
        },
        RowView::Sparse {
            indices: &[0, 1],
            values: &[1.0],
        },
    ];
    for row in bad {
        assert!(learner.observe_row(row, 1.0).unwrap_err().is_input());
    }
    assert_eq!(learner.seen(), 0, "a refused example is not seen");
}

/// Sparse data in many dimensions have many support rows; the first working set comes from coordinate
/// descent, so the exact solve starts with most of them and the rounds only repair it.
#[test]
fn many_support_rows_are_found_in_few_rounds() {
    let data = support_four(800, 8000, 12, 0.01, 11);
    for bias in [Bias::Free, Bias::ThroughOrigin] {
        let result = margin::max_margin(&data, bias).unwrap();
        let MarginResult::Separable {
            bracket: (lower, upper),
            support,
            stats,
            ..
        } = &result
        else {
            panic!("{bias:?}: {result:?}");
        };
        assert!(upper - lower <= 1e-9 * upper, "{bias:?}: {result:?}");
        assert!(
            support.len() >= 100,
            "{bias:?}: {} support rows",
            support.len()
        );
        assert!(stats.rounds <= 3, "{bias:?}: {stats:?}");
        // Grown from a guess by doubling, the working set would pass twice the support.
        assert!(
            stats.working_set <= 2 * support.len(),
            "{bias:?}: {stats:?}"
        );
    }
}

/// A sparse working set has a memory budget: past it the answer is an honest `Inaccurate` whose
/// bracket still holds the certified γ* and whose reason names the budget; a budget that fits certifies
/// the same γ* as the default.
#[test]
fn a_working_set_beyond_its_memory_budget_is_inaccurate_and_says_why() {
    let data = support_four(800, 8000, 12, 0.01, 11);
    let certified = margin::max_margin(&data, Bias::Free).unwrap();
    let MarginResult::Separable { bracket, stats, .. } = &certified else {
        panic!("{certified:?}");
    };
    // More than a hundred rows of rank in the hundreds: far more than 1 KiB (128 values).
    let small = margin::MaxMarginParams::new(Bias::Free)
        .working_set_memory(1 << 10)
        .check()
        .unwrap()
        .solve(&data)
        .unwrap();
    let (lower, upper) = common::inaccurate_because(&small, "working_set_memory");
    assert!(lower <= bracket.0 && bracket.1 <= upper, "{small:?}");
    // The default solve's needs fit in 3·|W|² values: its points (|W| × rank, rank ≤ |W|) and the
    // factorisation of at most |W| active rows (|W| × (rank + |W|)).
    let fits = 3 * stats.working_set * stats.working_set * 8;
    let same = margin::MaxMarginParams::new(Bias::Free)
        .working_set_memory(fits)
        .check()
        .unwrap()
        .solve(&data)
        .unwrap();
    assert_eq!(same.bracket(), certified.bracket());
    assert!(same.is_separable());
    assert!(
        margin::MaxMarginParams::new(Bias::Free)
            .working_set_memory(1023)
            .check()
            .is_err()
    );
    // The geometry's four solves take the same budget, and a verdict stands on their brackets.
    let limits = margin::MaxMarginParams::new(Bias::ThroughOrigin).working_set_memory(1 << 10);
    let geometry = Geometry::compute_with(&data, &limits).unwrap();
    let free = geometry.free_bias.result().unwrap();
    assert_eq!(
        common::inaccurate_because(free, "working_set_memory"),
        small.bracket().unwrap()
    );
    let augmented = geometry.augmented(0.5).unwrap();
    common::inaccurate_because(augmented.result().unwrap(), "working_set_memory");
    let verdict = verify_with(&geometry, &PerceptronParams::new().max_epochs(3)).unwrap();
    assert_eq!(verdict.geometry.margins.free_bias.status, "inaccurate");
    let default = Geometry::compute(&data).unwrap();
    assert_eq!(
        default.free_bias.result().unwrap().bracket(),
        certified.bracket()
    );
    assert!(Geometry::compute_with(&data, &limits.working_set_mebibytes(u64::MAX)).is_err());
}

/// Features on scales 10⁻³ to 10³ (so `γ*/R` near 10⁻⁶), a few dozen rows in a few columns: stored
/// sparse, the answer is certified as it is stored dense. Held in their span (coordinates from the
/// rows' Gram matrix, whose rounding moves `γ*²` by about `u·R²`), 43 % of such sets ended
/// `Inaccurate` with a bracket up to 10⁻⁴ wide; in few columns the rows are now read in place.
#[test]
fn badly_scaled_sparse_data_in_few_columns_are_certified_as_dense_ones_are() {
    let mut stream = rng::from_seed(31);
    for trial in 0..60 {
        let (n, d) = (stream.random_range(10..90), stream.random_range(2..20));
        let scales: Vec<f64> = (0..d)
            .map(|_| 10f64.powf(stream.random_range(-3.0..3.0)))
            .collect();
        let u: Vec<f64> = (0..d).map(|_| stream.random_range(-1.0..1.0)).collect();
        let offset = stream.random_range(-0.3..0.3);
        let mut x = Array2::zeros((n, d));
        let mut y = Array1::zeros(n);
        for i in 0..n {
            let mut s = offset;
            for j in 0..d {
                let v: f64 = stream.random_range(-2.0..2.0);
                s += u[j] * v;
                x[[i, j]] = v * scales[j];
            }
            y[i] = if s >= 0.0 { 1.0 } else { -1.0 };
        }
        if y.iter().all(|&v| v == y[0]) {
            continue;
        }
        let dense = Dataset::new(x, y).unwrap();
        let sparse = dense.to_sparse();
        let a = margin::max_margin(&dense, Bias::Free).unwrap();
        let b = margin::max_margin(&sparse, Bias::Free).unwrap();
        let (
            MarginResult::Separable {
                bracket: (al, au), ..
            },
            MarginResult::Separable {
                bracket: (bl, bu), ..
            },
        ) = (&a, &b)
        else {
            panic!("trial {trial} ({n} × {d}): dense {a:?}, sparse {b:?}");
        };
        assert!(al <= bu && bl <= au, "trial {trial}: {a:?} {b:?}");
    }
}
