//! `novikoff verify` through the real binary.

mod common;

use common::{data, json, novikoff, stdout, write};

use serde_json::Value;

fn rule<'a>(out: &'a Value, name: &str) -> &'a Value {
    out["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"] == name)
        .unwrap_or_else(|| panic!("rule {name} in {out}"))
}

fn bound<'a>(rule: &'a Value, kind: &str) -> &'a Value {
    rule["bounds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["kind"] == kind)
        .unwrap_or_else(|| panic!("bound {kind} in {rule}"))
}

#[test]
fn seed004_as_json_has_every_rule_and_form() {
    let out = json(&novikoff(&[
        "verify",
        &data("seed004.csv"),
        "--format",
        "json",
    ]));
    assert_eq!((out["n"].as_u64(), out["d"].as_u64()), (Some(6), Some(2)));
    assert_eq!(out["radius"], 5f64.sqrt());
    assert_eq!(out["separable"], true);
    let [low, high] = [0, 1].map(|i| out["gamma"]["through_origin"][i].as_f64().unwrap());
    assert!(low <= 1.0 + 1e-12 && 1.0 <= high + 1e-12 && high - low < 1e-6);
    let rules: Vec<&str> = out["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, vec!["none", "classic", "novikoff"]);

    let none = rule(&out, "none");
    assert_eq!(none["mistakes"], 3);
    assert_eq!(none["epochs"], 2);
    assert_eq!(none["converged"], true);
    assert_eq!(none["holds"], true);
    // The tightest form is at most (R/γ)² = 5 (the forms for any u can do better).
    assert!(none["ratio"].as_f64().unwrap() >= 0.6 - 1e-6);
    assert!(none["bound"].as_f64().unwrap() <= 5.0 + 1e-6);
    let block = bound(none, "block_novikoff");
    assert_eq!(block["name"], "Block–Novikoff");
    assert_eq!(block["applies"], true);
    assert_eq!(block["reason"], Value::Null);
    assert!((block["value"].as_f64().unwrap() - 5.0).abs() < 1e-6);
    let helmbold = bound(none, "helmbold");
    assert_eq!(helmbold["applies"], false);
    assert_eq!(helmbold["value"], Value::Null);
    assert!(helmbold["reason"].as_str().unwrap().contains("‖xᵢ‖ = 1"));
    let invariants = &none["invariants"];
    assert_eq!(invariants["status"], "checked");
    assert_eq!(invariants["updates"], 3);
    assert_eq!(invariants["violations"], 0);
    assert!(invariants["min_dot_slack"].as_f64().unwrap() > -1e-9);
    assert!(invariants["min_norm_slack"].as_f64().unwrap() >= 0.0);

    for name in ["classic", "novikoff"] {
        let r = rule(&out, name);
        assert_eq!(r["holds"], true, "{r}");
        assert_eq!(r["invariants"]["violations"], 0);
        assert!(r["ratio"].as_f64().unwrap() <= 1.0);
    }
    assert_eq!(
        bound(rule(&out, "novikoff"), "novikoff_bias")["applies"],
        true
    );
    assert_eq!(bound(rule(&out, "classic"), "augmented")["applies"], true);
}

#[test]
fn seed004_table_shows_each_rule_and_bound() {
    let text = stdout(&novikoff(&["verify", &data("seed004.csv"), "--steps"]));
    for needle in [
        "Block–Novikoff",
        "(R/γ)²",
        "Haykin",
        "Augmented vectors",
        "Novikoff with bias",
        "(2R/γ)²",
        "not applicable:",
        "none / Helmbold",
        "update by update",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    let row = text
        .lines()
        .find(|l| l.starts_with("none") && l.contains("Block–Novikoff"))
        .unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    // rule, name, formula, γ, R, bound, mistakes, epochs, ratio, holds
    assert_eq!(cells[cells.len() - 1], "yes");
    assert_eq!(cells[cells.len() - 2], "0.6");
    assert_eq!(cells[cells.len() - 4], "3");
    assert_eq!(cells[cells.len() - 5], "5");
}

#[test]
fn xor_reports_the_certificate_and_only_the_bounds_for_any_data() {
    let out = json(&novikoff(&[
        "verify",
        &data("xor.csv"),
        "--format",
        "json",
        "--max-epochs",
        "200",
    ]));
    assert_eq!(out["separable"], false);
    assert_eq!(out["certificate"]["bias"], "free");
    assert_eq!(out["certificate"]["verified"], true);
    for r in out["rules"].as_array().unwrap() {
        assert_eq!(r["converged"], false);
        assert_eq!(r["epochs"], 200);
        // Only the forms for any data apply, and they hold.
        assert_eq!(r["holds"], true);
        assert_eq!(r["invariants"]["status"], "not_applicable");
        for b in r["bounds"].as_array().unwrap() {
            let any_data = b["kind"] == "freund_schapire" || b["kind"] == "shalev_shwartz_singer";
            assert_eq!(b["applies"], any_data, "{b}");
            if any_data {
                assert!(b["comparator"]["direction"].is_array(), "{b}");
                assert_eq!(b["holds"], true, "{b}");
            } else {
                assert!(b["value"].is_null() && b["reason"].is_string(), "{b}");
            }
        }
    }
    let text = stdout(&novikoff(&["verify", &data("xor.csv")]));
    assert!(
        text.contains("NO: only the bounds that hold on any data apply"),
        "{text}"
    );
    assert!(text.contains("certificate (free bias)"), "{text}");
    assert!(text.contains("without converging"), "{text}");
    // The proof's inequalities were not followed (no comparator exists), so their table has no count
    // of updates to show: the runs made many, and a 0 there would say they made none.
    let invariants = text
        .split("the proof's inequalities")
        .nth(1)
        .expect("the invariants table");
    for name in ["none", "classic", "novikoff"] {
        let row = invariants
            .lines()
            .find(|line| line.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("a row for {name}: {invariants}"));
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[2], "n/a", "{row}");
        assert_eq!(cells.last(), Some(&"n/a"), "{row}");
    }
}

#[test]
fn cs536_applies_to_unit_norm_data_with_the_classic_rule() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "unit.csv",
        "x1,x2,y\n0.6,0.8,1\n1,0,1\n-0.8,-0.6,-1\n0,-1,-1\n",
    );
    let out = json(&novikoff(&[
        "verify",
        path.to_str().unwrap(),
        "--rules",
        "classic,none",
        "--format",
        "json",
    ]));
    let classic = rule(&out, "classic");
    let cs536 = bound(classic, "cs536");
    assert_eq!(cs536["applies"], true, "{cs536}");
    assert!(cs536["value"].as_f64().unwrap() >= classic["mistakes"].as_f64().unwrap());
    assert_eq!(bound(rule(&out, "none"), "helmbold")["applies"], true);
}

#[test]
fn adversary_and_supplied_separator() {
    let text = stdout(&novikoff(&[
        "verify",
        &data("seed004.csv"),
        "--rules",
        "none",
        "--adversary",
        "--restarts",
        "2",
        "--separator",
        "2,0.5",
    ]));
    assert!(text.contains("adversarial orders, rule none"), "{text}");
    assert!(text.contains("most_violated"), "{text}");
    assert!(text.contains("highest mistakes/bound"), "{text}");
    assert!(text.contains("Block–Novikoff (your separator)"), "{text}");
    let out = json(&novikoff(&[
        "verify",
        &data("seed004.csv"),
        "--rules",
        "none",
        "--adversary",
        "--separator",
        "2,0.5",
        "--format",
        "json",
    ]));
    let none = rule(&out, "none");
    assert!(none["adversary"]["best_ratio"].as_f64().unwrap() <= 1.0);
    let supplied = none["supplied_separator_bounds"].as_array().unwrap();
    let block = supplied
        .iter()
        .find(|b| b["kind"] == "block_novikoff")
        .unwrap();
    assert!((block["value"].as_f64().unwrap() - 21.25).abs() < 1e-9);
}

#[test]
fn bad_input_exits_2() {
    let missing = novikoff(&["verify", "/nonexistent/data.csv"]);
    assert_eq!(missing.status.code(), Some(2));
    let rules = novikoff(&["verify", &data("seed004.csv"), "--rules", "sometimes"]);
    assert_eq!(rules.status.code(), Some(2));
    let eta = novikoff(&["verify", &data("seed004.csv"), "--eta=-1"]);
    assert_eq!(eta.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&eta.stderr).contains("eta"));
    let separator = novikoff(&["verify", &data("seed004.csv"), "--separator", "1,2,3"]);
    assert_eq!(separator.status.code(), Some(2));
}

/// Four points whose coordinates are all below 1/2 in magnitude: separable through the origin with
/// γ = 0.2 and R = √0.1, so Block–Novikoff promises at most (R/γ)² = 2.5 mistakes.
const SMALL: &str = "x1,x2,y\n0.3,0.1,1\n0.2,-0.1,1\n-0.3,0.1,-1\n-0.2,-0.2,-1\n";

#[test]
fn every_check_passing_exits_0_with_nothing_on_stderr() {
    let out = novikoff(&["verify", &data("seed004.csv"), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out);
    assert_eq!(report["passed"], true);
    assert_eq!(report["failures"], serde_json::json!([]));
}

/// The honest failure. Every bound is a theorem about exact arithmetic, and η cancels there; in f64 the
/// smallest subnormal η = 5e-324 times a coordinate below 1/2 rounds to 0, so w stays 0, every example
/// is a mistake (y·0 ≤ 0), and the run exceeds every bound and breaks the proof's inequalities.
#[test]
fn a_subnormal_eta_breaks_the_bounds_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "small.csv", SMALL);
    let args = [
        "verify",
        path.to_str().unwrap(),
        "--rules",
        "none",
        "--eta",
        "5e-324",
        "--max-epochs",
        "10",
        "--separator",
        "1,0",
        "--format",
        "json",
    ];
    let out = novikoff(&args);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for needle in [
        "novikoff verify: 7 checks failed:",
        "rule none: Block–Novikoff (R/γ)² fails: 40 mistakes exceed the bound 2.5",
        "rule none: Haykin β/α² fails: 40 mistakes exceed the bound 2.5",
        // The forms for any u assume the run's scale invariance too, which the subnormal η breaks.
        "rule none: Freund–Schapire ((R' + D)/γ)² fails: 40 mistakes exceed the bound",
        "rule none: Shalev-Shwartz–Singer L + R'‖u‖√L + R'²‖u‖² fails: 40 mistakes exceed the bound",
        // (1, 0) has margin 0.2 = γ*, so its bound is 2.5 as well.
        "rule none: Block–Novikoff (your separator) (R/γ)² fails: 40 mistakes exceed the bound 2.5",
        "rule none: the proof's inequality",
    ] {
        assert!(stderr.contains(needle), "missing {needle:?} in\n{stderr}");
    }
    assert!(!stderr.contains("error:"), "{stderr}");
    // The report is still complete on stdout, and says the same.
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["passed"], false);
    assert_eq!(report["failures"].as_array().unwrap().len(), 7);
    let none = rule(&report, "none");
    assert_eq!(none["w"], serde_json::json!([0.0, 0.0]));
    assert_eq!(
        (none["mistakes"].as_u64(), none["converged"].as_bool()),
        (Some(40), Some(false))
    );
    assert_eq!(none["holds"], false);
    assert!(none["invariants"]["violations"].as_u64().unwrap() > 0);
    // The table format exits the same way.
    let table = novikoff(&args[..args.len() - 2]);
    assert_eq!(table.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&table.stdout).contains("NO"));
    // η = 1 on the same data passes.
    let fine = novikoff(&["verify", path.to_str().unwrap(), "--rules", "none"]);
    assert_eq!(
        fine.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fine.stderr)
    );
}

/// Weights that overflow stop the run (stop reason non_finite): it can never converge, although the
/// bound promises it will. Nobody chose that stop, unlike a cap, so it is a failure.
#[test]
fn overflowing_weights_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "big.csv",
        "x1,x2,y\n3e5,1e5,1\n2e5,-1e5,1\n-3e5,1e5,-1\n-2e5,-2e5,-1\n",
    );
    let out = novikoff(&[
        "verify",
        path.to_str().unwrap(),
        "--rules",
        "none",
        "--eta",
        "1e305",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("rule none: the weights overflowed to a non-finite value at update 1")
            && stderr.contains("Block–Novikoff promises convergence after at most 2.5 mistakes"),
        "{stderr}"
    );
}

/// A cap below the bound stops the run early without contradicting the theorem: exit 0.
#[test]
fn a_run_cut_short_by_its_cap_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    // xᵢ = eᵢ in ℝ⁶ with alternating labels: u = (yᵢ)/√6, γ = 1/√6, R = 1, so (R/γ)² = 6, and the
    // cyclic pass makes exactly 6 mistakes (the eᵢ are orthogonal).
    let mut csv = String::from("a,b,c,d,e,f,y\n");
    for i in 0..6 {
        let row: Vec<&str> = (0..6).map(|j| if i == j { "1" } else { "0" }).collect();
        let label = if i % 2 == 0 { "1" } else { "-1" };
        csv.push_str(&format!("{},{label}\n", row.join(",")));
    }
    let path = write(&dir, "basis.csv", csv);
    let out = novikoff(&[
        "verify",
        path.to_str().unwrap(),
        "--rules",
        "none",
        "--max-updates",
        "4",
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let none = rule(&json(&out), "none").clone();
    assert_eq!(
        (none["mistakes"].as_u64(), none["converged"].as_bool()),
        (Some(4), Some(false))
    );
    assert_eq!(none["stop_reason"], "update_cap");
    // Uncapped, the bound is attained exactly and still holds.
    let full = json(&novikoff(&[
        "verify",
        path.to_str().unwrap(),
        "--rules",
        "none",
        "--format",
        "json",
    ]));
    assert_eq!(rule(&full, "none")["mistakes"], 6);
    assert_eq!(full["passed"], true);
}

#[test]
fn help_documents_the_exit_status() {
    let help = stdout(&novikoff(&["verify", "--help"]));
    for needle in [
        "Exit status:",
        "  0  every check passed",
        "  1  a check failed",
        "  2  bad input",
    ] {
        assert!(help.contains(needle), "missing {needle:?} in\n{help}");
    }
}

#[test]
fn negative_values_of_verify_options_need_no_equals_sign() {
    // The same refusal, from the parameter check, with and without `=`.
    let seed004 = data("seed004.csv");
    for eta in [&["--eta", "-1"][..], &["--eta=-1"][..]] {
        let mut args = vec!["verify", seed004.as_str()];
        args.extend_from_slice(eta);
        let out = novikoff(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{eta:?}: {stderr}");
        assert!(
            stderr.contains(
                "invalid parameter `eta`: the learning rate must be finite and positive, got -1"
            ),
            "{eta:?}: {stderr}"
        );
    }
    // A separator with negative weights and a negative bias, as separate words.
    let out = json(&novikoff(&[
        "verify",
        &data("seed004.csv"),
        "--rules",
        "none",
        "--separator",
        "-2,-0.5",
        "--separator-bias",
        "-0.5",
        "--format",
        "json",
    ]));
    let supplied = rule(&out, "none")["supplied_separator_bounds"]
        .as_array()
        .unwrap();
    let block = supplied
        .iter()
        .find(|b| b["kind"] == "block_novikoff")
        .unwrap();
    assert_eq!(block["applies"], false);
    assert!(
        block["reason"].as_str().unwrap().contains("b = -0.5"),
        "{block}"
    );
}

/// One class (the README's worst case): verify reports the through-origin results, with Block–Novikoff
/// attained (m = 4 mistakes, bound (R/γ)² = 4), and names the free-bias forms as not applicable
/// instead of refusing the file.
#[test]
fn a_single_class_verifies_through_the_origin() {
    let dir = tempfile::tempdir().unwrap();
    let worst = dir.path().join("worst.csv");
    let worst = worst.to_str().unwrap();
    stdout(&novikoff(&[
        "generate", "basis", "--m", "4", "--out", worst,
    ]));
    let out = json(&novikoff(&["verify", worst, "--format", "json"]));
    assert_eq!(out["passed"], true, "{out}");
    assert_eq!(out["geometry"]["both_classes"], false);
    assert_eq!(out["geometry"]["margins"]["free_bias"]["status"], "failed");
    let none = rule(&out, "none");
    assert_eq!(none["mistakes"], 4);
    let block = bound(none, "block_novikoff");
    assert_eq!(block["applies"], true);
    assert!(
        (block["value"].as_f64().unwrap() - 4.0).abs() < 1e-6,
        "{block}"
    );
    for name in ["classic", "novikoff"] {
        let free = bound(rule(&out, name), "novikoff_bias");
        assert_eq!(free["applies"], false, "{free}");
        assert!(free["reason"].as_str().is_some(), "{free}");
    }
    let table = stdout(&novikoff(&["verify", worst]));
    assert!(table.contains("not applicable:"), "{table}");
    assert!(table.contains("only one class"), "{table}");
}

/// Options that only refine another option are refused without it instead of being ignored.
#[test]
fn options_without_the_option_they_refine_are_refused() {
    let seed004 = data("seed004.csv");
    let cases: [(&[&str], &[&str]); 4] = [
        (
            &["--separator-bias", "0.5"],
            &["--separator-bias", "--separator"],
        ),
        (&["--restarts", "3"], &["--restarts", "--adversary"]),
        (&["--seed", "4"], &["`--seed`", "--order shuffle"]),
        (
            &["--seed", "4", "--order", "cyclic"],
            &["`--seed`", "--adversary"],
        ),
    ];
    for (extra, words) in cases {
        let mut args = vec!["verify", seed004.as_str()];
        args.extend(extra);
        let out = novikoff(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        for word in words {
            assert!(stderr.contains(word), "{args:?}: `{word}` in {stderr}");
        }
    }
    // With what they refine, each is used.
    for extra in [
        &["--separator", "2,0.5", "--separator-bias", "0.5"][..],
        &["--adversary", "--restarts", "1"],
        &["--adversary", "--seed", "4"],
        &["--order", "shuffle", "--seed", "4"],
    ] {
        let mut args = vec!["verify", seed004.as_str(), "--rules", "none"];
        args.extend(extra);
        stdout(&novikoff(&args));
    }
}

#[test]
fn a_test_file_adds_each_rules_accuracy_to_its_entry() {
    let out = json(&novikoff(&[
        "verify",
        &data("seed004.csv"),
        "--test",
        &data("seed004.csv"),
        "--format",
        "json",
    ]));
    for name in ["none", "classic", "novikoff"] {
        let test = &rule(&out, name)["test"];
        assert_eq!(test["n"], 6, "{name}: {test}");
        // Every rule converges on seed004, so its last weights classify its own data.
        assert_eq!(test["last"], 1.0, "{name}: {test}");
    }
    let without = json(&novikoff(&[
        "verify",
        &data("seed004.csv"),
        "--format",
        "json",
    ]));
    assert!(rule(&without, "none").get("test").is_none());
}

/// `--working-set-mb` bounds each of the geometry's margin solves. A budget too small to certify
/// leaves separability open: the report says "unknown" (JSON `null`), never "not separable", and the
/// bounds that need the margin do not apply (`tests/sparse.rs` certifies such data with the default
/// budget; here the debug binary would take a minute).
#[test]
fn a_working_set_budget_too_small_leaves_separability_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let file = common::sparse_beyond_one_mebibyte(&dir);
    let file = file.as_str();
    let args = |extra: &[&'static str]| {
        let mut args = vec![
            "verify",
            file,
            "--storage",
            "sparse",
            "--rules",
            "none,classic",
        ];
        args.extend_from_slice(extra);
        args
    };
    let small = json(&novikoff(&args(&[
        "--working-set-mb",
        "1",
        "--format",
        "json",
    ])));
    assert_eq!(
        small["separable"],
        Value::Null,
        "{}",
        small["geometry"]["margins"]
    );
    assert_eq!(small["separable_through_origin"], Value::Null);
    for problem in [
        "through_origin",
        "free_bias",
        "augmented_one",
        "augmented_radius",
    ] {
        let margin = &small["geometry"]["margins"][problem];
        assert_eq!(margin["status"], "inaccurate", "{problem}");
        let reason = margin["reason"].as_str().unwrap();
        assert!(reason.contains("--working-set-mb"), "{problem}: {reason}");
    }
    let block = bound(rule(&small, "none"), "block_novikoff");
    assert_eq!(block["applies"], false);
    let reason = block["reason"].as_str().unwrap();
    assert!(
        reason.contains("stopped before it found a separator"),
        "{reason}"
    );
    assert_eq!(
        bound(rule(&small, "classic"), "augmented")["applies"],
        false
    );
    let table = stdout(&novikoff(&args(&["--working-set-mb", "1"])));
    assert!(table.contains("UNKNOWN"), "{table}");
    assert!(!table.contains("NO:"), "{table}");
    assert!(
        table.contains("unknown: the solve stopped before its first separator")
            && !table.contains("[-inf, inf]"),
        "{table}"
    );
    for extra in [
        &["--working-set-mb", "0"][..],
        &["--working-set-mb", "18446744073709551615"],
        &["--working-set-mb", "64", "--kernel", "linear"],
    ] {
        let out = novikoff(&args(extra));
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("working"),
            "{extra:?}"
        );
    }
}
