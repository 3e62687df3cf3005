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
    assert!((none["ratio"].as_f64().unwrap() - 0.6).abs() < 1e-6);
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
fn xor_reports_the_certificate_and_no_bound() {
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
        assert_eq!(r["holds"], Value::Null);
        assert_eq!(r["invariants"]["status"], "not_applicable");
        assert!(
            r["bounds"]
                .as_array()
                .unwrap()
                .iter()
                .all(|b| b["applies"] == false && b["value"].is_null() && b["reason"].is_string())
        );
    }
    let text = stdout(&novikoff(&["verify", &data("xor.csv")]));
    assert!(text.contains("NO: no bound applies"), "{text}");
    assert!(text.contains("certificate (free bias)"), "{text}");
    assert!(text.contains("without converging"), "{text}");
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
