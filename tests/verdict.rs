//! One verdict: `novikoff verify`, the library's `bounds::report` and an experiment give the same
//! failures on the same run, on data that passes, data with no bound, and runs that break the theorem
//! in floating point (a subnormal η, overflowing weights), with an adversarial search on top.

mod common;

use std::path::Path;

use common::write;
use novikoff::bounds::{AdversaryParams, ExceededBy, Failure, Geometry, ReportOptions, report};
use novikoff::experiment::{RunOptions, Spec, TaskRecord, run};
use novikoff::perceptron::{BiasRule, PerceptronParams};
use novikoff::simd::Summation;
use serde_json::Value;

/// A case: a data file's text, the learning rate and the epoch cap.
struct Case {
    name: &'static str,
    csv: String,
    eta: f64,
    max_epochs: usize,
    /// Search adversarial orders too (not where the weights overflow: the search stops with an error).
    adversary: bool,
}

fn cases() -> Vec<Case> {
    let noisy = {
        // Two clusters with two labels flipped: not separable, so no bound applies.
        let mut csv = String::from("x1,x2,y\n");
        for i in 0..20 {
            let t = i as f64 / 20.0;
            let y = if i % 7 == 3 { -1 } else { 1 };
            csv.push_str(&format!("{},{},{y}\n", 1.0 + t, 0.5 - t));
            csv.push_str(&format!("{},{},{}\n", -1.0 - t, t - 0.5, -y));
        }
        csv
    };
    vec![
        Case {
            name: "seed004",
            csv: "x1,x2,y\n-1,2,-1\n1,0,1\n1,1,1\n-1,0,-1\n-1,-2,-1\n1,-1,1\n".into(),
            eta: 1.0,
            max_epochs: 100,
            adversary: true,
        },
        Case {
            name: "xor",
            csv: "x1,x2,y\n0,0,1\n0,1,-1\n1,0,-1\n1,1,1\n".into(),
            eta: 1.0,
            max_epochs: 50,
            adversary: true,
        },
        Case {
            name: "noisy",
            csv: noisy,
            eta: 1.0,
            max_epochs: 30,
            adversary: true,
        },
        Case {
            // η = 5e-324 rounds every update to zero: every bound is exceeded and the proof breaks.
            name: "subnormal",
            csv: "x1,x2,y\n0.3,0.1,1\n0.2,-0.1,1\n-0.3,0.1,-1\n-0.2,-0.2,-1\n".into(),
            eta: 5e-324,
            max_epochs: 10,
            adversary: true,
        },
        Case {
            // The weights overflow at the first update while the bound promises convergence.
            name: "overflow",
            csv: "x1,x2,y\n3e5,1e5,1\n2e5,-1e5,1\n-3e5,1e5,-1\n-2e5,-2e5,-1\n".into(),
            eta: 1e305,
            max_epochs: 100,
            adversary: false,
        },
    ]
}

const RULES: [BiasRule; 3] = [BiasRule::None, BiasRule::Classic, BiasRule::Novikoff];

fn params(case: &Case, rule: BiasRule) -> PerceptronParams {
    PerceptronParams::new()
        .bias(rule)
        .eta(case.eta)
        .max_epochs(case.max_epochs)
        .summation(Summation::Sequential)
}

/// The experiment's records of the case, one per rule, in rule order.
fn experiment_records(dir: &Path, case: &Case, file: &Path) -> Vec<TaskRecord> {
    let spec_text = format!(
        "name = \"{name}\"\nseed = 1\n\n[train]\nrules = [\"none\", \"classic\", \"novikoff\"]\n\
         orders = [\"cyclic\"]\neta = [{eta:e}]\nmax_epochs = {epochs}\nsummation = \"sequential\"\n\n\
         [measure]\nmargin = true\nbounds = true\ninvariants = true\n\n[[dataset]]\nfile = {file:?}\n",
        name = case.name,
        eta = case.eta,
        epochs = case.max_epochs,
        file = file.display().to_string(),
    );
    let spec = Spec::parse(&spec_text, Path::new("spec.toml")).unwrap();
    let mut options = RunOptions::new(dir.join(format!("out-{}", case.name)));
    options.threads = Some(1);
    options.progress = false;
    let report = run(&spec, &spec_text, &options).unwrap();
    let mut records = report.records;
    records.sort_by_key(|r| r.index);
    assert_eq!(records.len(), RULES.len(), "{}", case.name);
    records
}

fn cli_json(file: &Path, case: &Case) -> (Option<i32>, Value) {
    let eta = format!("{:e}", case.eta);
    let epochs = case.max_epochs.to_string();
    let mut args = vec![
        "verify",
        file.to_str().unwrap(),
        "--eta",
        &eta,
        "--max-epochs",
        &epochs,
        "--summation",
        "sequential",
        "--format",
        "json",
    ];
    if case.adversary {
        args.extend(["--adversary", "--restarts", "2", "--seed", "0"]);
    }
    let output = common::novikoff(&args);
    (
        output.status.code(),
        serde_json::from_slice(&output.stdout).expect("one JSON object"),
    )
}

#[test]
fn verify_and_experiment_give_the_same_verdict_on_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut failing_cases = 0;
    for case in cases() {
        let file = write(&dir, &format!("{}.csv", case.name), &case.csv);
        let data = novikoff::io::open(&file, &Default::default()).unwrap();
        let geometry = Geometry::compute(&data).unwrap();
        let rules: Vec<PerceptronParams> = RULES.iter().map(|&r| params(&case, r)).collect();
        let options = ReportOptions {
            adversary: case
                .adversary
                .then(|| AdversaryParams::new().restarts(2).seed(0)),
            ..Default::default()
        };
        let library = report(&geometry, &rules, &options).unwrap();
        let records = experiment_records(dir.path(), &case, &file);
        let (code, cli) = cli_json(&file, &case);

        for (rule, record) in library.rules.iter().zip(&records) {
            assert_eq!(rule.verdict.rule, record.rule, "{}", case.name);
            assert_eq!(
                Some(rule.verdict.fit.mistakes),
                record.mistakes,
                "{}",
                case.name
            );
            // The run's own failures: the experiment records exactly these.
            let run_failures: Vec<Failure> = rule
                .failures()
                .into_iter()
                .filter(|f| {
                    !matches!(
                        f,
                        Failure::BoundExceeded {
                            by: ExceededBy::Adversary { .. },
                            ..
                        } | Failure::InvariantViolated { order: Some(_), .. }
                    )
                })
                .collect();
            assert_eq!(run_failures, rule.verdict.failures(), "{}", case.name);
            assert_eq!(
                record.failures, run_failures,
                "{} {}",
                case.name, record.rule
            );
            assert_eq!(
                record.passed(),
                rule.verdict.holds.is_some() && run_failures.is_empty(),
                "{} {}",
                case.name,
                record.rule
            );
        }
        // The CLI prints the library's failures, adversarial ones included, and exits by them.
        let printed: Vec<String> = library.failures().iter().map(|f| f.to_string()).collect();
        let cli_failures: Vec<String> = cli["failures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect();
        assert_eq!(cli_failures, printed, "{}", case.name);
        assert_eq!(cli["passed"], printed.is_empty(), "{}", case.name);
        assert_eq!(
            code,
            Some(if printed.is_empty() { 0 } else { 1 }),
            "{}",
            case.name
        );
        // The experiment's summary counts a task as held exactly when verify passes it.
        let summary = novikoff::experiment::summarize(&records);
        let held: usize = summary.iter().map(|s| s.held).sum();
        let passed = library
            .rules
            .iter()
            .filter(|r| r.verdict.holds.is_some() && r.verdict.failures().is_empty())
            .count();
        assert_eq!(held, passed, "{}", case.name);
        failing_cases += usize::from(!printed.is_empty());
    }
    // The comparison covered runs that fail, not only runs that pass.
    assert!(failing_cases >= 2, "{failing_cases}");
}

/// The records written to `results.jsonl` carry the typed failures, and read back equal.
#[test]
fn failures_survive_the_results_file() {
    let dir = tempfile::tempdir().unwrap();
    let case = cases().into_iter().find(|c| c.name == "overflow").unwrap();
    let file = write(&dir, "overflow.csv", &case.csv);
    let records = experiment_records(dir.path(), &case, &file);
    let none = &records[0];
    assert!(
        matches!(
            none.failures.as_slice(),
            [Failure::Overflow { update: 1, .. }]
        ),
        "{:?}",
        none.failures
    );
    let stored =
        novikoff::experiment::load_results(&dir.path().join("out-overflow/results.jsonl")).unwrap();
    let stored_none = stored.iter().find(|r| r.task_id == none.task_id).unwrap();
    assert_eq!(stored_none.failures, none.failures);
    assert!(!stored_none.passed());
}
