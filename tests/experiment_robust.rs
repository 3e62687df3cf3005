//! Experiments that lose nothing: concurrent writers, shards started together in one folder, incomplete
//! merges, write failures in the middle of a run, torn lines anywhere, and implausibly large grids.
//!
//! Every child process is bounded in time (and, where a regression could allocate without limit, in
//! memory), so that a regression fails the test instead of hanging or exhausting the machine.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use novikoff::experiment::{TaskRecord, read_records};

/// 2 rules × (1 cyclic + 4 shuffled) × 4 grid points × `replicates`: 40 tasks per replicate.
fn spec_text(replicates: usize) -> String {
    format!(
        r#"
name = "robust"
seed = 3

[train]
rules = ["none", "classic"]
orders = ["cyclic", "shuffle"]
seeds = [0, 1, 2, 3]
max_epochs = 200

[[dataset]]
family = "separable"
params = {{ n = [30, 60], d = [2, 5], margin = 0.1, radius = 1.0 }}
replicates = {replicates}
"#
    )
}

fn write_spec(dir: &Path, replicates: usize) -> PathBuf {
    let path = dir.join("spec.toml");
    std::fs::write(&path, spec_text(replicates)).unwrap();
    path
}

fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_novikoff"));
    command
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Wait for a child at most `limit`, killing it (and failing the test) when it takes longer.
fn wait_bounded(mut child: Child, limit: Duration, what: &str) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            child.kill().ok();
            let mut stderr = String::new();
            if let Some(mut e) = child.stderr.take() {
                e.read_to_string(&mut stderr).ok();
            }
            child.wait().ok();
            panic!("{what} took longer than {limit:?}: {stderr}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn run(args: &[&str]) -> Output {
    wait_bounded(
        command(args).spawn().unwrap(),
        Duration::from_secs(300),
        &format!("{args:?}"),
    )
}

fn run_ok(args: &[&str]) -> Output {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The ids of a results file, asserting that none occurs twice.
fn unique_ids(records: &[TaskRecord]) -> HashSet<String> {
    let ids: HashSet<String> = records.iter().map(|r| r.task_id.clone()).collect();
    assert_eq!(ids.len(), records.len(), "a task id occurs twice");
    ids
}

/// The ids of the whole run of a spec, computed in its own folder.
fn whole_run_ids(tmp: &Path, spec: &Path) -> HashSet<String> {
    let whole = tmp.join("whole");
    run_ok(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        whole.to_str().unwrap(),
        "--no-plots",
    ]);
    unique_ids(&read_records(&whole.join("results.jsonl")).unwrap())
}

/// Item 4: a `--resume` started while the first run is still writing the same folder is refused, and the
/// first run keeps every row.
#[test]
fn a_second_writer_of_the_same_folder_is_refused_and_nothing_is_lost() {
    let tmp = tempfile::tempdir().unwrap();
    // 4000 tasks on one thread: several seconds, long enough to start a second writer in the middle.
    let spec = write_spec(tmp.path(), 100);
    let out = tmp.path().join("out");
    let (spec_arg, out_arg) = (spec.to_str().unwrap(), out.to_str().unwrap());
    let mut first = command(&[
        "experiment",
        spec_arg,
        "--out",
        out_arg,
        "--no-plots",
        "--threads",
        "1",
    ])
    .spawn()
    .unwrap();
    // Wait until the first run has stored rows, so that it is certainly writing.
    let start = Instant::now();
    while std::fs::read(out.join("results.jsonl")).map_or(true, |b| b.len() < 10_000) {
        assert!(
            first.try_wait().unwrap().is_none(),
            "the first run ended before a row was written"
        );
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no row after 120 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = run(&[
        "experiment",
        spec_arg,
        "--out",
        out_arg,
        "--no-plots",
        "--resume",
        "--threads",
        "1",
    ]);
    let still_running = first.try_wait().unwrap().is_none();
    let first = wait_bounded(first, Duration::from_secs(600), "the first run");
    assert!(first.status.success(), "first run: {}", stderr(&first));
    assert!(
        still_running,
        "the first run finished before the second ended; the test needs a longer spec"
    );
    assert_eq!(second.status.code(), Some(2), "second: {}", stderr(&second));
    let message = stderr(&second);
    assert!(message.contains(out_arg), "{message}");
    assert!(message.contains("another run"), "{message}");

    let rows = read_records(&out.join("results.jsonl")).unwrap();
    assert_eq!(unique_ids(&rows).len(), 4000);
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 4001);
}

/// Items 4 and 5: shards started together into one folder (the Slurm pattern) all succeed, each under its
/// own lock, and together hold every task exactly once.
#[test]
fn shards_started_together_in_one_folder_lose_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), 2);
    let expected = whole_run_ids(tmp.path(), &spec);
    const SHARDS: usize = 8;
    for round in 0..3 {
        let out = tmp.path().join(format!("shared{round}"));
        let children: Vec<(String, Child)> = (0..SHARDS)
            .map(|i| {
                let shard = format!("{i}/{SHARDS}");
                let child = command(&[
                    "experiment",
                    spec.to_str().unwrap(),
                    "--out",
                    out.to_str().unwrap(),
                    "--shard",
                    &shard,
                    "--resume",
                    "--threads",
                    "1",
                ])
                .spawn()
                .unwrap();
                (shard, child)
            })
            .collect();
        for (shard, child) in children {
            let output = wait_bounded(child, Duration::from_secs(300), &shard);
            assert!(
                output.status.success(),
                "round {round}, shard {shard}: {}",
                stderr(&output)
            );
        }
        let merged = tmp.path().join(format!("merged{round}"));
        run_ok(&[
            "merge",
            out.to_str().unwrap(),
            "--out",
            merged.to_str().unwrap(),
        ]);
        let rows = read_records(&merged.join("results.jsonl")).unwrap();
        assert_eq!(unique_ids(&rows), expected, "round {round}");
    }
}

/// Item 6: `merge` refuses an incomplete set of shards, and with `--allow-partial` says which are missing.
#[test]
fn merge_refuses_a_missing_shard_unless_partial_is_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), 1);
    let shards = tmp.path().join("shards");
    for shard in ["0/3", "1/3"] {
        run_ok(&[
            "experiment",
            spec.to_str().unwrap(),
            "--out",
            shards.to_str().unwrap(),
            "--shard",
            shard,
        ]);
    }
    let merged = tmp.path().join("merged");
    let refused = run(&[
        "merge",
        shards.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("2/3"), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("--allow-partial"));
    assert!(!merged.join("results.jsonl").exists());

    let partial = run_ok(&[
        "merge",
        shards.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
        "--allow-partial",
    ]);
    assert!(stderr(&partial).contains("2/3"), "{}", stderr(&partial));
    let rows = read_records(&merged.join("results.jsonl")).unwrap();
    let parts: usize = ["0-of-3", "1-of-3"]
        .iter()
        .map(|s| {
            read_records(&shards.join(format!("results.shard-{s}.jsonl")))
                .unwrap()
                .len()
        })
        .sum();
    assert_eq!(rows.len(), parts);
}

/// Item 7: a write failure in the middle of a run stops it at once with a clear message, leaves only
/// whole lines, and `--resume` completes the run once space returns. The failure is real: the child's
/// file size limit (`RLIMIT_FSIZE`) makes the kernel refuse the write, as a full disk would.
#[cfg(target_os = "linux")]
#[test]
fn a_write_failure_stops_the_run_and_resume_completes_it() {
    use std::os::unix::process::CommandExt;
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), 10);
    let expected = whole_run_ids(tmp.path(), &spec);
    let out = tmp.path().join("out");
    let mut limited = command(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--no-plots",
        "--threads",
        "1",
    ]);
    // SAFETY: setrlimit and signal are async-signal-safe and touch only the child.
    unsafe {
        limited.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 30_000,
                rlim_max: 30_000,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // Without this the kernel kills the process; ignored, the write fails with EFBIG instead.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    let failed = wait_bounded(
        limited.spawn().unwrap(),
        Duration::from_secs(300),
        "limited",
    );
    let message = stderr(&failed);
    assert_eq!(failed.status.code(), Some(1), "{message}");
    assert!(!message.contains("panicked"), "{message}");
    assert!(message.contains("--resume"), "{message}");
    // One thread: the run stops after the task whose row could not be written.
    assert!(
        message.contains("1 finished task(s) could not be stored"),
        "{message}"
    );

    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert!(!text.is_empty() && text.ends_with('\n'), "a torn last line");
    for (k, line) in text.lines().enumerate() {
        serde_json::from_str::<TaskRecord>(line)
            .unwrap_or_else(|e| panic!("line {} is not whole: {e}", k + 1));
    }
    let stored = text.lines().count();
    assert!(stored > 0 && stored < expected.len());

    run_ok(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--no-plots",
        "--resume",
    ]);
    let rows = read_records(&out.join("results.jsonl")).unwrap();
    assert_eq!(unique_ids(&rows), expected);
}

/// Item 7: `--resume` recovers from torn lines anywhere in the file (as a full disk that came back leaves
/// them), says which lines it dropped, and recomputes their tasks.
#[test]
fn resume_recovers_from_torn_lines_in_the_middle() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), 1);
    let expected = whole_run_ids(tmp.path(), &spec);
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::copy(spec.as_path(), out.join("spec.toml")).unwrap();
    let whole = std::fs::read_to_string(tmp.path().join("whole/results.jsonl")).unwrap();
    let lines: Vec<&str> = whole.lines().collect();
    // Line 3 torn alone, line 6 torn and glued to the whole line 7, and a torn last line (each cut at
    // a character boundary: the lines hold UTF-8 such as "γ").
    let cut = |line: &str, at: usize| {
        let at = (0..=at)
            .rev()
            .find(|&i| line.is_char_boundary(i))
            .unwrap_or(0);
        line[..at].to_string()
    };
    let mut damaged = String::new();
    for (k, line) in lines.iter().enumerate().take(12) {
        match k {
            2 => damaged.push_str(&format!("{}\n", cut(line, line.len() / 2))),
            5 => damaged.push_str(&cut(line, line.len() / 3)),
            _ => damaged.push_str(&format!("{line}\n")),
        }
    }
    damaged.push_str(&cut(lines[12], 40));
    std::fs::write(out.join("results.jsonl"), damaged).unwrap();

    let resumed = run_ok(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--no-plots",
        "--resume",
    ]);
    let message = stderr(&resumed);
    assert!(message.contains("results.jsonl:3"), "{message}");
    assert!(message.contains("results.jsonl:6"), "{message}");
    let rows = read_records(&out.join("results.jsonl")).unwrap();
    assert_eq!(unique_ids(&rows), expected);
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), expected.len() + 1);
}

/// Item 9: a grid of 10¹² tasks is refused at once, with the count, before anything is allocated. The
/// child's address space is capped so that a regression fails instead of exhausting the machine.
#[cfg(target_os = "linux")]
#[test]
fn an_implausible_grid_is_refused_with_its_count() {
    use std::os::unix::process::CommandExt;
    let tmp = tempfile::tempdir().unwrap();
    let list = |from: usize| {
        (from..from + 10_000)
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let text = format!(
        "name = \"huge\"\n[train]\nrules = [\"none\"]\n[[dataset]]\nfamily = \"separable\"\nparams = {{ n = [{}], d = [{}], margin = 0.1, radius = [{}] }}\n",
        list(10),
        list(1),
        list(1)
    );
    let spec = tmp.path().join("huge.toml");
    std::fs::write(&spec, text).unwrap();
    let mut child = command(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        tmp.path().join("out").to_str().unwrap(),
    ]);
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        child.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 4 << 30,
                rlim_max: 4 << 30,
            };
            libc::setrlimit(libc::RLIMIT_AS, &limit);
            Ok(())
        });
    }
    let out = wait_bounded(child.spawn().unwrap(), Duration::from_secs(60), "huge");
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("1000000000000 tasks"), "{message}");
    assert!(message.contains("huge.toml:6"), "{message}");
}

/// A shard that stopped part-way leaves a results file but no completion marker: `merge` refuses it
/// (it used to merge whatever rows were there), names the file, and accepts it again once the shard
/// is resumed to its end.
#[test]
fn merge_refuses_a_shard_that_did_not_finish() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), 1);
    let shards = tmp.path().join("shards");
    for shard in ["0/2", "1/2"] {
        run_ok(&[
            "experiment",
            spec.to_str().unwrap(),
            "--out",
            shards.to_str().unwrap(),
            "--shard",
            shard,
            "--no-plots",
        ]);
    }
    // Shard 1 as a kill -9 part-way would leave it: its last row gone, no marker.
    let jsonl = shards.join("results.shard-1-of-2.jsonl");
    let text = std::fs::read_to_string(&jsonl).unwrap();
    let kept: Vec<&str> = text.lines().collect();
    assert!(kept.len() >= 2, "the spec gives shard 1 at least two tasks");
    std::fs::write(&jsonl, kept[..kept.len() - 1].join("\n") + "\n").unwrap();
    std::fs::remove_file(shards.join("results.shard-1-of-2.complete")).unwrap();

    let merged = tmp.path().join("merged");
    let refused = run(&[
        "merge",
        shards.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("results.shard-1-of-2.jsonl")
            && stderr(&refused).contains("did not finish"),
        "{}",
        stderr(&refused)
    );
    let partial = run_ok(&[
        "merge",
        shards.to_str().unwrap(),
        "--out",
        tmp.path().join("partial").to_str().unwrap(),
        "--allow-partial",
    ]);
    assert!(
        stderr(&partial).contains("did not finish"),
        "{}",
        stderr(&partial)
    );

    // A marker whose count no longer matches (rows lost after the run finished) is refused too.
    run_ok(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        shards.to_str().unwrap(),
        "--shard",
        "1/2",
        "--resume",
        "--no-plots",
    ]);
    run_ok(&[
        "merge",
        shards.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&jsonl).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&jsonl, lines[1..].join("\n") + "\n").unwrap();
    let stale = run(&[
        "merge",
        shards.to_str().unwrap(),
        "--out",
        tmp.path().join("stale").to_str().unwrap(),
    ]);
    assert_eq!(stale.status.code(), Some(2), "{}", stderr(&stale));
}
