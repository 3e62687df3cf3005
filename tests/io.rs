//! Reading and writing datasets: exact round trips, every bad input of issue 5 (library message and CLI
//! exit code), a fuzz-style property test, LIBSVM against CSV, and the peak memory of loading.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::Command;

use ndarray::{Array1, Array2};
use novikoff::io::{self, ReadOptions};
use novikoff::{Dataset, Error};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------------
// Helpers

fn write(dir: &tempfile::TempDir, name: &str, contents: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

fn novikoff(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_novikoff"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A `.npy` file with any descriptor, shape and raw data.
fn npy_bytes(descr: &str, fortran: bool, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let shape_text = match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let dict = format!(
        "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape_text}, }}",
        if fortran { "True" } else { "False" }
    );
    let total = (10 + dict.len() + 1).div_ceil(64) * 64;
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&((total - 10) as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out.extend_from_slice(data);
    out
}

fn f64_bytes(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A `.npz` archive written through the crate's writer, then with an array replaced by raw bytes.
fn npz_with(x: &[u8], y: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut cursor = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut cursor);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        zip.start_file("x.npy", options).unwrap();
        zip.write_all(x).unwrap();
        zip.start_file("y.npy", options).unwrap();
        zip.write_all(y).unwrap();
        zip.finish().unwrap();
    }
    cursor.into_inner()
}

fn example() -> Dataset {
    Dataset::new(
        ndarray::array![[1.0, 2.5], [-0.5, 0.0], [3.0, -4.0]],
        ndarray::array![1.0, -1.0, 1.0],
    )
    .unwrap()
}

fn bytes_of(format: &str, data: &Dataset) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("d.{format}"));
    io::save(&path, data).unwrap();
    std::fs::read(&path).unwrap()
}

/// The library refuses the file with `expected` in the message (and the file's name), and the CLI
/// (`novikoff convert FILE out.csv`) exits with code 2, prints the same message, and does not panic.
fn refused(name: &str, contents: &[u8], options: &ReadOptions, cli: &[&str], expected: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, name, contents);
    let err = io::open(&path, options).expect_err("the file must be refused");
    let message = err.to_string();
    assert!(
        message.contains(expected),
        "{name}: expected `{expected}` in `{message}`"
    );
    assert!(
        message.contains(name),
        "{name}: the message names the file: {message}"
    );
    assert!(err.is_input(), "{name}: an input error");
    cli_refuses(&path, cli, expected);
}

fn cli_refuses(path: &Path, cli: &[&str], expected: &str) {
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("out.csv");
    let mut args = vec!["convert", path.to_str().unwrap(), out.to_str().unwrap()];
    args.extend_from_slice(cli);
    let output = novikoff(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{path:?}: {stderr}");
    assert!(
        stderr.contains(expected),
        "expected `{expected}` in: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(!out.exists(), "nothing is written on failure");
}

fn defaults() -> ReadOptions {
    ReadOptions::default()
}

fn assert_same_bits(a: &Dataset, b: &Dataset) {
    assert_eq!(a.x().dim(), b.x().dim());
    let bits =
        |d: &Dataset| -> Vec<u64> { d.as_flat_slice().iter().map(|v| v.to_bits()).collect() };
    assert_eq!(bits(a), bits(b));
    assert_eq!(a.labels(), b.labels());
}

// ---------------------------------------------------------------------------------------------------
// Round trips

/// Values that are hard to round trip: signed zeros, subnormals, extremes, and random bit patterns.
fn awkward(n: usize, d: usize, seed: u64) -> Dataset {
    let mut state = seed;
    let specials = [
        -0.0,
        0.0,
        5e-324,
        -2.2250738585072014e-308,
        f64::MAX,
        f64::MIN,
        1e-300,
        0.1,
        1.0 / 3.0,
        1e16,
        123456789012345680.0,
    ];
    let x = Array2::from_shape_fn((n, d), |(i, j)| {
        state = novikoff::rng::splitmix64(state);
        if (i + j) % 3 == 0 {
            specials[(state % specials.len() as u64) as usize]
        } else {
            let v = f64::from_bits(state);
            if v.is_finite() {
                v
            } else {
                (state >> 11) as f64 * 1e-10
            }
        }
    });
    let y = Array1::from_shape_fn(n, |i| if i % 2 == 0 { 1.0 } else { -1.0 });
    Dataset::new(x, y).unwrap()
}

#[test]
fn every_format_round_trips_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    for (n, d, seed) in [(50, 7, 1), (3, 1, 2), (200, 3, 3)] {
        let data = awkward(n, d, seed);
        for ext in ["csv", "tsv", "txt", "svm", "libsvm", "npy", "npz"] {
            let path = dir.path().join(format!("rt{seed}.{ext}"));
            io::save(&path, &data).unwrap();
            let back = io::open(&path, &defaults()).unwrap_or_else(|e| panic!("{ext}: {e}"));
            assert_same_bits(&data, &back);
        }
    }
}

#[test]
fn generated_data_round_trips_through_every_format_and_the_per_format_functions() {
    let data = novikoff::generate::separable(300, 6, 0.05, 3.0, 9)
        .unwrap()
        .data;
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    io::write_csv(&p("a.csv"), &data).unwrap();
    io::write_libsvm(&p("a.svm"), &data).unwrap();
    io::write_npy(&p("a.npy"), &data).unwrap();
    io::write_npz(&p("a.npz"), &data).unwrap();
    assert_same_bits(&data, &io::read_csv(&p("a.csv"), &defaults()).unwrap());
    assert_same_bits(&data, &io::read_libsvm(&p("a.svm"), &defaults()).unwrap());
    assert_same_bits(&data, &io::read_npy(&p("a.npy"), &defaults()).unwrap());
    assert_same_bits(&data, &io::read_npz(&p("a.npz"), &defaults()).unwrap());
}

#[test]
fn libsvm_keeps_an_unused_last_feature_and_negative_zero() {
    let data = Dataset::new(
        ndarray::array![[0.0, -0.0, 0.0], [1.0, 0.0, 0.0]],
        ndarray::array![1.0, -1.0],
    )
    .unwrap();
    let text = bytes_of("svm", &data);
    assert_eq!(text, b"+1 2:-0 3:0\n-1 1:1\n");
    let back = io::read_libsvm_from(&text, "m.svm".as_ref(), &defaults()).unwrap();
    assert_same_bits(&data, &back);
}

#[test]
fn csv_without_header_with_another_delimiter_and_quotes() {
    let text = b"\"1.5\";2;\"0\"\n 3 ;4;1\r\n\n";
    let options = defaults().header(false).delimiter(b';');
    let data = io::read_csv_from(text, "m.csv".as_ref(), &options).unwrap();
    assert_eq!(data.x(), ndarray::array![[1.5, 2.0], [3.0, 4.0]]);
    assert_eq!(data.labels(), &[-1.0, 1.0]);
    // The label column by number, without a header.
    let options = defaults().header(false).label(io::LabelColumn::Index(0));
    let data = io::read_csv_from(b"1,5,6\n0,7,8\n", "m.csv".as_ref(), &options).unwrap();
    assert_eq!(data.x(), ndarray::array![[5.0, 6.0], [7.0, 8.0]]);
    // Tab-separated by extension.
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "t.tsv", b"a\tb\ty\n1\t2\t1\n3\t4\t-1\n");
    assert_eq!(io::open(&path, &defaults()).unwrap().n_features(), 2);
}

#[test]
fn npy_in_fortran_order_and_in_other_dtypes_converts_exactly() {
    // The 2 × 3 matrix [[1, 2, 1], [3, 4, 0]] (label last) in column-major order.
    let fortran = npy_bytes(
        "<f8",
        true,
        &[2, 3],
        &f64_bytes(&[1.0, 3.0, 2.0, 4.0, 1.0, 0.0]),
    );
    let data = io::read_npy_from(&fortran, "f.npy".as_ref(), &defaults()).unwrap();
    assert_eq!(data.x(), ndarray::array![[1.0, 2.0], [3.0, 4.0]]);
    assert_eq!(data.labels(), &[1.0, -1.0]);

    let int32: Vec<u8> = [1i32, -7, 1, 5, 9, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let data = io::read_npy_from(
        &npy_bytes("<i4", false, &[2, 3], &int32),
        "i.npy".as_ref(),
        &defaults(),
    )
    .unwrap();
    assert_eq!(data.x(), ndarray::array![[1.0, -7.0], [5.0, 9.0]]);

    let float32: Vec<u8> = [0.1f32, 2.5, 1.0, -3.25, 1e-30, -1.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let data = io::read_npy_from(
        &npy_bytes("<f4", false, &[2, 3], &float32),
        "f.npy".as_ref(),
        &defaults(),
    )
    .unwrap();
    // Exactly the float32 values, widened: 0.1f32 is not 0.1.
    assert_eq!(data.x()[[0, 0]], f64::from(0.1f32));
    assert_eq!(data.x()[[1, 1]], f64::from(1e-30f32));

    let big_endian: Vec<u8> = [2.0f64, 1.0, 4.0, -1.0]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    let data = io::read_npy_from(
        &npy_bytes(">f8", false, &[2, 2], &big_endian),
        "b.npy".as_ref(),
        &defaults(),
    )
    .unwrap();
    assert_eq!(data.x(), ndarray::array![[2.0], [4.0]]);

    let uint8 = npy_bytes("|u1", false, &[2, 2], &[7, 1, 9, 0]);
    assert_eq!(
        io::read_npy_from(&uint8, "u.npy".as_ref(), &defaults())
            .unwrap()
            .x(),
        ndarray::array![[7.0], [9.0]]
    );
}

#[test]
fn npz_accepts_integer_labels_and_a_column_of_labels() {
    let x = npy_bytes("<f8", false, &[2, 1], &f64_bytes(&[0.5, 1.5]));
    let y: Vec<u8> = [0i64, 1].iter().flat_map(|v| v.to_le_bytes()).collect();
    let archive = npz_with(&x, &npy_bytes("<i8", false, &[2, 1], &y));
    let data = io::read_npz_from(&archive, "a.npz".as_ref(), &defaults()).unwrap();
    assert_eq!(data.labels(), &[-1.0, 1.0]);
    let positive = defaults().positive(Some("0".into()));
    let data = io::read_npz_from(&archive, "a.npz".as_ref(), &positive).unwrap();
    assert_eq!(data.labels(), &[1.0, -1.0]);
}

// ---------------------------------------------------------------------------------------------------
// LIBSVM against CSV

#[test]
fn a_libsvm_file_and_the_equivalent_csv_load_to_equal_datasets() {
    let svm = b"# a comment line\n+1 1:0.5 3:-2 # trailing comment\n\n-1 2:1e-3\t4:7\n+1 qid:3 1:1 4:0.25\n";
    let csv = b"f1,f2,f3,f4,label\n0.5,0,-2,0,+1\n0,0.001,0,7,-1\n1,0,0,0.25,1\n";
    let from_svm = io::read_libsvm_from(svm, "a.svm".as_ref(), &defaults()).unwrap();
    let from_csv = io::read_csv_from(csv, "a.csv".as_ref(), &defaults()).unwrap();
    assert_eq!(from_svm, from_csv);
    assert_same_bits(&from_svm, &from_csv);
    // The same through files and `open`, and with 0/1 labels.
    let dir = tempfile::tempdir().unwrap();
    let a = write(&dir, "b.svm", b"1 2:3\n0 1:4\n");
    let b = write(&dir, "b.csv", b"x1,x2,y\n0,3,1\n4,0,0\n");
    assert_eq!(
        io::open(&a, &defaults()).unwrap(),
        io::open(&b, &defaults()).unwrap()
    );
    // --features widens the LIBSVM matrix.
    let wide = io::open(&a, &defaults().n_features(5)).unwrap();
    assert_eq!(
        wide.x(),
        ndarray::array![[0.0, 3.0, 0.0, 0.0, 0.0], [4.0, 0.0, 0.0, 0.0, 0.0]]
    );
}

// ---------------------------------------------------------------------------------------------------
// Bad input: one test each, the message checked, and through the CLI exit code 2 and no panic.

#[test]
fn ragged_row_too_short() {
    refused(
        "short.csv",
        b"a,b,y\n1,2,1\n3,-1\n",
        &defaults(),
        &[],
        "short.csv:3: ragged row: 2 fields where the header has 3",
    );
}

#[test]
fn ragged_row_too_long() {
    refused(
        "long.csv",
        b"a,y\n1,1\n2,3,-1\n",
        &defaults(),
        &[],
        "long.csv:3: ragged row: 3 fields where the header has 2",
    );
}

#[test]
fn ragged_row_without_header() {
    refused(
        "nohead.csv",
        b"1,2,1\n3,-1\n",
        &defaults().header(false),
        &["--no-header"],
        "nohead.csv:2: ragged row: 2 fields where the first row has 3",
    );
}

#[test]
fn non_numeric_cell_csv() {
    refused(
        "text.csv",
        b"a,b,y\n1,x7,1\n3,4,-1\n",
        &defaults(),
        &[],
        "text.csv:2:2: `x7` is not a number (column `b`)",
    );
}

#[test]
fn empty_cell_csv() {
    refused(
        "blank.csv",
        b"a,b,y\n1,,1\n3,4,-1\n",
        &defaults(),
        &[],
        "blank.csv:2:2: empty field where a number is expected (column `b`)",
    );
}

#[test]
fn non_numeric_value_libsvm() {
    refused(
        "text.svm",
        b"1 1:abc\n-1 1:2\n",
        &defaults(),
        &[],
        "text.svm:1:5: `abc` is not a number (feature 1)",
    );
}

#[test]
fn a_token_that_is_not_a_pair_libsvm() {
    refused(
        "pair.svm",
        b"1 1:2 7\n-1 1:2\n",
        &defaults(),
        &[],
        "pair.svm:1:7: `7` is not an index:value pair",
    );
}

#[test]
fn nan_csv() {
    refused(
        "nan.csv",
        b"a,b,y\n1,2,1\n3,NaN,-1\n",
        &defaults(),
        &[],
        "nan.csv:3:2: value `NaN` is not finite (column `b`)",
    );
}

#[test]
fn inf_csv() {
    refused(
        "inf.csv",
        b"a,b,y\n1,-inf,1\n3,4,-1\n",
        &defaults(),
        &[],
        "inf.csv:2:2: value `-inf` is not finite",
    );
}

#[test]
fn inf_libsvm() {
    refused(
        "inf.svm",
        b"1 1:1 2:inf\n-1 1:2\n",
        &defaults(),
        &[],
        "inf.svm:1:9: value `inf` is not finite (feature 2)",
    );
}

#[test]
fn nan_npy() {
    let bytes = npy_bytes(
        "<f8",
        false,
        &[2, 2],
        &f64_bytes(&[1.0, 1.0, f64::NAN, -1.0]),
    );
    refused(
        "nan.npy",
        &bytes,
        &defaults(),
        &[],
        "nan.npy: entry [1, 0]: value NaN is not finite",
    );
}

#[test]
fn inf_npz() {
    let x = npy_bytes("<f8", false, &[2, 1], &f64_bytes(&[1.0, f64::INFINITY]));
    let y = npy_bytes("<f8", false, &[2], &f64_bytes(&[1.0, -1.0]));
    refused(
        "inf.npz",
        &npz_with(&x, &y),
        &defaults(),
        &[],
        "inf.npz: array `x`: entry [1, 0]: value inf is not finite",
    );
}

#[test]
fn labels_outside_the_mapping_csv_third_class() {
    refused(
        "three.csv",
        b"a,y\n1,1\n2,-1\n3,2\n",
        &defaults(),
        &[],
        "three.csv:4:2: a third class `2` (after 1 and -1)",
    );
}

#[test]
fn labels_outside_the_mapping_csv_two_other_values() {
    refused(
        "twovals.csv",
        b"a,y\n1,2\n3,4\n",
        &defaults(),
        &[],
        "twovals.csv:3: labels 2 and 4 are neither ±1 nor 0/1",
    );
}

#[test]
fn labels_outside_the_mapping_text_label() {
    refused(
        "word.csv",
        b"a,y\n1,cat\n3,dog\n",
        &defaults(),
        &[],
        "word.csv:2:2: label `cat` is not a number; name the positive class with --positive VALUE",
    );
}

#[test]
fn labels_outside_the_mapping_libsvm() {
    refused(
        "three.svm",
        b"1 1:1\n-1 1:2\n3 1:3\n",
        &defaults(),
        &[],
        "three.svm:3:1: a third class `3`",
    );
}

#[test]
fn labels_outside_the_mapping_npy() {
    let bytes = npy_bytes("<f8", false, &[2, 2], &f64_bytes(&[1.0, 0.5, 2.0, 3.0]));
    refused(
        "labels.npy",
        &bytes,
        &defaults(),
        &[],
        "labels 0.5 and 3 are neither ±1 nor 0/1 (first at row 1)",
    );
}

#[test]
fn a_single_class_of_unknown_sign_is_refused() {
    refused(
        "single.svm",
        b"3 1:1\n3 1:2\n",
        &defaults(),
        &[],
        "single.svm:1: every label is 3: a single class must be +1, -1 or 0",
    );
}

#[test]
fn libsvm_index_zero() {
    refused(
        "zero.svm",
        b"1 0:1\n-1 1:2\n",
        &defaults(),
        &[],
        "zero.svm:1:3: feature index 0: LIBSVM indices start at 1",
    );
}

#[test]
fn libsvm_index_zero_after_others() {
    refused(
        "zero2.svm",
        b"1 1:2 0:3\n-1 1:2\n",
        &defaults(),
        &[],
        "zero2.svm:1:7: feature index 0: LIBSVM indices start at 1",
    );
}

#[test]
fn libsvm_repeated_index() {
    refused(
        "repeat.svm",
        b"1 2:1 2:3\n-1 1:2\n",
        &defaults(),
        &[],
        "repeat.svm:1:7: feature index 2 after 2: indices must increase",
    );
}

#[test]
fn libsvm_decreasing_index() {
    refused(
        "down.svm",
        b"-1 1:2\n1 3:1 1:2\n",
        &defaults(),
        &[],
        "down.svm:2:7: feature index 1 after 3: indices must increase",
    );
}

#[test]
fn libsvm_index_beyond_features() {
    refused(
        "wide.svm",
        b"1 1:1 5:2\n-1 1:2\n",
        &defaults().n_features(3),
        &["--features", "3"],
        "wide.svm:1:7: feature index 5 exceeds --features 3",
    );
}

#[test]
fn libsvm_absurd_index_needs_features_to_be_confirmed() {
    refused(
        "huge.svm",
        b"1 1:1 4000000000:2\n-1 1:2\n",
        &defaults(),
        &[],
        "pass --features 4000000000",
    );
}

#[test]
fn truncated_npy_data() {
    let mut bytes = npy_bytes(
        "<f8",
        false,
        &[3, 2],
        &f64_bytes(&[1.0, 1.0, 2.0, -1.0, 3.0, 1.0]),
    );
    bytes.truncate(bytes.len() - 5);
    refused(
        "cut.npy",
        &bytes,
        &defaults(),
        &[],
        "cut.npy: truncated: the header promises 6 values (48 bytes) but only 43 bytes follow it",
    );
}

#[test]
fn truncated_npy_header() {
    let bytes = npy_bytes("<f8", false, &[3, 2], &[]);
    refused(
        "cuthead.npy",
        &bytes[..40],
        &defaults(),
        &[],
        "cuthead.npy: truncated or corrupt: the header claims 118 bytes",
    );
}

#[test]
fn truncated_npz() {
    let bytes = bytes_of("npz", &example());
    refused(
        "cut.npz",
        &bytes[..bytes.len() / 2],
        &defaults(),
        &[],
        "cut.npz: not a valid .npz (zip) archive",
    );
}

#[test]
fn wrong_dtype_complex_is_refused() {
    let bytes = npy_bytes("<c16", false, &[1, 2], &[0u8; 32]);
    refused(
        "complex.npy",
        &bytes,
        &defaults(),
        &[],
        "dtype '<c16' is not a real number type novikoff reads",
    );
}

#[test]
fn wrong_dtype_float16_is_refused() {
    let bytes = npy_bytes("<f2", false, &[1, 2], &[0u8; 4]);
    refused(
        "half.npy",
        &bytes,
        &defaults(),
        &[],
        "dtype float16 ('<f2') is not read; convert it with arr.astype(np.float64)",
    );
}

#[test]
fn wrong_dtype_int64_beyond_two_to_the_53_is_refused() {
    let data: Vec<u8> = [(1i64 << 53) + 1, 1]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let bytes = npy_bytes("<i8", false, &[1, 2], &data);
    refused(
        "big.npy",
        &bytes,
        &defaults(),
        &[],
        "the int64 value 9007199254740993 is not exactly representable",
    );
}

#[test]
fn wrong_dtype_string_labels_in_npz_are_refused() {
    let x = npy_bytes("<f8", false, &[2, 1], &f64_bytes(&[1.0, 2.0]));
    let y = npy_bytes("<U3", false, &[2], &[0u8; 24]);
    refused(
        "strings.npz",
        &npz_with(&x, &y),
        &defaults(),
        &[],
        "array `y`: dtype '<U3' is not a real number type",
    );
}

#[test]
fn wrong_shape_npy() {
    let bytes = npy_bytes("<f8", false, &[4], &f64_bytes(&[1.0, 2.0, 3.0, 4.0]));
    refused(
        "flat.npy",
        &bytes,
        &defaults(),
        &[],
        "flat.npy: the array has shape [4]; a .npy dataset is 2-D",
    );
}

#[test]
fn npz_without_y() {
    use std::io::Write;
    let mut cursor = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut cursor);
        zip.start_file("x.npy", zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(&npy_bytes("<f8", false, &[1, 1], &f64_bytes(&[1.0])))
            .unwrap();
        zip.finish().unwrap();
    }
    refused(
        "noy.npz",
        &cursor.into_inner(),
        &defaults(),
        &[],
        "noy.npz: no array `y` in the archive (it has: x.npy)",
    );
}

#[test]
fn npz_with_mismatched_lengths() {
    let x = npy_bytes("<f8", false, &[2, 1], &f64_bytes(&[1.0, 2.0]));
    let y = npy_bytes("<f8", false, &[3], &f64_bytes(&[1.0, -1.0, 1.0]));
    refused(
        "mismatch.npz",
        &npz_with(&x, &y),
        &defaults(),
        &[],
        "arrays `x` and `y` disagree: x has 2 rows, y has 3 labels",
    );
}

#[test]
fn empty_file_csv() {
    refused(
        "empty.csv",
        b"",
        &defaults(),
        &[],
        "empty.csv: the file is empty: no header and no data",
    );
}

#[test]
fn empty_file_libsvm() {
    refused(
        "empty.svm",
        b"\n\n",
        &defaults(),
        &[],
        "empty.svm: the file is empty: no data lines",
    );
}

#[test]
fn empty_file_npy() {
    refused(
        "empty.npy",
        b"",
        &defaults(),
        &[],
        "empty.npy: truncated: too short for a .npy header",
    );
}

#[test]
fn empty_file_npz() {
    refused(
        "empty.npz",
        b"",
        &defaults(),
        &[],
        "empty.npz: not a valid .npz (zip) archive",
    );
}

#[test]
fn header_only_csv() {
    refused(
        "header.csv",
        b"a,b,y\n",
        &defaults(),
        &[],
        "header.csv: no data rows: the file holds only a header",
    );
}

#[test]
fn comments_only_libsvm() {
    refused(
        "comments.svm",
        b"# features: 3\n# nothing else\n",
        &defaults(),
        &[],
        "comments.svm: the file is empty: no data lines (only blank lines or comments",
    );
}

#[test]
fn header_only_npy() {
    let bytes = npy_bytes("<f8", false, &[0, 3], &[]);
    refused(
        "rows0.npy",
        &bytes,
        &defaults(),
        &[],
        "rows0.npy: no examples: the array has 0 rows",
    );
}

#[test]
fn missing_file() {
    for name in ["nope.csv", "nope.svm", "nope.npy", "nope.npz"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        let err = io::open(&path, &defaults()).unwrap_err();
        assert!(
            matches!(&err, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
        );
        assert!(err.to_string().contains(name));
        assert_eq!(err.exit_code(), 2);
        cli_refuses(&path, &[], name);
    }
}

#[test]
fn directory_given_as_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder.csv");
    std::fs::create_dir(&folder).unwrap();
    let err = io::open(&folder, &defaults()).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("folder.csv: is a directory, not a data file"),
        "{err}"
    );
    cli_refuses(&folder, &[], "is a directory");
    // Also through the per-format readers.
    for read in [io::read_csv, io::read_libsvm, io::read_npy, io::read_npz] {
        assert!(
            read(&folder, &defaults())
                .unwrap_err()
                .to_string()
                .contains("is a directory")
        );
    }
}

#[test]
fn unknown_extension() {
    refused(
        "data.xlsx",
        b"a,y\n1,1\n",
        &defaults(),
        &[],
        "unknown file extension `.xlsx`",
    );
}

#[test]
fn non_utf8_field_csv() {
    refused(
        "utf8.csv",
        b"a,y\n1,1\n\xff,-1\n",
        &defaults(),
        &[],
        "utf8.csv:3:1: the field is not valid UTF-8",
    );
}

#[test]
fn non_utf8_header_csv() {
    refused(
        "head8.csv",
        b"a,\xfe\xff\n1,1\n2,-1\n",
        &defaults(),
        &[],
        "head8.csv:1:2: the header is not valid UTF-8",
    );
}

#[test]
fn non_utf8_label_libsvm() {
    refused(
        "label8.svm",
        b"\xc3\x28 1:1\n-1 1:2\n",
        &defaults(),
        &[],
        "label8.svm:1:1: the label is not valid UTF-8",
    );
}

#[test]
fn non_utf8_value_libsvm() {
    refused(
        "value8.svm",
        b"1 1:\xff\n-1 1:2\n",
        &defaults(),
        &[],
        "value8.svm:1:5: the value is not valid UTF-8",
    );
}

#[test]
fn non_utf8_in_a_libsvm_comment_is_fine() {
    let data =
        io::read_libsvm_from(b"1 1:1 # caf\xe9\n-1 1:2\n", "c.svm".as_ref(), &defaults()).unwrap();
    assert_eq!(data.n_samples(), 2);
}

#[test]
fn unclosed_quote_csv() {
    refused(
        "quote.csv",
        b"a,y\n\"1,1\n2,-1\n",
        &defaults(),
        &[],
        "quote.csv:2:1: a quoted field is not closed on its line",
    );
}

#[test]
fn a_delimiter_that_cannot_separate_fields_is_refused() {
    for delimiter in [0xffu8, b'"', b'\n'] {
        let err = io::read_csv_from(
            b"a,y\n1,1\n",
            "d.csv".as_ref(),
            &defaults().delimiter(delimiter),
        )
        .unwrap_err();
        assert!(err.to_string().contains("cannot separate fields"), "{err}");
    }
}

#[test]
fn features_check_on_csv() {
    refused(
        "feat.csv",
        b"a,b,y\n1,2,1\n3,4,-1\n",
        &defaults().n_features(3),
        &["--features", "3"],
        "the file has 2 feature columns but --features says 3",
    );
}

// ---------------------------------------------------------------------------------------------------
// Messages that stay readable, and line ends of every kind (issue 18, item 14).

#[test]
fn a_huge_value_is_echoed_cut_to_a_bounded_length() {
    let mut csv = b"a,y\n".to_vec();
    csv.extend(std::iter::repeat_n(b'7', 5 << 20));
    csv.extend_from_slice(b"x,1\n");
    let err = io::read_csv_from(&csv, "big.csv".as_ref(), &defaults()).unwrap_err();
    let message = err.to_string();
    assert!(message.len() < 300, "{} bytes", message.len());
    assert!(
        message.starts_with(&format!(
            "big.csv:2:1: `{}…` (5242881 bytes) is not a number",
            "7".repeat(60)
        )),
        "{message}"
    );
    let mut svm = b"1 1:".to_vec();
    svm.extend(std::iter::repeat_n(b'z', 5 << 20));
    let err = io::read_libsvm_from(&svm, "big.svm".as_ref(), &defaults()).unwrap_err();
    assert!(
        err.to_string().len() < 300,
        "{} bytes",
        err.to_string().len()
    );
    assert!(
        err.to_string()
            .contains("…` (5242880 bytes) is not a number (feature 1)"),
        "{err}"
    );
}

#[test]
fn control_bytes_and_nul_are_escaped_in_messages() {
    let cases: [(&str, &[u8], &str); 4] = [
        (
            "n.csv",
            b"a,y\n1\x002,1\n",
            "n.csv:2:1: `1\\02` is not a number (column `a`)",
        ),
        (
            "c.csv",
            b"a,y\n\x01\x1b[31m,1\n",
            "c.csv:2:1: `\\x01\\x1b[31m` is not a number (column `a`)",
        ),
        (
            "n.svm",
            b"1 1:2\x00\n",
            "n.svm:1:5: `2\\0` is not a number (feature 1)",
        ),
        (
            "p.svm",
            b"1 \x00\x00\n",
            "p.svm:1:3: `\\0\\0` is not an index:value pair",
        ),
    ];
    for (name, bytes, expected) in cases {
        let options = defaults();
        let err =
            io::open(write(&tempfile::tempdir().unwrap(), name, bytes), &options).unwrap_err();
        let message = err.to_string();
        assert!(message.ends_with(expected), "{message}");
        assert!(!message.bytes().any(|b| b < 0x20), "{message:?}");
    }
    // Through the CLI as well.
    let dir = tempfile::tempdir().unwrap();
    cli_refuses(
        &write(&dir, "n.csv", b"a,y\n1\x002,1\n"),
        &[],
        "`1\\02` is not a number",
    );
}

#[test]
fn a_huge_label_with_nul_bytes_is_echoed_escaped_and_cut() {
    let label = vec![0u8; 5 << 20];
    let mut csv = b"a,y\n1,1\n2,-1\n3,".to_vec();
    csv.extend_from_slice(&label);
    let mut svm = b"1 1:1\n-1 1:2\n".to_vec();
    svm.extend_from_slice(&label);
    svm.extend_from_slice(b" 1:3\n");
    for (name, bytes) in [("l.csv", csv), ("l.svm", svm)] {
        let dir = tempfile::tempdir().unwrap();
        let err = io::open(write(&dir, name, &bytes), &defaults()).unwrap_err();
        let message = err.to_string();
        assert!(message.len() < 400, "{name}: {} bytes", message.len());
        assert!(!message.bytes().any(|b| b < 0x20), "{name}: {message:?}");
        assert!(
            message.contains(&format!("`{}…` (5242880 bytes)", "\\0".repeat(60))),
            "{name}: {message}"
        );
    }
}

#[test]
fn carriage_return_line_ends_are_read_as_lines() {
    let expected =
        io::read_csv_from(b"a,b,y\n1,2,1\n3,4,0\n", "d.csv".as_ref(), &defaults()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "mac.csv", b"a,b,y\r1,2,1\r3,4,0\r");
    assert_eq!(io::open(&path, &defaults()).unwrap(), expected);
    let svm = write(&dir, "mac.svm", b"+1 1:1 2:2\r-1 1:3 2:4");
    assert_eq!(io::open(&svm, &defaults()).unwrap().n_samples(), 2);
    // Errors name the line as counted by carriage returns.
    let bad = write(&dir, "bad.csv", b"a,b,y\r1,2,1\r3,x,0\r");
    let err = io::open(&bad, &defaults()).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("bad.csv:3:2: `x` is not a number (column `b`)"),
        "{err}"
    );
}

#[test]
fn streams_read_like_files_and_memory() {
    let data = awkward(300, 7, 9);
    for (format, read_stream, read_from) in [
        (
            "csv",
            io::read_csv_stream
                as fn(&mut dyn std::io::Read, &Path, &ReadOptions) -> novikoff::Result<Dataset>,
            io::read_csv_from as fn(&[u8], &Path, &ReadOptions) -> novikoff::Result<Dataset>,
        ),
        ("svm", io::read_libsvm_stream, io::read_libsvm_from),
    ] {
        let bytes = bytes_of(format, &data);
        let mut stream: &[u8] = &bytes;
        let streamed = read_stream(&mut stream, "s".as_ref(), &defaults()).unwrap();
        assert_same_bits(&streamed, &data);
        assert_same_bits(
            &read_from(&bytes, "s".as_ref(), &defaults()).unwrap(),
            &data,
        );
        // The same first error, at the same place.
        let mut broken = bytes.clone();
        let at = broken.len() * 2 / 3;
        let at = at
            + broken[at..]
                .iter()
                .position(|b| b.is_ascii_digit())
                .unwrap();
        broken[at] = b'q';
        let mut stream: &[u8] = &broken;
        let from_stream = read_stream(&mut stream, "s".as_ref(), &defaults()).unwrap_err();
        let from_memory = read_from(&broken, "s".as_ref(), &defaults()).unwrap_err();
        assert_eq!(from_stream.to_string(), from_memory.to_string());
    }
    // The LIBSVM dimension from a stream: the largest index, or --features, with the same checks.
    let mut stream: &[u8] = b"1 2:1\n0 1:1 5:2\n";
    let data = io::read_libsvm_stream(&mut stream, "s".as_ref(), &defaults()).unwrap();
    assert_eq!(data.n_features(), 5);
    let mut stream: &[u8] = b"1 2:1\n0 1:1 5:2\n";
    let err =
        io::read_libsvm_stream(&mut stream, "s".as_ref(), &defaults().n_features(4)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "s:2:7: feature index 5 exceeds --features 4"
    );
    let mut stream: &[u8] = b"1 1:1 2000000000:1\n";
    let err = io::read_libsvm_stream(&mut stream, "s".as_ref(), &defaults()).unwrap_err();
    assert!(
        err.to_string().contains("pass --features 2000000000"),
        "{err}"
    );
    // Beyond the 32-bit column index no --features helps: the index itself is refused, where it is.
    let mut stream: &[u8] = b"1 1:1 900000000000:1\n";
    let err = io::read_libsvm_stream(&mut stream, "s".as_ref(), &defaults()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "s:1:7: feature index 900000000000 is beyond the 2147483647 columns a dataset may have \
         (32-bit column indices, as scipy's)"
    );
}

// ---------------------------------------------------------------------------------------------------
// Fuzz: random bytes and random mutations of valid files never panic any reader.

fn read_all(bytes: &[u8], options: &ReadOptions) {
    // Ok or Err are both fine; a panic fails the test.
    let _ = io::read_csv_from(bytes, "f.csv".as_ref(), options);
    let _ = io::read_libsvm_from(bytes, "f.svm".as_ref(), options);
    let _ = io::read_npy_from(bytes, "f.npy".as_ref(), options);
    let _ = io::read_npz_from(bytes, "f.npz".as_ref(), options);
    // A stream (read once) accepts exactly what memory (read twice) accepts, with the same result.
    let mut stream = bytes;
    let streamed = io::read_csv_stream(&mut stream, "f.csv".as_ref(), options);
    let direct = io::read_csv_from(bytes, "f.csv".as_ref(), options);
    assert_eq!(streamed.as_ref().ok(), direct.as_ref().ok());
    let mut stream = bytes;
    let streamed = io::read_libsvm_stream(&mut stream, "f.svm".as_ref(), options);
    let direct = io::read_libsvm_from(bytes, "f.svm".as_ref(), options);
    assert_eq!(streamed.as_ref().ok(), direct.as_ref().ok());
}

/// A LIBSVM line's first token is its label even when it holds a colon: `3:,4,1` is a label (`-1`
/// under `--positive 1`), never the pair that would make the dimension 3, whether the file is read
/// twice (from memory) or once (a stream). Found by `mutated_valid_files_never_panic`.
#[test]
fn a_colon_in_a_label_is_not_a_feature_index() {
    let bytes = b"1 1:0.5\n3:,4,1\n";
    let options = defaults().positive(Some("1".into()));
    let direct = io::read_libsvm_from(bytes, "f.svm".as_ref(), &options).unwrap();
    let mut stream: &[u8] = bytes;
    let streamed = io::read_libsvm_stream(&mut stream, "f.svm".as_ref(), &options).unwrap();
    assert_eq!(direct, streamed);
    assert_eq!(direct.n_features(), 1);
    assert_eq!(direct.y().to_vec(), vec![1.0, -1.0]);
}

fn option_sets() -> Vec<ReadOptions> {
    vec![
        defaults(),
        defaults().header(false),
        defaults().positive(Some("1".into())),
        defaults().label(io::LabelColumn::Index(0)).delimiter(b';'),
        defaults().n_features(3),
    ]
}

fn valid_files() -> Vec<Vec<u8>> {
    let data = awkward(6, 3, 4);
    let mut files: Vec<Vec<u8>> = ["csv", "svm", "npy", "npz"]
        .iter()
        .map(|f| bytes_of(f, &data))
        .collect();
    files.push(b"a,\"b,c\",y\n1,\"2\",0\n3,4,1\n".to_vec());
    files.push(b"+1 qid:2 1:0.5 # c\n-1 2:1\n".to_vec());
    files
}

#[derive(Debug, Clone)]
enum Mutation {
    Set(usize, u8),
    Insert(usize, u8),
    Remove(usize),
    Truncate(usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Set(i, b)),
        (
            any::<usize>(),
            prop::sample::select(b"0123456789:,.-e\n# \"\t\xff".to_vec())
        )
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
        any::<usize>().prop_map(Mutation::Remove),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 1usize..64).prop_map(|(i, len)| Mutation::Duplicate(i, len)),
    ]
}

fn apply(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        if bytes.is_empty() {
            break;
        }
        let at = |i: usize| i % bytes.len();
        match *m {
            Mutation::Set(i, b) => {
                let i = at(i);
                bytes[i] = b;
            }
            Mutation::Insert(i, b) => {
                let i = at(i);
                bytes.insert(i, b);
            }
            Mutation::Remove(i) => {
                let i = at(i);
                bytes.remove(i);
            }
            Mutation::Truncate(i) => {
                let i = at(i);
                bytes.truncate(i);
            }
            Mutation::Duplicate(i, len) => {
                let i = at(i);
                let end = (i + len).min(bytes.len());
                let chunk = bytes[i..end].to_vec();
                bytes.splice(i..i, chunk);
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600), k in 0usize..5) {
        read_all(&bytes, &option_sets()[k]);
        // Random bytes behind a valid magic string reach the header parsers.
        let mut npy = b"\x93NUMPY\x01\x00".to_vec();
        npy.extend_from_slice(&bytes);
        read_all(&npy, &option_sets()[k]);
    }

    #[test]
    fn mutated_valid_files_never_panic(
        which in 0usize..6,
        mutations in prop::collection::vec(mutation(), 1..6),
        k in 0usize..5,
    ) {
        let file = valid_files().swap_remove(which);
        read_all(&apply(file, &mutations), &option_sets()[k]);
    }
}

// ---------------------------------------------------------------------------------------------------
// Peak memory while loading: at most 1.5 × the final dataset.

/// Counts the bytes allocated by the current thread, so that tests running in parallel do not disturb
/// each other's measurement.
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
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as isize);
        unsafe { System.alloc_zeroed(layout) }
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

/// Peak bytes allocated by this thread while `f` runs, above what was live before.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let value = f();
    let peak = PEAK.with(Cell::get) - base;
    (value, peak.max(0) as usize)
}

#[test]
fn a_reports_json_is_written_without_a_copy_of_its_vectors() {
    use novikoff::bounds::{Geometry, ReportOptions, report};
    use novikoff::generate::Family;
    // d = 200 000: the report holds a dozen vectors of d numbers (the four separators, the run's
    // weights, the comparators the bounds chose), 1.6 MB each.
    let d = 200_000;
    let data = novikoff::generate::SparseParams::new(300, d)
        .nnz(10)
        .margin(0.02)
        .seed(4)
        .check()
        .unwrap()
        .generate()
        .unwrap()
        .data;
    let geometry = Geometry::compute(&data).unwrap();
    let rules = [novikoff::perceptron::PerceptronParams::new()];
    let report = report(&geometry, &rules, &ReportOptions::default()).unwrap();
    let view = report.json_view("s.svm", &data);
    let mut counted = 0usize;
    let mut out = std::io::BufWriter::new(CountingSink(&mut counted));
    let (written, peak) = peak_during(|| serde_json::to_writer(&mut out, &view));
    written.unwrap();
    drop(out);
    // The text holds every vector; the writer holds none of them (a tree of values took 32 bytes a
    // number, 75 MB here).
    assert!(counted > 12 * d, "{counted} bytes of JSON");
    assert!(peak < d, "peak {peak} bytes while writing {counted}");
}

/// A writer that only counts the bytes.
struct CountingSink<'a>(&'a mut usize);

impl std::io::Write for CountingSink<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        *self.0 += bytes.len();
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn loading_peaks_below_one_and_a_half_times_the_final_dataset() {
    let (n, d) = (20_000, 25);
    let data = novikoff::generate::separable(n, d, 0.02, 1.0, 5)
        .unwrap()
        .data;
    let dir = tempfile::tempdir().unwrap();
    let final_bytes = (n * d + n) * std::mem::size_of::<f64>();
    for name in ["m.csv", "m.svm", "m.npy", "m.npz"] {
        let path = dir.path().join(name);
        io::save(&path, &data).unwrap();
        let (loaded, peak) = peak_during(|| io::open(&path, &defaults()).unwrap());
        assert_eq!(loaded, data);
        let ratio = peak as f64 / final_bytes as f64;
        eprintln!("{name}: peak {peak} bytes = {ratio:.3} × the final dataset");
        assert!(
            ratio <= 1.5,
            "{name}: peak {peak} bytes = {ratio:.3} × the final {final_bytes}"
        );
        drop(loaded);
    }
}

#[test]
fn sparse_loading_peaks_below_one_and_two_tenths_of_the_final_csr() {
    let (n, d, nnz) = (20_000, 200_000, 20);
    let data = novikoff::generate::SparseParams::new(n, d)
        .nnz(nnz)
        .margin(0.02)
        .seed(9);
    let data = {
        use novikoff::generate::Family;
        data.check().unwrap().generate().unwrap().data
    };
    // What the dataset holds: values (8 bytes) and 32-bit column indices, the row pointers, the labels.
    let final_bytes = n * nnz * 12 + (n + 1) * 8 + n * 8;
    let dir = tempfile::tempdir().unwrap();
    let options = defaults().storage(io::Storage::Sparse);
    for name in ["s.svm", "s.npz"] {
        let path = dir.path().join(name);
        io::save(&path, &data).unwrap();
        let (loaded, peak) = peak_during(|| io::open(&path, &options).unwrap());
        assert!(loaded.is_sparse());
        assert_eq!(loaded, data);
        let ratio = peak as f64 / final_bytes as f64;
        eprintln!("{name}: peak {peak} bytes = {ratio:.3} × the final CSR");
        assert!(
            ratio <= 1.2,
            "{name}: peak {peak} bytes = {ratio:.3} × the final {final_bytes}"
        );
    }
}

/// An n × 3 `.npy` body (two features, then the label) spanning several of the reader's 256 KiB blocks.
fn many_rows(n: usize, label: impl Fn(usize) -> f64) -> Vec<f64> {
    (0..n)
        .flat_map(|i| [i as f64, -(i as f64) * 0.5, label(i)])
        .collect()
}

#[test]
fn npy_across_many_blocks_keeps_every_value_and_maps_zero_one_labels() {
    let n = 40_000; // 960 KB of data: four blocks of rows
    let values = many_rows(n, |i| match i % 3 {
        0 => 1.0,
        1 => 0.0,
        _ => -0.0, // the same class as 0
    });
    let bytes = npy_bytes("<f8", false, &[n, 3], &f64_bytes(&values));
    let data = io::read_npy_from(&bytes, "m.npy".as_ref(), &defaults()).unwrap();
    assert_eq!(data.n_samples(), n);
    for i in [0, 1, 2, 10_922, 21_845, n - 1] {
        assert_eq!(data.x()[[i, 0]].to_bits(), (i as f64).to_bits());
        assert_eq!(data.x()[[i, 1]].to_bits(), (-(i as f64) * 0.5).to_bits());
        let expected = if i % 3 == 0 { 1.0 } else { -1.0 };
        assert_eq!(
            data.labels()[i].to_bits(),
            f64::to_bits(expected),
            "row {i}"
        );
    }
}

#[test]
fn npy_faults_late_in_a_large_file_are_located_exactly() {
    let n = 40_000;
    let mut values = many_rows(n, |i| if i % 2 == 0 { 1.0 } else { -1.0 });
    values[3 * 33_333 + 1] = f64::NEG_INFINITY;
    let bytes = npy_bytes("<f8", false, &[n, 3], &f64_bytes(&values));
    let err = io::read_npy_from(&bytes, "big.npy".as_ref(), &defaults()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "big.npy: entry [33333, 1]: value -inf is not finite"
    );

    let mut values = many_rows(n, |i| if i % 2 == 0 { 1.0 } else { -1.0 });
    values[3 * 30_001 + 2] = 7.0;
    let bytes = npy_bytes("<f8", false, &[n, 3], &f64_bytes(&values));
    let err = io::read_npy_from(&bytes, "big.npy".as_ref(), &defaults()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("big.npy: entry [30001, 2] (the label column): a third class `7`"),
        "{err}"
    );
}
