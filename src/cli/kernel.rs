//! `--kernel`: `train`, `margin` and `verify` in the feature space of a kernel. Parsing and rendering
//! only; the kernel perceptron, the certified margin and every check are the library's.

use std::process::ExitCode;
use std::time::Instant;

use novikoff::bounds::{Failure, InvariantStatus};
use novikoff::kernel::{
    self, Kernel, KernelFit, KernelGeometry, KernelMarginParams, KernelMarginResult,
    KernelPerceptronParams, KernelVerdict, KernelVerifyOptions,
};
use novikoff::margin::Bias;
use novikoff::model::ModelFile;
use novikoff::perceptron::{PerceptronParams, Variant};
use novikoff::{Dataset, Error, Result};
use serde_json::json;

pub use super::kernel_args::KernelArgs;
use super::output::{num, opt, print_json, print_pairs, render, round_trip, yes_no};
use super::{DataArgs, OutputFormat};

/// The kernel perceptron with a run's settings.
pub fn params(
    base: &PerceptronParams,
    kernel: &Kernel,
    cache_bytes: usize,
) -> Result<KernelPerceptronParams> {
    Ok(
        KernelPerceptronParams::from_perceptron(base, kernel.clone())
            .map_err(|e| rename_any(e, &[("variant", "--variant")]))?
            .cache_bytes(cache_bytes),
    )
}

/// Name a library parameter by its flag.
pub fn rename_any(error: Error, flags: &[(&'static str, &'static str)]) -> Error {
    match error {
        Error::Parameter { name, reason } => Error::parameter(
            flags
                .iter()
                .find(|(n, _)| *n == name)
                .map_or(name, |(_, flag)| flag),
            reason,
        ),
        other => other,
    }
}

/// The held-out data of `--test`, read like the training data, for a kernel with rows (a precomputed
/// kernel has none).
pub fn test_data(
    test: Option<&std::path::Path>,
    data: &DataArgs,
    d: usize,
    kernel: &Kernel,
) -> Result<Option<Dataset>> {
    let Some(path) = test else {
        return Ok(None);
    };
    if kernel.gram().is_some() {
        return Err(Error::parameter(
            "--test",
            "a precomputed kernel predicts from the Gram matrix between the test and the training \
             examples, which the command line does not read: use KernelFit::decision_function_gram",
        ));
    }
    let mut args = data.clone();
    args.data = path.to_path_buf();
    args.features = Some(d);
    args.load().map(Some)
}

/// `novikoff train --kernel …`, the model saved after the report when `save` names a file.
pub fn train(
    source: &str,
    data: &Dataset,
    params: &KernelPerceptronParams,
    test: Option<&Dataset>,
    save: Option<&std::path::Path>,
    format: OutputFormat,
) -> Result<()> {
    let fit = params.clone().check()?.fit(data)?;
    let accuracy = fit.accuracy(data);
    let accuracy = match accuracy {
        Ok(a) => Some(a),
        Err(_) if fit.kernel.gram().is_some() => None,
        Err(e) => return Err(e),
    };
    let test_accuracy = test.map(|t| fit.accuracy(t)).transpose()?;
    let radius = kernel::radius(&fit.kernel, data)?;
    let printed = match format {
        OutputFormat::Json => print_json(&json!({
            "data": source,
            "n": data.n_samples(),
            "d": data.n_features(),
            "kernel": kernel::KernelSummary::of(&fit.kernel),
            "radius": radius,
            "bias": params.bias_rule().name(),
            "bias_constant": fit.bias_constant,
            "converged": fit.converged,
            "stop_reason": fit.stop_reason.name(),
            "mistakes": fit.mistakes,
            "epochs": fit.epochs,
            "support_vectors": fit.support.len(),
            "alpha": fit.alpha,
            "b": fit.b,
            "norm_sq": fit.norm_sq,
            "representation": fit.representation,
            "accuracy": accuracy,
            "test_accuracy": test_accuracy,
            "cache": fit.cache,
            "train_seconds": fit.train_seconds,
        })),
        OutputFormat::Table => {
            let mut pairs = vec![
                ("data", source.to_string()),
                (
                    "n × d",
                    format!("{} × {}", data.n_samples(), data.n_features()),
                ),
                ("kernel", fit.kernel.describe()),
                ("radius R_K", round_trip(radius)),
                (
                    "bias rule",
                    format!(
                        "{} (K + c², c = {})",
                        params.bias_rule().name(),
                        fit.bias_constant
                    ),
                ),
                ("converged", fit.converged.to_string()),
                ("stop reason", fit.stop_reason.name().to_string()),
                ("mistakes", fit.mistakes.to_string()),
                ("epochs", fit.epochs.to_string()),
                (
                    "support vectors",
                    format!("{} (rows with αᵢ > 0)", fit.support.len()),
                ),
                ("b", round_trip(fit.b)),
                ("‖w‖² in the RKHS", round_trip(fit.norm_sq)),
            ];
            if let Some(a) = accuracy {
                pairs.push(("training accuracy", a.to_string()));
            }
            if let (Some(a), Some(t)) = (test_accuracy, test) {
                pairs.push(("test accuracy", format!("{a} (n = {})", t.n_samples())));
            }
            pairs.push(("Gram cache", cache_line(&fit)));
            pairs.push(("train seconds", format!("{:.6}", fit.train_seconds)));
            print_pairs(&pairs)
        }
    };
    printed?;
    match save {
        Some(path) => ModelFile::from_kernel_fit(&fit, params, data, Some(source))?.save(path),
        None => Ok(()),
    }
}

fn cache_line(fit: &KernelFit) -> String {
    let c = fit.cache;
    if fit.kernel.gram().is_some() {
        return "the user's Gram matrix".into();
    }
    if c.misses == 0 && c.hits == 0 {
        return format!("not used ({} representation)", fit.representation_name());
    }
    format!(
        "{} rows computed, {} reused; peak {:.1} MiB of a {:.0} MiB budget",
        c.misses,
        c.hits,
        c.peak_bytes as f64 / (1 << 20) as f64,
        c.budget_bytes as f64 / (1 << 20) as f64
    )
}

trait RepresentationName {
    fn representation_name(&self) -> &'static str;
}

impl RepresentationName for KernelFit {
    fn representation_name(&self) -> &'static str {
        match self.representation {
            kernel::Representation::Explicit => "explicit",
            kernel::Representation::Dual => "dual",
            kernel::Representation::Auto => "auto",
        }
    }
}

/// `novikoff margin --kernel …`.
pub fn margin(
    source: &str,
    data: &Dataset,
    kernel: &Kernel,
    bias: Bias,
    tolerance: f64,
    cache_bytes: usize,
    format: OutputFormat,
) -> Result<()> {
    let solver = KernelMarginParams::new(bias)
        .tolerance(tolerance)
        .cache_bytes(cache_bytes)
        .check()?;
    let start = Instant::now();
    let result = solver.solve(data, kernel)?;
    let seconds = start.elapsed().as_secs_f64();
    let radius = kernel::radius(kernel, data)?;
    let stats = result.stats();
    match format {
        OutputFormat::Json => print_json(&json!({
            "data": source,
            "n": data.n_samples(),
            "d": data.n_features(),
            "kernel": kernel::KernelSummary::of(kernel),
            "bias": bias.name(),
            "radius": radius,
            "status": result.status(),
            "separable": result.separability(),
            "gamma": result.gamma(),
            "gamma_lower": result.bracket().map(|b| b.0),
            "gamma_upper": result.bracket().map(|b| b.1),
            "b": result.separator().map(|s| s.b),
            "support": result.separator().map(|s| s.coef.iter().filter(|c| **c != 0.0).count()),
            "certificate": result.certificate(),
            "reason": match &result { KernelMarginResult::Inaccurate { reason, .. } => Some(reason.clone()), _ => None },
            "stats": stats,
            "solve_seconds": seconds,
        })),
        OutputFormat::Table => {
            let mut pairs = vec![
                ("data", source.to_string()),
                (
                    "n × d",
                    format!("{} × {}", data.n_samples(), data.n_features()),
                ),
                ("kernel", kernel.describe()),
                ("radius R_K", round_trip(radius)),
                ("bias", bias.name().to_string()),
            ];
            match &result {
                KernelMarginResult::NotSeparable { certificate, .. } => {
                    let rows: Vec<String> = certificate
                        .weights
                        .iter()
                        .enumerate()
                        .filter(|(_, w)| **w > 0.0)
                        .take(6)
                        .map(|(i, w)| format!("row {i}: {w:.6}"))
                        .collect();
                    pairs.push((
                        "result",
                        "not separable in the feature space: a certificate (weights on the rows whose \
                         combination in the feature space is the origin, or a common point of the classes' hulls)"
                            .into(),
                    ));
                    pairs.push(("certificate weights", rows.join("; ")));
                    pairs.push((
                        "residual",
                        format!(
                            "{:e} (checkable with the weights in --format json)",
                            certificate.residual
                        ),
                    ));
                }
                other => {
                    let (lower, upper) = other.bracket().expect("a bracket");
                    pairs.push((
                        "result",
                        if other.status() == "separable" {
                            "separable in the feature space".to_string()
                        } else {
                            format!(
                                "not resolved to the requested accuracy: {}",
                                match other {
                                    KernelMarginResult::Inaccurate { reason, .. } =>
                                        reason.as_str(),
                                    _ => "",
                                }
                            )
                        },
                    ));
                    pairs.push((
                        "max margin γ_K*",
                        round_trip(other.gamma().unwrap_or(f64::NAN)),
                    ));
                    pairs.push((
                        "certified bracket",
                        format!(
                            "[{}, {}] (relative width {:.1e})",
                            round_trip(lower),
                            round_trip(upper),
                            (upper - lower) / upper
                        ),
                    ));
                    if lower > 0.0 {
                        pairs.push(("(R_K/γ_K*)²", round_trip((radius / lower).powi(2))));
                    }
                    pairs.push(("support vectors", stats.support.to_string()));
                }
            }
            pairs.push((
                "solver effort",
                format!(
                    "{} pair updates; {} Gram rows computed{}; certified in {:.3} s",
                    stats.iterations,
                    stats.rows_computed,
                    if stats.full_gram {
                        " (the whole matrix held)"
                    } else {
                        ""
                    },
                    stats.certify_seconds
                ),
            ));
            pairs.push(("solve seconds", format!("{seconds:.6}")));
            print_pairs(&pairs)
        }
    }
}

/// `novikoff verify --kernel …`: every rule against every form of the theorem in the feature space.
pub fn verify(
    source: &str,
    data: &Dataset,
    runs: &[KernelPerceptronParams],
    steps: bool,
    format: OutputFormat,
) -> Result<ExitCode> {
    let kernel = &runs[0].kernel().clone();
    let geometry = KernelGeometry::compute(data, kernel)?;
    let options = KernelVerifyOptions {
        invariants: true,
        record_steps: steps,
    };
    let verdicts = runs
        .iter()
        .map(|p| kernel::verify_with(&geometry, p, &options))
        .collect::<Result<Vec<KernelVerdict>>>()?;
    let failures: Vec<Failure> = verdicts.iter().flat_map(KernelVerdict::failures).collect();
    match format {
        OutputFormat::Json => print_json(&json!({
            "data": source,
            "n": data.n_samples(),
            "d": data.n_features(),
            "geometry": geometry.summary(),
            "rules": verdicts,
            "passed": failures.is_empty(),
            "failures": failures.iter().map(ToString::to_string).collect::<Vec<_>>(),
        }))?,
        OutputFormat::Table => print_verify_table(source, &geometry, &verdicts)?,
    }
    super::output::finish(&failures)
}

fn bracket_line(summary: &kernel::KernelSolveSummary) -> String {
    match (summary.status, summary.bracket) {
        (_, Some([lo, hi])) => format!("γ_K ∈ [{}, {}]", num(lo), num(hi)),
        ("not_separable", _) => format!(
            "not separable (certificate, residual {:.2e})",
            summary.residual.unwrap_or(f64::NAN)
        ),
        (status, _) => format!("{status}: {}", summary.reason.clone().unwrap_or_default()),
    }
}

fn print_verify_table(
    source: &str,
    geometry: &KernelGeometry<'_>,
    verdicts: &[KernelVerdict],
) -> Result<()> {
    let summary = geometry.summary();
    let pairs = [
        ("data", source.to_string()),
        ("n", summary.n.to_string()),
        ("kernel", geometry.kernel.describe()),
        ("radius R_K", num(summary.radius)),
        (
            "unit norm in the RKHS",
            format!(
                "{} (‖φ(x)‖ ∈ [{}, {}])",
                yes_no(Some(summary.unit_norm)),
                num(summary.min_norm),
                num(summary.radius)
            ),
        ),
        (
            "margin, through origin",
            bracket_line(&summary.through_origin),
        ),
        ("margin, free bias", bracket_line(&summary.free_bias)),
        ("margin of (φ(x), 1)", bracket_line(&summary.augmented_one)),
        (
            "margin of (φ(x), R_K)",
            bracket_line(&summary.augmented_radius),
        ),
    ];
    print_pairs(&pairs)?;
    let mut rows = vec![
        [
            "rule", "bound", "formula", "γ", "R", "bound", "mistakes", "epochs", "ratio", "holds",
        ]
        .map(String::from)
        .to_vec(),
    ];
    let mut notes = Vec::new();
    for v in verdicts {
        let mut any = false;
        for checked in v.bounds.iter().filter(|b| {
            b.bound.hypotheses.first().is_some_and(|h| h.holds)
                && b.bound.kind.speaks_of(Variant::Perceptron)
        }) {
            let b = &checked.bound;
            any = true;
            rows.push(vec![
                v.rule.clone(),
                b.name.to_string(),
                b.formula.to_string(),
                opt(b.gamma),
                opt(b.radius),
                opt(b.value),
                v.mistakes.to_string(),
                v.epochs.to_string(),
                opt(checked.ratio),
                yes_no(checked.holds).to_string(),
            ]);
            if let Some(reason) = &b.reason {
                notes.push(format!("  {} / {}: {reason}", v.rule, b.name));
            }
        }
        if !any {
            rows.push(vec![v.rule.clone(), "no form speaks of this rule".into()]);
        }
    }
    let mut out = String::from("\nin the feature space (x stands for φ(x), ‖x‖² for K(x, x)):\n");
    out.push_str(&render(&rows));
    if !notes.is_empty() {
        out.push_str("\nnot applicable:\n");
        for note in &notes {
            out.push_str(note);
            out.push('\n');
        }
    }
    out.push_str("\nthe proof's inequalities in the RKHS after every update (u·ŵ_k = Σ αⱼηyⱼ·u·φ̂(xⱼ), ‖ŵ_k‖² = η²αᵀYK̂Yα):\n");
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
    for v in verdicts {
        let i = &v.invariants;
        rows.push(vec![
            v.rule.clone(),
            v.converged.to_string(),
            i.updates.to_string(),
            opt(i.gamma),
            opt(i.radius_eff),
            opt(i.min_dot_slack),
            opt(i.min_norm_slack),
            opt(i.min_cos_slack),
            i.violations.to_string(),
        ]);
    }
    out.push_str(&render(&rows));
    for v in verdicts {
        if v.invariants.status != InvariantStatus::Checked {
            out.push_str(&format!(
                "  {}: not checked: {}\n",
                v.rule,
                v.invariants.reason.as_deref().unwrap_or("")
            ));
        }
    }
    print!("{out}");
    Ok(())
}
