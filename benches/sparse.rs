//! Sparse (CSR) data at the size of the LIBSVM benchmark sets: one clean epoch against the plainest CSR
//! loop, and the LIBSVM parser into CSR.
//!
//! * `epoch_clean/fit`, `fit_sequential`: `PerceptronParams::new().initial(u, 0).max_epochs(1)` on a
//!   `sparse` generated set, in the Fast (4 lanes) and Sequential orders, where `u` separates the data,
//!   so the epoch makes no mistake: the pass every run ends with.
//! * `epoch_clean/fit_shuffled`: `fit` over the rows in a seeded shuffled order (`Order::Shuffle`), each
//!   row's start, entries and, past 2¹⁸ columns, weights asked for a few rows ahead
//!   (`simd::sparse_ahead`).
//! * `epoch_clean/csr_gather`: the floor: a loop that reads every row's indices and values, gathers
//!   `w[j]`, sums, and tests the sign; nothing else (what a C loop over a CSR matrix does). It gathers
//!   from a written copy of the weights, as `fit` does (see the comment at the copy).
//! * `multiclass/fit`, `fit_shuffled`: two epochs of the multi-class perceptron (Kesler's construction,
//!   `MulticlassPerceptronParams::new().max_epochs(2)`) on the rcv1-shaped rows with 20 classes, each
//!   row labelled by the highest of 20 seeded random weight vectors, cyclic and shuffled. The weights
//!   are stored column by column while training (`multiclass::class_weights`), so that an entry
//!   gathers its 20 weights from one place.
//! * `libsvm_sparse/parse`: `read_libsvm_from` with `Storage::Sparse` on the same data written as
//!   LIBSVM text (full-precision values, about 20 characters a value), in bytes of text per second.
//!
//! Shapes: rcv1 (20 242 × 47 236, 74 values a row) and news20 (19 996 × 1 355 191, 450 values a row).
//!
//! `cargo bench --bench sparse -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

mod common;

use common::Clock;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use novikoff::Dataset;
use novikoff::generate::{Family, SparseParams};
use novikoff::io::{ReadOptions, Storage};
use novikoff::multiclass::{MulticlassDataset, MulticlassPerceptronParams};
use novikoff::perceptron::{Order, PerceptronParams};

/// `(name, n, d, nnz per row)`.
const SHAPES: [(&str, usize, usize, usize); 2] = [
    ("rcv1", 20_242, 47_236, 74),
    ("news20", 19_996, 1_355_191, 450),
];

/// Classes of the multi-class bench.
const CLASSES: usize = 20;

/// `data`'s rows labelled by the highest of [`CLASSES`] seeded random weight vectors: separable
/// through the origin, with most rows near another class.
fn with_classes(data: &Dataset) -> MulticlassDataset {
    let mut stream = novikoff::rng::from_seed(7);
    let d = data.n_features();
    let w: Vec<f64> = (0..CLASSES * d)
        .map(|_| novikoff::rng::unit_f64(&mut stream) - 0.5)
        .collect();
    let labels = (0..data.n_samples())
        .map(|i| {
            let x = data.row_view(i);
            (0..CLASSES)
                .map(|r| x.dot(&w[r * d..(r + 1) * d], novikoff::simd::Summation::Fast))
                .enumerate()
                .fold((0, f64::NEG_INFINITY), |best, (r, s)| {
                    if s > best.1 { (r, s) } else { best }
                })
                .0
        })
        .collect();
    let classes = (0..CLASSES).map(|r| r.to_string()).collect();
    MulticlassDataset::from_features(data.clone(), classes, labels).expect("classes")
}

/// The floor: every stored entry read, `w` gathered, the sign tested; returns the rows on the wrong
/// side (0 on separable data with w = u), so that nothing is optimised away.
fn csr_gather(data: &Dataset, w: &[f64]) -> usize {
    let x = data.csr().expect("sparse");
    let indptr = x.indptr();
    let indptr = indptr.to_proper();
    let (indices, values, labels) = (x.indices(), x.data(), data.labels());
    let mut wrong = 0;
    for i in 0..labels.len() {
        let mut s = 0.0;
        for k in indptr[i]..indptr[i + 1] {
            s += w[indices[k] as usize] * values[k];
        }
        wrong += usize::from(labels[i] * s <= 0.0);
    }
    wrong
}

fn sparse(c: &mut Criterion<Clock>) {
    for (name, n, d, nnz) in SHAPES {
        let generated = SparseParams::new(n, d)
            .nnz(nnz)
            .support(16)
            .margin(0.01)
            .seed(1)
            .check()
            .and_then(|p| p.generate())
            .expect("generate");
        let data = generated.data;
        let u = generated.u.expect("the family returns u");
        let clean = PerceptronParams::new()
            .initial(u.clone(), 0.0)
            .max_epochs(1)
            .check()
            .expect("params");
        let sequential = PerceptronParams::new()
            .initial(u.clone(), 0.0)
            .max_epochs(1)
            .summation(novikoff::simd::Summation::Sequential)
            .check()
            .expect("params");
        let shuffled = PerceptronParams::new()
            .initial(u.clone(), 0.0)
            .max_epochs(1)
            .order(Order::Shuffle { seed: 1 })
            .check()
            .expect("params");
        for params in [&clean, &shuffled] {
            let fit = params.fit(&data).expect("fit");
            assert!(fit.converged && fit.mistakes == 0, "u separates the data");
        }
        // The floor gathers from a written copy of u, in memory advised for huge pages, as `fit`'s own
        // weights are: u itself is mostly untouched zero pages, which all map to one physical page and
        // make every gather a cache hit.
        let mut w = Vec::with_capacity(d);
        novikoff::simd::advise_huge_pages(&mut w);
        w.extend(u.iter().copied());
        let w = w.as_slice();
        assert_eq!(csr_gather(&data, w), 0);

        let shape = format!("{name}:{n}x{d}:{nnz}");
        // A stored value is 12 bytes: the value and its 32-bit column index.
        let stored_bytes = (data.nnz() * 12 + (n + 1) * 8) as u64;
        let mut group = c.benchmark_group("epoch_clean");
        group.sample_size(20);
        group.throughput(Throughput::Bytes(stored_bytes));
        group.bench_function(BenchmarkId::new("fit", &shape), |b| {
            b.iter(|| clean.fit(black_box(&data)).expect("fit").mistakes)
        });
        group.bench_function(BenchmarkId::new("fit_sequential", &shape), |b| {
            b.iter(|| sequential.fit(black_box(&data)).expect("fit").mistakes)
        });
        group.bench_function(BenchmarkId::new("fit_shuffled", &shape), |b| {
            b.iter(|| shuffled.fit(black_box(&data)).expect("fit").mistakes)
        });
        group.bench_function(BenchmarkId::new("csr_gather", &shape), |b| {
            b.iter(|| csr_gather(black_box(&data), black_box(w)))
        });
        group.finish();

        if name == "rcv1" {
            let labelled = with_classes(&data);
            let mut group = c.benchmark_group("multiclass");
            group.sample_size(10);
            for (id, order) in [
                ("fit", Order::Cyclic),
                ("fit_shuffled", Order::Shuffle { seed: 1 }),
            ] {
                let params = MulticlassPerceptronParams::new()
                    .max_epochs(2)
                    .order(order)
                    .check()
                    .expect("params");
                let shape = format!("{shape}:k{CLASSES}");
                group.bench_function(BenchmarkId::new(id, &shape), |b| {
                    b.iter(|| params.fit(black_box(&labelled)).expect("fit").mistakes)
                });
            }
            group.finish();
        }

        let mut text = Vec::new();
        novikoff::io::write_libsvm_to(&mut text, &data).expect("write");
        let options = ReadOptions::default().storage(Storage::Sparse);
        let mut group = c.benchmark_group("libsvm_sparse");
        group.sample_size(10);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(BenchmarkId::new("parse", &shape), |b| {
            b.iter(|| {
                novikoff::io::read_libsvm_from(black_box(&text), "b.svm".as_ref(), &options)
                    .expect("parse")
                    .nnz()
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = sparse
}
criterion_main!(benches);
