//! `--kernel`: `train`, `margin` and `verify` in the feature space of a kernel. Parsing and rendering
//! only; the kernel perceptron, the certified margin and every check are the library's.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use novikoff::bounds::{Failure, InvariantStatus};
use novikoff::kernel::{
    self, Gamma, GramMatrix, Kernel, KernelFit, KernelGeometry, KernelKind, KernelMarginParams,
    KernelMarginResult, KernelParams, KernelPerceptronParams, KernelVerdict, KernelVerifyOptions,
};
use novikoff::margin::Bias;
use novikoff::perceptron::{BiasRule, Variant};
use novikoff::{Dataset, Error, Location, Result};
use serde_json::json;

use super::output::{num, opt, print_json, print_pairs, render, yes_no};
use super::train::TrainOptions;
use super::{DataArgs, OutputFormat};

/// The kernel options of `train`, `margin` and `verify`.
#[derive(Debug, Clone, Args)]
pub struct KernelArgs {
    /// Learn in the feature space of a kernel: linear, poly, rbf, or precomputed (with --gram).
    #[arg(long, value_name = "KERNEL")]
    pub kernel: Option<String>,
    /// The polynomial kernel's degree (default 3).
    #[arg(long, value_name = "D")]
    pub degree: Option<u32>,
    /// The polynomial kernel's constant c₀ ≥ 0 (default 0).
    #[arg(long, value_name = "C")]
    pub coef0: Option<f64>,
    /// γ of the poly and rbf kernels: a positive number, scale (1/(d·Var X), the default) or auto (1/d).
    #[arg(long, value_name = "G")]
    pub kernel_gamma: Option<String>,
    /// The rbf kernel's bandwidth σ, γ = 1/(2σ²) (instead of --kernel-gamma).
    #[arg(long, value_name = "SIGMA", conflicts_with = "kernel_gamma")]
    pub bandwidth: Option<f64>,
    /// The Gram matrix of --kernel precomputed: .npy, or text without a header (n × n; the data file
    /// gives the labels).
    #[arg(long, value_name = "FILE")]
    pub gram: Option<PathBuf>,
    /// The Gram-row cache's memory budget, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 200)]
    pub cache_mb: usize,
}

impl KernelArgs {
    /// The kernel asked for, with γ chosen on the training data; `None` without `--kernel`.
    pub fn kernel(&self, data: &Dataset) -> Result<Option<Kernel>> {
        let Some(name) = &self.kernel else {
            for (flag, given) in [
                ("--degree", self.degree.is_some()),
                ("--coef0", self.coef0.is_some()),
                ("--kernel-gamma", self.kernel_gamma.is_some()),
                ("--bandwidth", self.bandwidth.is_some()),
                ("--gram", self.gram.is_some()),
            ] {
                if given {
                    return Err(Error::parameter(
                        "--kernel",
                        format!("{flag} describes a kernel: name one with --kernel"),
                    ));
                }
            }
            return Ok(None);
        };
        let kind = KernelKind::parse(name).map_err(|e| rename(e, "--kernel"))?;
        let poly = kind == KernelKind::Polynomial;
        let rbf = kind == KernelKind::Rbf;
        for (flag, given, allowed, which) in [
            ("--degree", self.degree.is_some(), poly, "--kernel poly"),
            ("--coef0", self.coef0.is_some(), poly, "--kernel poly"),
            (
                "--kernel-gamma",
                self.kernel_gamma.is_some(),
                poly || rbf,
                "--kernel poly and rbf",
            ),
            ("--bandwidth", self.bandwidth.is_some(), rbf, "--kernel rbf"),
            (
                "--gram",
                self.gram.is_some(),
                kind == KernelKind::Precomputed,
                "--kernel precomputed",
            ),
        ] {
            if given && !allowed {
                return Err(Error::parameter(
                    "--kernel",
                    format!(
                        "{flag} applies to {which} only, not to --kernel {}",
                        kind.name()
                    ),
                ));
            }
        }
        let mut params = match kind {
            KernelKind::Precomputed => {
                let path = self.gram.as_ref().ok_or_else(|| {
                    Error::parameter(
                        "--gram",
                        "--kernel precomputed reads its Gram matrix from --gram FILE",
                    )
                })?;
                let matrix = novikoff::io::read_matrix(path)?;
                let gram = GramMatrix::new(matrix).map_err(|e| in_file(e, path))?;
                KernelParams::precomputed(gram)
            }
            other => KernelParams::new(other),
        };
        if let Some(degree) = self.degree {
            params = params.degree(degree);
        }
        if let Some(coef0) = self.coef0 {
            params = params.coef0(coef0);
        }
        if let Some(gamma) = &self.kernel_gamma {
            params = params.gamma(Gamma::parse(gamma).map_err(|e| rename(e, "--kernel-gamma"))?);
        }
        if let Some(sigma) = self.bandwidth {
            params = params.bandwidth(sigma);
        }
        let kernel = params.check_for(data).map_err(|e| match e {
            Error::Parameter { name, reason } => Error::parameter(flag_of(name), reason),
            Error::Shape {
                expected, found, ..
            } => Error::parse(
                Location::new(self.gram.clone().unwrap_or_default()),
                format!(
                    "the Gram matrix is {found} × {found}, but the data have {expected} examples"
                ),
            ),
            other => other,
        })?;
        Ok(Some(kernel))
    }

    /// The cache budget in bytes.
    pub fn cache_bytes(&self) -> usize {
        self.cache_mb.saturating_mul(1 << 20)
    }
}

fn flag_of(name: &'static str) -> &'static str {
    match name {
        "kernel_gamma" => "--kernel-gamma",
        "degree" => "--degree",
        "coef0" => "--coef0",
        "gram" => "--gram",
        other => other,
    }
}

fn rename(error: Error, flag: &'static str) -> Error {
    match error {
        Error::Parameter { reason, .. } => Error::parameter(flag, reason),
        other => other,
    }
}

/// A refusal of the Gram matrix, at its file.
fn in_file(error: Error, path: &std::path::Path) -> Error {
    match error {
        Error::Parameter { reason, .. } => Error::parse(Location::new(path), reason),
        other => other,
    }
}

/// The kernel perceptron's parameters from the training options.
pub fn params(
    train: &TrainOptions,
    bias: BiasRule,
    kernel: &Kernel,
    cache_bytes: usize,
) -> Result<KernelPerceptronParams> {
    if train.variant != Variant::Perceptron {
        return Err(Error::parameter(
            "--variant",
            format!(
                "the kernel perceptron runs the plain perceptron's updates; {} is not offered with --kernel",
                train.variant.name()
            ),
        ));
    }
    let primal = train.params(bias);
    Ok(KernelPerceptronParams::new(kernel.clone())
        .bias(bias)
        .eta(train.eta)
        .order(primal.clone().check()?.order().clone())
        .max_epochs(train.max_epochs)
        .max_updates(train.max_updates)
        .summation(train.summation.into())
        .cache_bytes(cache_bytes))
}

/// The held-out data of `--test`, for a kernel with rows (a precomputed kernel has none).
pub fn test_data(
    train: &TrainOptions,
    data: &DataArgs,
    d: usize,
    kernel: &Kernel,
) -> Result<Option<Dataset>> {
    if train.test.is_some() && kernel.gram().is_some() {
        return Err(Error::parameter(
            "--test",
            "a precomputed kernel predicts from the Gram matrix between the test and the training \
             examples, which the command line does not read: use KernelFit::decision_function_gram",
        ));
    }
    train.load_test(data, d)
}

/// `novikoff train --kernel …`.
pub fn train(
    source: &str,
    data: &Dataset,
    params: &KernelPerceptronParams,
    test: Option<&Dataset>,
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
    match format {
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
                ("radius R_K", radius.to_string()),
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
                ("b", fit.b.to_string()),
                ("‖w‖² in the RKHS", fit.norm_sq.to_string()),
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
            "separable": result.is_separable(),
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
                ("radius R_K", radius.to_string()),
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
                        other.gamma().unwrap_or(f64::NAN).to_string(),
                    ));
                    pairs.push((
                        "certified bracket",
                        format!(
                            "[{lower}, {upper}] (relative width {:.1e})",
                            (upper - lower) / upper
                        ),
                    ));
                    if lower > 0.0 {
                        pairs.push(("(R_K/γ_K*)²", (radius / lower).powi(2).to_string()));
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
    super::verify::finish(&failures)
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
