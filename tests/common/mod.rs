//! Helpers shared by the integration tests (each test crate uses a subset).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ndarray::array;
use novikoff::Dataset;

/// Run the real binary with `args`.
pub fn novikoff(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_novikoff"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The path of a bundled data file.
pub fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name)
        .display()
        .to_string()
}

/// Write a file into a temporary folder.
pub fn write(dir: &tempfile::TempDir, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// A separable sparse set (2000 × 20 000, 12 values a row) whose margin solves need a working set of
/// more than 1 MiB: written by `novikoff generate sparse` as `sparse.npz` in `dir`.
pub fn sparse_beyond_one_mebibyte(dir: &tempfile::TempDir) -> String {
    let file = dir.path().join("sparse.npz").display().to_string();
    let generated = novikoff(&[
        "generate", "sparse", "--n", "2000", "--d", "20000", "--nnz", "12", "--margin", "0.01",
        "--seed", "3", "--out", &file,
    ]);
    assert_eq!(generated.status.code(), Some(0), "{generated:?}");
    file
}

/// A successful run's stdout.
pub fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// A successful run's stdout, parsed as one JSON object.
pub fn json(output: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(output)).expect("stdout is one JSON object")
}

/// The worked example of seed 004, written out here independently of `novikoff::textbook`.
pub fn seed004() -> Dataset {
    let x = array![
        [-1.0, 2.0],
        [1.0, 0.0],
        [1.0, 1.0],
        [-1.0, 0.0],
        [-1.0, -2.0],
        [1.0, -1.0]
    ];
    Dataset::new(x, array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0]).unwrap()
}

/// The rigorous bracket of an `Inaccurate` result whose reason mentions `why`; panics on any other
/// outcome.
pub fn inaccurate_because(result: &novikoff::margin::MarginResult, why: &str) -> (f64, f64) {
    let novikoff::margin::MarginResult::Inaccurate {
        bracket, reason, ..
    } = result
    else {
        panic!("expected an inaccurate result ({why}): {result:?}");
    };
    assert!(reason.contains(why), "{reason}");
    *bracket
}

/// Each edit of a model file's `text` is refused by `predict` and `score` on `data` with exit code
/// 2, the edited file named with a line, and the message `says`; nothing on stdout, no panic.
pub fn edited_models_are_refused(
    dir: &tempfile::TempDir,
    text: &str,
    data: &str,
    edits: &[(String, &str)],
) {
    for (edited, says) in edits {
        assert_ne!(edited, text, "{says}: the edit must change the file");
        let path = write(dir, "edited.json", edited);
        for command in ["predict", "score"] {
            let output = novikoff(&[command, path.to_str().unwrap(), data]);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{command} {says}: {stderr}");
            assert!(stderr.contains("edited.json:"), "{stderr}");
            assert!(stderr.contains(says), "{stderr} (should say {says})");
            assert!(!stderr.contains("panicked"), "{stderr}");
            assert!(output.stdout.is_empty(), "{command} {says}");
        }
    }
}

/// `novikoff generate multiclass`: `n` rows in `d` dimensions of four classes at a multi-class margin
/// of 0.01, which the runs of a few epochs do not separate, written to `name` in `dir`.
pub fn four_classes(dir: &tempfile::TempDir, name: &str, n: usize, d: usize, seed: &str) -> String {
    let file = dir.path().join(name).display().to_string();
    let (n, d) = (n.to_string(), d.to_string());
    let output = novikoff(&[
        "generate",
        "multiclass",
        "--n",
        &n,
        "--d",
        &d,
        "--classes",
        "4",
        "--margin",
        "0.01",
        "--seed",
        seed,
        "--out",
        &file,
    ]);
    assert!(output.status.success(), "{output:?}");
    file
}
