//! `novikoff verify`: train with each bias rule and check every form of the theorem on the run.
//!
//! The exit status tells a script whether the theorem survived the run (see [`EXIT_STATUS`]): the report
//! goes to stdout either way, and every failed check is named on stderr.

use std::process::ExitCode;

use clap::Args;
use novikoff::bounds::{
    AdversaryParams, AdversaryReport, Bound, Geometry, GeometrySummary, InvariantReport,
    InvariantStatus, MarginSummary, VALUE_RTOL, Verdict, VerifyOptions, Violation,
    bounds_for_separator, search, verify_with_options,
};
use novikoff::perceptron::{BiasRule, StopReason};
use novikoff::{Dataset, Error, Result};
use serde_json::{Value, json};

use super::output::print_json;
use super::train::{TrainOptions, parse_bias};
use super::{DataArgs, OutputFormat};

/// The exit codes of `novikoff verify`, as its `--help` prints them.
const EXIT_STATUS: &str = "\
Exit status:
  0  every check passed: each applicable bound held and the proof's inequalities held after every
     update. Also when no bound applies (data that cannot be separated): nothing was promised.
  1  a check failed, and stderr says which: a run made more mistakes than an applicable bound (the
     optimal separator's, your --separator's, or an --adversary order's), an inequality of the proof
     failed beyond its rounding tolerance, or the weights overflowed while a bound promised convergence.
     Floating point can do this where exact arithmetic cannot, e.g. a subnormal --eta whose updates
     round to zero. (1 is also the code of a machine or solver failure, printed as `error: ...`.)
  2  bad input or usage: a file that does not parse, an invalid option value such as --eta -1.
A run stopped by --max-epochs or --max-updates before its bound was reached is not a failure.";

#[derive(Debug, Args)]
#[command(after_help = EXIT_STATUS)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// The bias rules to run, comma-separated: none, classic (b += ηy), novikoff (b += ηyR²), c=VALUE.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "none,classic,novikoff",
        value_parser = parse_bias
    )]
    pub rules: Vec<BiasRule>,
    #[command(flatten)]
    pub train: TrainOptions,
    /// Print every update's u·ŵ_k, ‖ŵ_k‖² and cosine against the proof's bounds.
    #[arg(long)]
    pub steps: bool,
    /// Also evaluate the bounds for this separator w (comma-separated weights, one per feature).
    #[arg(long, value_name = "W1,W2,...", value_delimiter = ',')]
    pub separator: Option<Vec<f64>>,
    /// The bias b of the separator given with --separator (default 0; needs --separator).
    #[arg(long, value_name = "B", requires = "separator")]
    pub separator_bias: Option<f64>,
    /// Also search for presentation orders that force more mistakes than the cyclic pass.
    #[arg(long)]
    pub adversary: bool,
    /// Random restarts of the adversarial search (default 8; needs --adversary).
    #[arg(long, requires = "adversary")]
    pub restarts: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// The adversarial search's random restarts without `--restarts`.
const DEFAULT_RESTARTS: usize = 8;

/// One rule's results.
struct RuleReport {
    verdict: Verdict,
    supplied: Option<Vec<Bound>>,
    adversary: Option<AdversaryReport>,
}

/// Run the checks and print the report; exit 1 (with the reasons on stderr) when a check failed.
pub fn run(args: &VerifyArgs) -> Result<ExitCode> {
    args.train
        .check_seed_is_used(args.adversary.then_some("--adversary"))?;
    let data = args.data.load()?;
    if args.rules.is_empty() {
        return Err(Error::parameter("rules", "name at least one bias rule"));
    }
    let geometry = Geometry::compute(&data)?;
    let options = VerifyOptions {
        invariants: true,
        record_steps: args.steps,
    };
    let mut reports = Vec::with_capacity(args.rules.len());
    for &rule in &args.rules {
        let params = args.train.params(rule);
        let perceptron = params.clone().check()?;
        let verdict = verify_with_options(&data, &geometry, &perceptron, &options)?;
        let supplied = match &args.separator {
            Some(w) => Some(bounds_for_separator(
                &data,
                &params,
                ndarray::ArrayView1::from(w.as_slice()),
                args.separator_bias.unwrap_or(0.0),
            )?),
            None => None,
        };
        let adversary = if args.adversary {
            let adversary_params = AdversaryParams::new()
                .restarts(args.restarts.unwrap_or(DEFAULT_RESTARTS))
                .seed(args.train.seed())
                .max_updates(args.train.max_updates);
            Some(search(&data, &geometry, &perceptron, &adversary_params)?)
        } else {
            None
        };
        reports.push(RuleReport {
            verdict,
            supplied,
            adversary,
        });
    }
    let source = args.data.data.display().to_string();
    let failures = failures(&reports);
    match args.format {
        OutputFormat::Json => print_json(&to_json(
            &source,
            &data,
            &geometry.summary(),
            &reports,
            &failures,
        )?),
        OutputFormat::Table => print_table(&source, &geometry.summary(), &reports, args.steps),
    }?;
    if failures.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "novikoff verify: {} check{} failed:",
        failures.len(),
        if failures.len() == 1 { "" } else { "s" }
    );
    for failure in &failures {
        eprintln!("  {failure}");
    }
    Ok(ExitCode::FAILURE)
}

/// Every failed check of every rule, one sentence each; empty when the theorem survived every run.
///
/// A cap (`--max-epochs`, `--max-updates`) that stops a run before its bound is reached is not a
/// failure: the theorem bounds the mistakes, and a run cut short has not exceeded them. (A run stopped
/// by the epoch cap E without converging made at least E mistakes, so an E above the bound shows up as
/// an exceeded bound.) An overflow is different: nobody chose it, and the run can no longer converge.
fn failures(reports: &[RuleReport]) -> Vec<String> {
    let mut failures = Vec::new();
    for report in reports {
        let v = &report.verdict;
        let rule = &v.rule;
        for checked in &v.bounds {
            if checked.holds == Some(false) {
                failures.push(exceeded(rule, &checked.bound, "", v.mistakes));
            }
        }
        for bound in report.supplied.iter().flatten() {
            if bound.holds_for(v.mistakes) == Some(false) {
                failures.push(exceeded(rule, bound, " (your separator)", v.mistakes));
            }
        }
        if let Some(violation) = &v.invariants.first_violation {
            failures.push(violated(rule, "", violation, v.invariants.violations));
        }
        if v.stop_reason == StopReason::NonFinite
            && let (Some(kind), Some(bound)) = (v.tightest, v.bound)
        {
            let name = v
                .bounds
                .iter()
                .find(|b| b.bound.kind == kind)
                .map_or("a bound", |b| b.bound.name);
            failures.push(format!(
                "rule {rule}: the weights overflowed to a non-finite value at update {}, so the run \
                 cannot converge, although {name} promises convergence after at most {} mistakes",
                v.mistakes,
                num(bound)
            ));
        }
        if let Some(adversary) = &report.adversary {
            for run in &adversary.runs {
                let order = format!(" (order {})", run.strategy.name());
                if let Some(bound) = adversary.bound
                    && run.mistakes as f64 > bound * (1.0 + VALUE_RTOL)
                {
                    failures.push(format!(
                        "rule {rule}{order}: {} mistakes exceed the bound {}",
                        run.mistakes,
                        num(bound)
                    ));
                }
                if let Some(violation) = &run.invariants.first_violation {
                    failures.push(violated(rule, &order, violation, run.invariants.violations));
                }
            }
        }
    }
    failures
}

fn exceeded(rule: &str, bound: &Bound, suffix: &str, mistakes: u64) -> String {
    format!(
        "rule {rule}: {}{suffix} {} fails: {mistakes} mistakes exceed the bound {}",
        bound.name,
        bound.formula,
        bound.value.map(num).unwrap_or_default()
    )
}

fn violated(rule: &str, suffix: &str, violation: &Violation, count: u64) -> String {
    format!(
        "rule {rule}{suffix}: the proof's inequality {} fails at update {}: {} against {} \
         (tolerance {:.3e}); {count} violation{} in all",
        violation.inequality.statement(),
        violation.update,
        violation.lhs,
        violation.rhs,
        violation.tolerance,
        if count == 1 { "" } else { "s" }
    )
}

fn to_json(
    source: &str,
    data: &Dataset,
    geometry: &GeometrySummary,
    reports: &[RuleReport],
    failures: &[String],
) -> Result<Value> {
    let mut rules = Vec::with_capacity(reports.len());
    for report in reports {
        let mut rule = to_value(&report.verdict)?;
        if let Some(object) = rule.as_object_mut() {
            if let Some(supplied) = &report.supplied {
                object.insert("supplied_separator_bounds".into(), to_value(supplied)?);
            }
            if let Some(adversary) = &report.adversary {
                object.insert("adversary".into(), to_value(adversary)?);
            }
        }
        rules.push(rule);
    }
    let bracket = |m: &MarginSummary| m.bracket.map(|b| json!(b)).unwrap_or(Value::Null);
    let certificate = geometry.margins.free_bias.certificate.as_ref().or(geometry
        .margins
        .augmented_one
        .certificate
        .as_ref());
    Ok(json!({
        "data": source,
        "n": data.n_samples(),
        "d": data.n_features(),
        "radius": geometry.radius,
        "separable": geometry.separable,
        "separable_through_origin": geometry.separable_through_origin,
        "gamma": {
            "through_origin": bracket(&geometry.margins.through_origin),
            "free_bias": bracket(&geometry.margins.free_bias),
            "augmented_one": bracket(&geometry.margins.augmented_one),
            "augmented_radius": bracket(&geometry.margins.augmented_radius),
        },
        "certificate": to_value(&certificate)?,
        "geometry": to_value(geometry)?,
        "rules": rules,
        "passed": failures.is_empty(),
        "failures": failures,
    }))
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<Value> {
    serde_json::to_value(value).map_err(|e| Error::io("<json>", std::io::Error::other(e)))
}

/// A number in at most 6 significant digits, trailing zeros trimmed.
fn num(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v != 0.0 && (v.abs() >= 1e6 || v.abs() < 1e-4) {
        return format!("{v:.5e}");
    }
    let digits = (5 - v.abs().log10().floor().max(-10.0) as i32).clamp(0, 10) as usize;
    let text = format!("{v:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

fn opt(v: Option<f64>) -> String {
    v.map(num).unwrap_or_else(|| "—".into())
}

fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "NO",
        None => "n/a",
    }
}

fn margin_line(m: &MarginSummary) -> String {
    match (m.status, m.bracket) {
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

fn print_table(
    source: &str,
    geometry: &GeometrySummary,
    reports: &[RuleReport],
    steps: bool,
) -> Result<()> {
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
                (true, true) => "yes, also through the origin".into(),
                (true, false) => "with a bias only, not through the origin".into(),
                (false, _) => "NO: no bound applies".into(),
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
                super::output::format_vector(&c.weights),
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
    for report in reports {
        let v = &report.verdict;
        let listed = |bound: &Bound| bound.hypotheses.first().is_some_and(|h| h.holds);
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
        }
        for bound in report.supplied.iter().flatten().filter(|b| listed(b)) {
            rows.push(bound_row(
                v,
                bound,
                " (your separator)",
                bound.ratio(v.mistakes),
                bound.holds_for(v.mistakes),
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
                v.mistakes.to_string(),
                v.epochs.to_string(),
                "—".into(),
                "n/a".into(),
            ]);
        }
    }
    out.push_str(&render(&rows));
    if !reasons.is_empty() {
        out.push_str("\nnot applicable:\n");
        for reason in &reasons {
            out.push_str(&format!("  {reason}\n"));
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
        if !v.converged {
            notes.push(format!(
                "  {}: the run stopped at its cap ({}) without converging",
                v.rule,
                v.stop_reason.name()
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
        v.mistakes.to_string(),
        v.epochs.to_string(),
        opt(ratio),
        yes_no(holds).to_string(),
    ]
}

fn invariant_row(v: &Verdict, i: &InvariantReport) -> Vec<String> {
    vec![
        v.rule.clone(),
        v.converged.to_string(),
        i.updates.to_string(),
        opt(i.gamma),
        opt(i.radius_eff),
        opt(i.min_dot_slack),
        opt(i.min_norm_slack),
        opt(i.min_cos_slack),
        match i.status {
            InvariantStatus::Checked => i.violations.to_string(),
            _ => "n/a".into(),
        },
    ]
}

/// Left-aligned columns separated by two spaces.
fn render(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|j| {
            rows.iter()
                .filter_map(|r| r.get(j))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (j, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if j + 1 < row.len() {
                let pad = widths[j] - cell.chars().count() + 2;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
