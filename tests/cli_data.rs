//! `novikoff generate` and `novikoff convert` through the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use novikoff::io::{self, ReadOptions};

fn novikoff(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_novikoff"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON object")
}

fn path(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn generate_separable_reports_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let out = path(&dir, "s.csv");
    let report = json(&novikoff(&[
        "generate",
        "separable",
        "--n",
        "300",
        "--d",
        "4",
        "--margin",
        "0.15",
        "--radius",
        "2",
        "--offset",
        "-0.25",
        "--seed",
        "11",
        "--out",
        s(&out),
        "--format",
        "json",
    ]));
    assert_eq!(report["family"], "separable");
    assert_eq!(report["n"], 300);
    assert_eq!(report["d"], 4);
    assert_eq!(report["margin"], 0.15);
    assert_eq!(report["radius"], 2.0);
    assert_eq!(report["b"], -0.25);
    assert_eq!(report["seed"], 11);
    assert_eq!(report["file_format"], "csv");
    assert_eq!(report["params"]["family"], "separable");
    let u: Vec<f64> = serde_json::from_value(report["u"].clone()).unwrap();
    assert_eq!(u.len(), 4);
    assert!(report["margin_of_u"].as_f64().unwrap() >= 0.15);
    assert!(report["radius_measured"].as_f64().unwrap() <= 2.0);
    // The file holds what was reported, and the reported u separates it with margin ≥ γ.
    let data = io::open(&out, &ReadOptions::default()).unwrap();
    assert_eq!((data.n_samples(), data.n_features()), (300, 4));
    for i in 0..300 {
        let activation: f64 = data.row(i).iter().zip(&u).map(|(x, u)| x * u).sum::<f64>() - 0.25;
        assert!(data.labels()[i] * activation >= 0.15);
    }
    // The table form names the same things.
    let table = novikoff(&[
        "generate",
        "separable",
        "--n",
        "30",
        "--d",
        "2",
        "--seed",
        "1",
        "--out",
        s(&path(&dir, "t.npz")),
    ]);
    let text = String::from_utf8(table.stdout).unwrap();
    for key in [
        "prescribed margin γ",
        "prescribed radius R",
        "u ",
        "n × d",
        "30 × 2",
    ] {
        assert!(text.contains(key), "{key} in {text}");
    }
}

#[test]
fn the_seed_fixes_the_output_file_in_every_format_and_family() {
    let dir = tempfile::tempdir().unwrap();
    let families: Vec<Vec<&str>> = vec![
        vec!["separable", "--n", "50", "--d", "3", "--margin", "0.1"],
        vec!["noisy", "--n", "50", "--d", "3", "--flip", "0.1"],
        vec!["blobs", "--n", "50", "--d", "3", "--distance", "3"],
        vec!["xor", "--n", "50", "--d", "3"],
        vec!["concentric", "--n", "50", "--d", "3"],
        vec!["anisotropic", "--n", "50", "--d", "3", "--ratio", "30"],
    ];
    for family in &families {
        for ext in ["csv", "svm", "npy", "npz"] {
            let run = |seed: &str, name: &str| {
                let out = path(&dir, name);
                let mut args = vec!["generate"];
                args.extend(family.iter().copied());
                args.extend(["--seed", seed, "--out", s(&out)]);
                let output = novikoff(&args);
                assert!(
                    output.status.success(),
                    "{args:?}: {}",
                    String::from_utf8_lossy(&output.stderr)
                );
                std::fs::read(&out).unwrap()
            };
            let first = run("7", &format!("{}-a.{ext}", family[0]));
            let again = run("7", &format!("{}-b.{ext}", family[0]));
            let other = run("8", &format!("{}-c.{ext}", family[0]));
            assert_eq!(first, again, "{} {ext}: same seed, same bytes", family[0]);
            assert_ne!(
                first, other,
                "{} {ext}: another seed, other bytes",
                family[0]
            );
        }
    }
    // basis has no seed and is the identity matrix.
    let out = path(&dir, "basis.csv");
    let report = json(&novikoff(&[
        "generate",
        "basis",
        "--m",
        "3",
        "--out",
        s(&out),
        "--format",
        "json",
    ]));
    assert_eq!(report["margin"], 1.0 / 3f64.sqrt());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "x1,x2,x3,y\n1,0,0,1\n0,1,0,1\n0,0,1,1\n"
    );
}

#[test]
fn convert_chains_through_every_format_without_changing_a_bit() {
    let dir = tempfile::tempdir().unwrap();
    let start = path(&dir, "start.csv");
    let out = novikoff(&[
        "generate",
        "separable",
        "--n",
        "120",
        "--d",
        "5",
        "--seed",
        "3",
        "--out",
        s(&start),
    ]);
    assert!(out.status.success());
    let original = io::open(&start, &ReadOptions::default()).unwrap();
    let chain = ["a.svm", "b.npy", "c.npz", "d.tsv", "e.libsvm", "f.csv"];
    let mut previous = start.clone();
    for name in chain {
        let next = path(&dir, name);
        let report = json(&novikoff(&[
            "convert",
            s(&previous),
            s(&next),
            "--format",
            "json",
        ]));
        assert_eq!(report["n"], 120);
        assert_eq!(report["d"], 5);
        let data = io::open(&next, &ReadOptions::default()).unwrap();
        assert_eq!(data, original, "after {name}");
        previous = next;
    }
    assert_eq!(
        std::fs::read(&previous).unwrap(),
        std::fs::read(&start).unwrap()
    );
}

#[test]
fn convert_uses_the_label_options_for_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = path(&dir, "iris.txt");
    std::fs::write(&input, "setosa;1;2\nvirginica;-1;-2\nversicolor;-2;-1\n").unwrap();
    let out = path(&dir, "iris.svm");
    let report = json(&novikoff(&[
        "convert",
        s(&input),
        s(&out),
        "--no-header",
        "--delimiter",
        ";",
        "--label-col",
        "1",
        "--positive",
        "setosa",
        "--format",
        "json",
    ]));
    assert_eq!(report["positives"], 1);
    assert_eq!(report["negatives"], 2);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "+1 1:1 2:2\n-1 1:-1 2:-2\n-1 1:-2 2:-1\n"
    );
    // --features widens a LIBSVM input.
    let wide = path(&dir, "wide.csv");
    json(&novikoff(&[
        "convert",
        s(&out),
        s(&wide),
        "--features",
        "4",
        "--format",
        "json",
    ]));
    assert!(
        std::fs::read_to_string(&wide)
            .unwrap()
            .starts_with("x1,x2,x3,x4,y\n1,2,0,0,1\n")
    );
}

#[test]
fn bad_generator_parameters_exit_2_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = path(&dir, "x.csv");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "separable",
                "--n",
                "10",
                "--d",
                "2",
                "--margin",
                "0.7",
                "--offset",
                "0.4",
            ],
            "need margin + |offset| < radius",
        ),
        (
            vec!["separable", "--n", "1", "--d", "2"],
            "invalid parameter `n`",
        ),
        (
            vec!["separable", "--n", "10", "--d", "0"],
            "invalid parameter `d`",
        ),
        (
            vec!["separable", "--n", "10", "--d", "2", "--radius", "-1"],
            "invalid parameter `radius`",
        ),
        (
            vec!["noisy", "--n", "10", "--d", "2", "--flip", "0.6"],
            "invalid parameter `flip`",
        ),
        (vec!["xor", "--n", "3"], "invalid parameter `n`"),
        (
            vec!["concentric", "--n", "8", "--outer", "1.1"],
            "the bands overlap",
        ),
        (vec!["basis", "--m", "0"], "invalid parameter `m`"),
        (
            vec!["anisotropic", "--n", "8", "--d", "2", "--ratio", "0.1"],
            "invalid parameter `ratio`",
        ),
        (vec!["separable", "--n", "10"], "--d"),
        (vec!["spiral", "--n", "10"], "spiral"),
    ];
    for (family, expected) in cases {
        let mut args = vec!["generate"];
        args.extend(family.iter().copied());
        args.extend(["--out", s(&out)]);
        let output = novikoff(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(expected),
            "{args:?}: expected `{expected}` in {stderr}"
        );
        assert!(!stderr.contains("panicked"));
        assert!(!out.exists(), "{args:?}: nothing written");
    }
    // An unknown output extension is refused before anything is generated.
    let output = novikoff(&[
        "generate",
        "separable",
        "--n",
        "10",
        "--d",
        "2",
        "--out",
        s(&path(&dir, "x.parquet")),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown file extension `.parquet`"));
}

#[test]
fn a_failed_conversion_keeps_the_previous_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = path(&dir, "keep.csv");
    std::fs::write(&out, "precious\n").unwrap();
    let bad = path(&dir, "bad.svm");
    std::fs::write(&bad, "1 0:1\n").unwrap();
    let output = novikoff(&["convert", s(&bad), s(&out)]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious\n");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 2, "no temporary file left behind");
}

#[test]
fn train_reads_every_format() {
    let dir = tempfile::tempdir().unwrap();
    for ext in ["csv", "svm", "npy", "npz"] {
        let data = path(&dir, &format!("t.{ext}"));
        let out = novikoff(&[
            "generate",
            "separable",
            "--n",
            "100",
            "--d",
            "3",
            "--margin",
            "0.2",
            "--seed",
            "5",
            "--out",
            s(&data),
        ]);
        assert!(out.status.success());
        let report = json(&novikoff(&["train", s(&data), "--format", "json"]));
        assert_eq!(report["converged"], true, "{ext}");
        assert_eq!(report["n"], 100);
        // Block–Novikoff: mistakes ≤ (R/γ)² with R ≤ 1 and γ ≥ 0.2.
        assert!(
            report["mistakes"].as_u64().unwrap() <= 25,
            "{ext}: {report}"
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// Streams, endless inputs and compressed inputs (issue 18, items 8, 9 and 10).

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A generous bound for a run that reads at most a few tens of MB; a run that needs longer hangs.
const HANG: Duration = Duration::from_secs(60);

fn spawn(args: &[&str], stdin: Stdio) -> Child {
    Command::new(env!("CARGO_BIN_EXE_novikoff"))
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// Wait for `child` at most [`HANG`]; kill it and fail the test if it needs longer.
fn finish_in_time(mut child: Child, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > HANG {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{what}: still running after {HANG:?}, killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn small() -> novikoff::Dataset {
    novikoff::generate::separable(50, 3, 0.1, 1.0, 3)
        .unwrap()
        .data
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// The bytes `save` writes for `data` under `name`.
fn saved(name: &str, data: &novikoff::Dataset) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let file = path(&dir, name);
    io::save(&file, data).unwrap();
    std::fs::read(&file).unwrap()
}

#[test]
fn a_named_pipe_is_read_once_in_every_text_format() {
    let data = small();
    for name in ["p.csv", "p.svm", "p.npy", "p.npz", "p.csv.gz"] {
        let dir = tempfile::tempdir().unwrap();
        let fifo = path(&dir, name);
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let contents = if name.ends_with(".gz") {
            gzip(&saved("p.csv", &data))
        } else {
            saved(name, &data)
        };
        let out = path(&dir, "out.csv");
        let child = spawn(&["convert", s(&fifo), s(&out)], Stdio::null());
        // The writer opens the pipe once, writes everything and closes it: a reader that opens the
        // pipe a second time waits forever for a second writer.
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let _ = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&fifo)
                    .and_then(|mut f| f.write_all(&contents));
            })
        };
        let output = finish_in_time(child, name);
        // Unblock the writer if the reader never opened the pipe (non-blocking: there may be no writer
        // left either).
        let _ = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo);
        writer.join().unwrap();
        assert!(output.status.success(), "{name}: {}", stderr(&output));
        assert_eq!(
            io::open(&out, &ReadOptions::default()).unwrap(),
            data,
            "{name}"
        );
    }
}

#[test]
fn standard_input_is_read_with_an_input_format() {
    let data = small();
    for (format, bytes) in [
        ("csv", saved("d.csv", &data)),
        ("tsv", saved("d.tsv", &data)),
        ("libsvm", saved("d.svm", &data)),
        ("npy", saved("d.npy", &data)),
        ("npz", saved("d.npz", &data)),
        ("svm", gzip(&saved("d.svm", &data))),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = path(&dir, "out.svm");
        let mut child = spawn(
            &["convert", "-", s(&out), "--input-format", format],
            Stdio::piped(),
        );
        let mut stdin = child.stdin.take().unwrap();
        let feeder = std::thread::spawn(move || stdin.write_all(&bytes));
        let output = finish_in_time(child, format);
        feeder.join().unwrap().unwrap();
        assert!(output.status.success(), "{format}: {}", stderr(&output));
        assert_eq!(
            io::open(&out, &ReadOptions::default()).unwrap(),
            data,
            "{format}"
        );
    }
}

#[test]
fn standard_input_without_an_input_format_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = path(&dir, "out.csv");
    let child = spawn(&["convert", "-", s(&out)], Stdio::piped());
    let output = finish_in_time(child, "stdin without a format");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--input-format"),
        "{}",
        stderr(&output)
    );
    assert!(!out.exists());
    // A name without an extension, as `<(zcat data.csv.gz)` gives: the message says what to add.
    let unnamed = path(&dir, "data");
    std::fs::write(&unnamed, saved("d.csv", &small())).unwrap();
    let output = novikoff(&["convert", s(&unnamed), s(&out)]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("or give --input-format"),
        "{}",
        stderr(&output)
    );
    let report = json(&novikoff(&[
        "convert",
        s(&unnamed),
        s(&out),
        "--input-format",
        "CSV",
        "--format",
        "json",
    ]));
    assert_eq!(report["from_format"], "csv");
    let output = novikoff(&["train", "x.csv", "--input-format", "xlsx"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("`xlsx` is not a format"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn an_endless_input_without_line_ends_ends_quickly_with_exit_2() {
    for name in ["zero.csv", "zero.svm", "zero.libsvm", "zero.tsv"] {
        let dir = tempfile::tempdir().unwrap();
        let link = path(&dir, name);
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let out = path(&dir, "out.csv");
        let child = spawn(&["convert", s(&link), s(&out)], Stdio::null());
        let output = finish_in_time(child, name);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{name}: {message}");
        assert!(
            message.contains(&format!(
                "{name}:1: the line starting at byte offset 0 is longer than 64 MiB"
            )),
            "{name}: {message}"
        );
        assert!(!message.contains("panicked"), "{message}");
        assert!(message.len() < 1000, "{name}: a short message");
    }
    // A huge regular file without line ends (sparse: 1 TiB of zeros, taking no disk space) is not read
    // to its end to count its lines first.
    for name in ["sparse.csv", "sparse.svm"] {
        let dir = tempfile::tempdir().unwrap();
        let file = path(&dir, name);
        std::fs::File::create(&file)
            .unwrap()
            .set_len(1 << 40)
            .unwrap();
        let child = spawn(
            &["convert", s(&file), s(&path(&dir, "o.csv"))],
            Stdio::null(),
        );
        let output = finish_in_time(child, name);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(
            stderr(&output).contains(&format!("{name}:1: the line starting at byte offset 0")),
            "{}",
            stderr(&output)
        );
    }
    // A binary stream given as .npy is refused at its first bytes.
    let dir = tempfile::tempdir().unwrap();
    let link = path(&dir, "zero.npy");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let child = spawn(
        &["convert", s(&link), s(&path(&dir, "o.csv"))],
        Stdio::null(),
    );
    let output = finish_in_time(child, "zero.npy");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("not a .npy array"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn gzipped_files_read_like_the_plain_ones_and_convert_writes_them() {
    let data = small();
    let dir = tempfile::tempdir().unwrap();
    for name in ["d.csv", "d.tsv", "d.svm", "d.npy", "d.npz"] {
        let plain = path(&dir, name);
        io::save(&plain, &data).unwrap();
        let zipped = path(&dir, &format!("{name}.gz"));
        std::fs::write(&zipped, gzip(&std::fs::read(&plain).unwrap())).unwrap();
        assert_eq!(
            io::open(&zipped, &ReadOptions::default()).unwrap(),
            data,
            "{name}"
        );
        let out = path(&dir, &format!("out-{name}"));
        let report = json(&novikoff(&[
            "convert",
            s(&zipped),
            s(&out),
            "--format",
            "json",
        ]));
        assert_eq!(report["n"], 50);
        assert_eq!(
            io::open(&out, &ReadOptions::default()).unwrap(),
            data,
            "{name}"
        );
    }
    // Written compressed, by name.
    for name in ["w.csv.gz", "w.tsv.gz", "w.svm.GZ", "w.npy.gz"] {
        let out = path(&dir, name);
        let plain = path(&dir, "d.csv");
        json(&novikoff(&[
            "convert",
            s(&plain),
            s(&out),
            "--format",
            "json",
        ]));
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(&bytes[..2], b"\x1f\x8b", "{name} is gzip");
        assert_eq!(
            io::open(&out, &ReadOptions::default()).unwrap(),
            data,
            "{name}"
        );
    }
    let output = novikoff(&[
        "convert",
        s(&path(&dir, "d.csv")),
        s(&path(&dir, "w.npz.gz")),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    // Gzip is recognised by its first bytes too, whatever the name.
    let disguised = path(&dir, "disguised.svm");
    std::fs::write(&disguised, gzip(&saved("d.svm", &data))).unwrap();
    assert_eq!(io::open(&disguised, &ReadOptions::default()).unwrap(), data);
}

#[test]
fn a_corrupt_or_truncated_gzip_file_exits_2() {
    let data = small();
    let dir = tempfile::tempdir().unwrap();
    let whole = gzip(&saved("d.csv", &data));
    let truncated = path(&dir, "t.csv.gz");
    std::fs::write(&truncated, &whole[..whole.len() / 2]).unwrap();
    let mut flipped = whole.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0xff;
    let corrupt = path(&dir, "c.csv.gz");
    std::fs::write(&corrupt, &flipped).unwrap();
    for file in [truncated, corrupt] {
        let out = path(&dir, "out.csv");
        let output = novikoff(&["convert", s(&file), s(&out)]);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{file:?}: {message}");
        assert!(message.contains(s(&file)), "{message}");
        assert!(!message.contains("panicked"), "{message}");
        assert!(!out.exists());
    }
}

/// zstd-compressed files read like the plain ones, by their magic bytes; a broken frame exits 2 naming
/// the file; `.zst` is not written (a plain file under that name would be a lie).
#[test]
fn zstd_files_read_like_the_plain_ones() {
    use ruzstd::encoding::{CompressionLevel, compress_to_vec};
    let data = small();
    let dir = tempfile::tempdir().unwrap();
    for name in ["d.csv", "d.tsv", "d.svm", "d.npy"] {
        let plain = path(&dir, name);
        io::save(&plain, &data).unwrap();
        let packed = compress_to_vec(
            &std::fs::read(&plain).unwrap()[..],
            CompressionLevel::Fastest,
        );
        assert_eq!(&packed[..4], b"\x28\xb5\x2f\xfd");
        let zst = path(&dir, &format!("{name}.zst"));
        std::fs::write(&zst, &packed).unwrap();
        assert_eq!(
            io::open(&zst, &ReadOptions::default()).unwrap(),
            data,
            "{name}"
        );
    }
    let broken = path(&dir, "broken.csv.zst");
    std::fs::write(&broken, b"\x28\xb5\x2f\xfd\xff\xff\xff\xff garbage").unwrap();
    let out = novikoff(&["train", s(&broken)]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("broken.csv.zst") && !stderr.contains("panicked"),
        "{stderr}"
    );
    let refused = io::save(path(&dir, "w.csv.zst"), &data).unwrap_err();
    assert!(refused.to_string().contains("not written"), "{refused}");
}

/// An endless stream of valid rows (`yes 1,1 | novikoff train -`) ends in exit 2 once it outgrows the
/// stream budget (half the machine's memory; a small one here), never in an out-of-memory kill.
#[test]
fn an_endless_stream_of_valid_rows_ends_at_the_budget() {
    use std::io::Write as _;
    for (format, row) in [
        ("csv", &b"1,1\n-1,-1\n"[..]),
        ("libsvm", &b"1 1:1\n-1 1:-1\n"[..]),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_novikoff"))
            .args(["train", "-", "--input-format", format])
            .env("NOVIKOFF_STREAM_BUDGET", "1000000")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let started = std::time::Instant::now();
        // Feed until the reader gives up (a broken pipe) or a bound that only a hang would reach.
        let block = row.repeat(4096);
        while started.elapsed() < std::time::Duration::from_secs(60) {
            if stdin.write_all(&block).is_err() {
                break;
            }
        }
        drop(stdin);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{format}: {stderr}");
        assert!(
            stderr.contains("<stdin>") && stderr.contains("NOVIKOFF_STREAM_BUDGET"),
            "{format}: {stderr}"
        );
    }
}
