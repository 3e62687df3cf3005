//! Loading throughput of every reader, in bytes of file per second.
//!
//! The data is a `separable` dataset written by the crate's own writers (full-precision decimals, the
//! worst case for a text parser: 17–20 characters per value). Run with short settings on a shared
//! machine: `cargo bench --bench io -- --warm-up-time 1 --measurement-time 3`.

use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use novikoff::generate::{Family, SeparableParams};
use novikoff::io::{self, ReadOptions};

fn readers(c: &mut Criterion) {
    let (n, d) = (50_000, 20);
    let data = SeparableParams::new(n, d)
        .margin(0.05)
        .seed(1)
        .check()
        .and_then(|p| p.generate())
        .expect("generate")
        .data;
    let dir = tempfile::tempdir().expect("tempdir");
    load_group(c, "load", &data, dir.path(), &["csv", "svm", "npy", "npz"]);

    // Parsing alone, from memory (no file system).
    let mut group = c.benchmark_group("parse_from_memory");
    group.sample_size(10);
    let mut csv = Vec::new();
    io::write_csv_to(&mut csv, &data).expect("csv");
    let mut svm = Vec::new();
    io::write_libsvm_to(&mut svm, &data).expect("svm");
    group.throughput(Throughput::Bytes(csv.len() as u64));
    group.bench_function(BenchmarkId::new("csv", format!("{n}x{d}")), |b| {
        b.iter(|| io::read_csv_from(&csv, "m.csv".as_ref(), &ReadOptions::default()).expect("csv"))
    });
    group.throughput(Throughput::Bytes(svm.len() as u64));
    group.bench_function(BenchmarkId::new("libsvm", format!("{n}x{d}")), |b| {
        b.iter(|| {
            io::read_libsvm_from(&svm, "m.svm".as_ref(), &ReadOptions::default()).expect("svm")
        })
    });
    group.finish();

    // NumPy beyond the last-level cache (32 MB here), where "memory speed" means something: an 88 MB
    // `.npy` (10⁶ × 10 plus the label column) against reading the same file into memory.
    let (n, d) = (1_000_000, 10);
    let data = SeparableParams::new(n, d)
        .margin(0.05)
        .seed(2)
        .check()
        .and_then(|p| p.generate())
        .expect("generate")
        .data;
    load_group(c, "load_large", &data, dir.path(), &["npy", "npz"]);
}

/// Save `data` in each format, load it back with `io::open`, and compare with the floor: reading the
/// `.npy` file's bytes into memory and nothing else. Throughput is bytes of file per second.
fn load_group(
    c: &mut Criterion,
    name: &str,
    data: &novikoff::Dataset,
    dir: &Path,
    extensions: &[&str],
) {
    let shape = format!("{}x{}", data.n_samples(), data.n_features());
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    let path_of = |extension: &str| dir.join(format!("{name}.{extension}"));
    for extension in extensions.iter().chain(&["npy"]) {
        if !path_of(extension).exists() {
            io::save(path_of(extension), data).expect("save");
        }
    }
    let bytes = |path: &Path| std::fs::metadata(path).expect("metadata").len();
    for extension in extensions {
        let path = path_of(extension);
        group.throughput(Throughput::Bytes(bytes(&path)));
        group.bench_function(BenchmarkId::new(*extension, &shape), |b| {
            b.iter(|| io::open(&path, &ReadOptions::default()).expect("load"))
        });
    }
    let npy = path_of("npy");
    group.throughput(Throughput::Bytes(bytes(&npy)));
    group.bench_function(BenchmarkId::new("fs_read_baseline", &shape), |b| {
        b.iter(|| std::fs::read(&npy).expect("read"))
    });
    group.finish();
}

criterion_group!(benches, readers);
criterion_main!(benches);
