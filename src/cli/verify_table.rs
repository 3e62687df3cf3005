//! How `novikoff verify` shows a [`Report`] as aligned tables (its JSON object is the library's
//! [`ReportJson`]). No check is decided here; the failures come from [`Report::failures`].

use novikoff::bounds::{
    Bound, InvariantReport, InvariantStatus, MarginSummary, Measure, Report, ReportJson,
    RuleReport, Verdict,
};
use novikoff::perceptron::TestAccuracy;
use novikoff::{Error, Result};

use super::output::{num, opt, render, yes_no};

/// The JSON object of `novikoff verify --format json`: the library's [`ReportJson`], with each rule's
/// accuracy on the `--test` file when one was given.
pub fn to_json<'a>(
    source: &'a str,
    data: &novikoff::Dataset,
    report: &'a Report,
    tests: &'a [Option<TestAccuracy>],
) -> Result<ReportJson<'a>> {
    report.json_view(source, data).with_test_accuracy(tests)
}

fn margin_line(m: &MarginSummary) -> String {
    match (m.status, m.bracket) {
        (_, Some([lo, hi])) if lo == f64::NEG_INFINITY && hi == f64::INFINITY => {
            "unknown: the solve stopped before its first separator (see the reasons below)".into()
        }
        (_, Some([lo, hi])) => format!("γ ∈ [{}, {}]", num(lo), num(hi)),
        ("not_separable", _) => "not separable".into(),
        (status, _) => format!(
            "{status}{}",
            m.reason
                .as_ref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        ),
    }
}

/// The aligned tables of `novikoff verify`.
pub fn print_table(
    source: &str,
    report: &Report,
    steps: bool,
    tests: &[Option<TestAccuracy>],
) -> Result<()> {
    let (geometry, reports): (_, &[RuleReport]) = (&report.geometry, &report.rules);
    let mut out = String::new();
    let m = &geometry.margins;
    let pairs = [
        ("data", source.to_string()),
        ("n × d", format!("{} × {}", geometry.n, geometry.d)),
        ("radius R", num(geometry.radius)),
        (
            "unit norm",
            format!(
                "{} (‖x‖ ∈ [{}, {}])",
                if geometry.unit_norm { "yes" } else { "no" },
                num(geometry.min_norm),
                num(geometry.radius)
            ),
        ),
        ("margin, through origin", margin_line(&m.through_origin)),
        ("margin, free bias", margin_line(&m.free_bias)),
        ("margin of (x, 1)", margin_line(&m.augmented_one)),
        ("margin of (x, R)", margin_line(&m.augmented_radius)),
        (
            "separable",
            match (geometry.separable, geometry.separable_through_origin) {
                (Some(true), Some(true)) => "yes, also through the origin".into(),
                (Some(true), Some(false)) => "with a bias only, not through the origin".into(),
                (Some(true), None) => {
                    "with a bias; through the origin unknown (the solve was inaccurate)".into()
                }
                (Some(false), _) => "NO: only the bounds that hold on any data apply".into(),
                (None, _) => {
                    "UNKNOWN: the margin solves were inaccurate (see their reasons); only \
                              the bounds that hold on any data apply"
                        .into()
                }
            },
        ),
    ];
    let width = pairs
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    for (key, value) in &pairs {
        out.push_str(&format!("{key:<width$}  {value}\n"));
    }
    for (what, margin) in [
        ("free bias", &m.free_bias),
        ("through the origin", &m.through_origin),
    ] {
        if let Some(c) = &margin.certificate {
            out.push_str(&format!(
                "certificate ({what}): weights {}, residual {:.3e}, verified {}\n",
                super::output::summarise_vector(&c.weights),
                c.residual,
                yes_no(c.verified)
            ));
        }
    }
    out.push('\n');

    let mut rows = vec![
        [
            "rule", "bound", "formula", "γ", "R", "bound", "mistakes", "epochs", "ratio", "holds",
        ]
        .map(String::from)
        .to_vec(),
    ];
    let mut reasons = Vec::new();
    let mut comparators = Vec::new();
    for report in reports {
        let v = &report.verdict;
        // The forms about this rule and this variant (the first and third hypotheses).
        let listed = |bound: &Bound| {
            bound.hypotheses.first().is_some_and(|h| h.holds) && bound.kind.speaks_of(v.fit.variant)
        };
        let mut any = false;
        for checked in v.bounds.iter().filter(|b| listed(&b.bound)) {
            any = true;
            rows.push(bound_row(
                v,
                &checked.bound,
                "",
                checked.ratio,
                checked.holds,
            ));
            if let Some(reason) = &checked.bound.reason {
                reasons.push(format!("{} / {}: {reason}", v.rule, checked.bound.name));
            }
            if let Some(u) = &checked.bound.comparator {
                comparators.push(format!(
                    "{} / {}: u = {}·û, û from the {}{}{}{}",
                    v.rule,
                    checked.bound.name,
                    num(u.length),
                    u.origin,
                    u.gamma
                        .map(|g| format!(", γ = {}", num(g)))
                        .unwrap_or_default(),
                    u.deviation
                        .map(|d| format!(", D = {}", num(d)))
                        .unwrap_or_default(),
                    u.loss
                        .map(|l| format!(", loss = {} over {} terms", num(l), u.terms))
                        .unwrap_or_default()
                ));
            }
        }
        for bound in report.supplied.iter().flatten().filter(|b| listed(b)) {
            rows.push(bound_row(
                v,
                bound,
                " (your separator)",
                bound.ratio(v.fit.mistakes),
                bound.holds_for(v.fit.mistakes),
            ));
            if let Some(reason) = &bound.reason {
                reasons.push(format!(
                    "{} / {} (your separator): {reason}",
                    v.rule, bound.name
                ));
            }
        }
        if !any {
            rows.push(vec![
                v.rule.clone(),
                "no form of the theorem speaks of this rule".into(),
                String::new(),
                opt(v.gamma),
                num(v.radius_eff),
                "—".into(),
                v.fit.mistakes.to_string(),
                v.fit.epochs.to_string(),
                "—".into(),
                "n/a".into(),
            ]);
        }
    }
    out.push_str(&render(&rows));
    if !comparators.is_empty() {
        out.push_str("\ncomparators of the bounds for any u (rigorous for the u reported):\n");
        for line in &comparators {
            out.push_str(&format!("  {line}\n"));
        }
    }
    if !reasons.is_empty() {
        out.push_str("\nnot applicable:\n");
        for reason in &reasons {
            out.push_str(&format!("  {reason}\n"));
        }
    }
    if tests.iter().any(Option::is_some) {
        out.push_str("\ntest accuracy of each predictor:\n");
        for (report, test) in reports.iter().zip(tests) {
            if let Some(t) = test {
                out.push_str(&format!(
                    "  {} (n = {}): last {}, averaged {}, voted {}, pocket {}\n",
                    report.verdict.rule,
                    t.n,
                    num(t.last),
                    num(t.averaged),
                    opt(t.voted),
                    opt(t.pocket)
                ));
            }
        }
    }
    let guarantees: Vec<String> = reports
        .iter()
        .filter_map(|report| {
            let g = report.verdict.margin_guarantee.as_ref()?;
            Some(match (g.promised, g.achieved) {
                (Some(promised), Some(achieved)) => format!(
                    "  {}: achieved {} ≥ promised {}: {}",
                    report.verdict.rule,
                    num(achieved),
                    num(promised),
                    yes_no(g.holds)
                ),
                _ => format!(
                    "  {}: not checked: {}",
                    report.verdict.rule,
                    g.reason.as_deref().unwrap_or("")
                ),
            })
        })
        .collect();
    if !guarantees.is_empty() {
        out.push_str(
            "\nmargin of (w, v) on (x, c) at convergence, against βγ'/(R'² + 2β) (η = 1):\n",
        );
        for line in &guarantees {
            out.push_str(line);
            out.push('\n');
        }
    }

    out.push_str(
        "\nthe proof's inequalities after every update k, minimum slack over the run\n\
         (dot: u·ŵ_k/(kηγ) − 1, norm: 1 − ‖ŵ_k‖²/(kη²R̂²), cos: cos(u, ŵ_k) − √k·γ/R̂; all ≥ 0):\n",
    );
    let mut rows = vec![
        [
            "rule",
            "converged",
            "updates",
            "γ",
            "R̂",
            "dot",
            "norm",
            "cos",
            "violations",
        ]
        .map(String::from)
        .to_vec(),
    ];
    let mut notes = Vec::new();
    for report in reports {
        let v = &report.verdict;
        let i = &v.invariants;
        rows.push(invariant_row(v, i));
        if i.status != InvariantStatus::Checked {
            notes.push(format!(
                "  {}: not checked: {}",
                v.rule,
                i.reason.as_deref().unwrap_or("")
            ));
        }
        if let Some(first) = &i.first_violation {
            notes.push(format!(
                "  {}: FIRST VIOLATION at update {}: {} with {} vs {} (tolerance {:.3e})",
                v.rule,
                first.update,
                first.inequality.statement(),
                first.lhs,
                first.rhs,
                first.tolerance
            ));
        }
        if !v.fit.converged {
            notes.push(format!(
                "  {}: the run stopped at its cap ({}) without converging",
                v.rule,
                v.fit.stop_reason.name()
            ));
        }
    }
    out.push_str(&render(&rows));
    for note in &notes {
        out.push_str(note);
        out.push('\n');
    }

    if steps {
        for report in reports {
            let v = &report.verdict;
            if v.invariants.steps.is_empty() {
                continue;
            }
            out.push_str(&format!("\nrule {}, update by update:\n", v.rule));
            let mut rows = vec![
                [
                    "k",
                    "u·ŵ_k",
                    "≥ kηγ",
                    "‖ŵ_k‖²",
                    "≤ kη²R̂²",
                    "cos(u, ŵ_k)",
                    "≥ √kγ/R̂",
                ]
                .map(String::from)
                .to_vec(),
            ];
            for s in &v.invariants.steps {
                rows.push(vec![
                    s.update.to_string(),
                    num(s.dot),
                    num(s.dot_bound),
                    num(s.norm_sq),
                    num(s.norm_sq_bound),
                    num(s.cos),
                    num(s.cos_bound),
                ]);
            }
            out.push_str(&render(&rows));
        }
    }

    for report in reports {
        if let Some(adversary) = &report.adversary {
            out.push_str(&format!(
                "\nadversarial orders, rule {} (bound {}):\n",
                adversary.rule,
                opt(adversary.bound)
            ));
            let mut rows = vec![
                ["order", "mistakes", "converged", "ratio", "invariants"]
                    .map(String::from)
                    .to_vec(),
            ];
            for run in &adversary.runs {
                rows.push(vec![
                    match run.strategy {
                        novikoff::bounds::Strategy::Random { seed } => {
                            format!("random (seed {seed})")
                        }
                        other => other.name().to_string(),
                    },
                    run.mistakes.to_string(),
                    run.converged.to_string(),
                    opt(run.ratio),
                    match run.invariants.holds() {
                        Some(true) => "hold".into(),
                        Some(false) => format!("VIOLATED ({})", run.invariants.violations),
                        None => "n/a".into(),
                    },
                ]);
            }
            out.push_str(&render(&rows));
            out.push_str(&format!(
                "highest mistakes/bound: {} ({})\n",
                opt(adversary.best_ratio),
                adversary.runs[adversary.best].strategy.name()
            ));
        }
    }
    use std::io::Write;
    std::io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}

fn bound_row(
    v: &Verdict,
    bound: &Bound,
    suffix: &str,
    ratio: Option<f64>,
    holds: Option<bool>,
) -> Vec<String> {
    vec![
        v.rule.clone(),
        format!("{}{suffix}", bound.name),
        bound.formula.to_string(),
        opt(bound.gamma),
        opt(bound.radius),
        bound.value.map(num).unwrap_or_else(|| "n/a".into()),
        match bound.measure {
            Measure::Mistakes => v.fit.mistakes.to_string(),
            Measure::Updates => format!("{} updates", v.fit.updates),
            Measure::SquaredLoss => format!("Σℓ² {}", opt(v.fit.history.squared_loss)),
            other => other.name().to_string(),
        },
        v.fit.epochs.to_string(),
        opt(ratio),
        yes_no(holds).to_string(),
    ]
}

fn invariant_row(v: &Verdict, i: &InvariantReport) -> Vec<String> {
    let checked = i.status == InvariantStatus::Checked;
    // The updates the check followed: none when it did not run, which a 0 here would misstate as a run
    // without updates (the run's own count is in the bounds table above).
    let updates = if checked {
        i.updates.to_string()
    } else {
        "n/a".into()
    };
    vec![
        v.rule.clone(),
        v.fit.converged.to_string(),
        updates,
        opt(i.gamma),
        opt(i.radius_eff),
        opt(i.min_dot_slack),
        opt(i.min_norm_slack),
        opt(i.min_cos_slack),
        if checked {
            i.violations.to_string()
        } else {
            "n/a".into()
        },
    ]
}
