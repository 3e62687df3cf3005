//! The matrices the crate builds itself (loaded, generated, transformed) are advised for transparent
//! huge pages before they are written: an epoch over them reads markedly faster (`benches/README.md`).
//! Linux only, and only where the kernel offers transparent huge pages; elsewhere there is nothing to
//! check.

#![cfg(target_os = "linux")]

use novikoff::Dataset;
use novikoff::generate::separable;
use novikoff::io::{read_csv, read_npy, write_csv, write_npy};

/// Whether this kernel hands out transparent huge pages to memory that asks for them.
fn huge_pages_offered() -> bool {
    std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .is_ok_and(|mode| mode.contains("[madvise]") || mode.contains("[always]"))
}

/// Whether the mapping holding the middle of `values` carries the `hg` (MADV_HUGEPAGE) flag.
fn advised(values: &[f64]) -> bool {
    let middle = values[values.len() / 2..].as_ptr() as usize;
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let mut inside = false;
    for line in smaps.lines() {
        if let Some((range, _)) = line.split_once(' ')
            && let Some((lo, hi)) = range.split_once('-')
            && let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
        {
            inside = lo <= middle && middle < hi;
        } else if inside && line.starts_with("VmFlags:") {
            return line.split_whitespace().any(|flag| flag == "hg");
        }
    }
    false
}

/// 50 000 × 20: 8 MB of features, four whole huge pages at least.
fn generated() -> Dataset {
    separable(50_000, 20, 0.1, 1.0, 5).unwrap().data
}

#[test]
fn generated_loaded_and_transformed_matrices_are_advised() {
    if !huge_pages_offered() {
        eprintln!("no transparent huge pages on this kernel: nothing to check");
        return;
    }
    let data = generated();
    assert!(advised(data.as_flat_slice()), "generate");

    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("m.npy");
    write_npy(&npy, &data).unwrap();
    let loaded = read_npy(&npy, &Default::default()).unwrap();
    assert_eq!(loaded, data);
    assert!(advised(loaded.as_flat_slice()), "read_npy");

    let csv = dir.path().join("m.csv");
    write_csv(&csv, &data).unwrap();
    let loaded = read_csv(&csv, &Default::default()).unwrap();
    assert!(advised(loaded.as_flat_slice()), "read_csv");

    assert!(advised(data.clone().as_flat_slice()), "clone");
    assert!(advised(data.augment(1.0).as_flat_slice()), "augment");
    assert!(
        advised(data.negate_negatives().as_flat_slice()),
        "negate_negatives"
    );
    assert!(
        advised(data.unit_normalize().unwrap().as_flat_slice()),
        "unit_normalize"
    );
}

#[test]
fn a_matrix_the_caller_builds_is_left_alone() {
    if !huge_pages_offered() {
        return;
    }
    // The check above would pass for any large buffer if the allocator advised on its own; this one
    // is built without advice, so `advised` must say no. 40 MB is above glibc's largest threshold for
    // serving an allocation from a heap (32 MB), so it is a fresh mapping, never memory that another
    // test advised and freed.
    let values = vec![1.0f64; 5 << 20];
    assert!(!advised(&values));
}
