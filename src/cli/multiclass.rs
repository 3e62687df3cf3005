//! `--multiclass ovr|kesler`: `train`, `margin` and `verify` on data with `k ≥ 2` classes. Parsing and
//! rendering only.

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use novikoff::bounds::InvariantStatus;
use novikoff::dataset::MulticlassDataset;
use novikoff::kernel::Kernel;
use novikoff::margin::{self, Bias, MarginResult};
use novikoff::model::ModelFile;
use novikoff::multiclass::{
    BinaryLearner, ConfusionMatrix, LiftedGeometry, Method, MulticlassPerceptronParams,
    MulticlassRuns, MulticlassVerdict, OneVsRest,
};
use novikoff::perceptron::{BiasRule, PerceptronParams};
use novikoff::{Error, Result};
use serde_json::json;

use super::kernel::KernelArgs;
use super::output::{num, opt, print_json, print_pairs, render, yes_no};
use super::{DataArgs, OutputFormat};

/// The multi-class option of `train`, `margin` and `verify`.
#[derive(Debug, Clone, Args)]
pub struct MulticlassArgs {
    /// Keep every class of the labels: ovr (one binary problem per class, in parallel) or kesler (the
    /// multi-class perceptron, checked on Kesler's lifted vectors).
    #[arg(long, value_name = "METHOD", value_parser = parse_method)]
    pub multiclass: Option<Method>,
}

fn parse_method(text: &str) -> std::result::Result<Method, String> {
    Method::parse(text).map_err(|e| e.to_string())
}

/// Read the data with every class kept.
pub fn load(data: &DataArgs) -> Result<MulticlassDataset> {
    if data.positive.is_some() {
        return Err(Error::parameter(
            "--positive",
            "--positive maps the labels to two classes; --multiclass keeps every class: drop one",
        ));
    }
    novikoff::io::open_multiclass(&data.data, &data.read_options()?)
}

/// `--test`, read against the training classes.
pub fn load_test(
    test: Option<&std::path::Path>,
    data: &DataArgs,
    training: &MulticlassDataset,
) -> Result<Option<MulticlassDataset>> {
    let Some(path) = test else {
        return Ok(None);
    };
    let options = data.read_options()?.n_features(training.n_features());
    novikoff::io::open_multiclass_as(path, &options, training.classes()).map(Some)
}

fn kesler_params(base: &PerceptronParams) -> Result<MulticlassPerceptronParams> {
    MulticlassPerceptronParams::from_perceptron(base)
        .map_err(|e| super::kernel::rename_any(e, &[("variant", "--variant")]))
}

/// The binary learner of one-vs-rest.
fn learner(
    base: &PerceptronParams,
    kernel: Option<&Kernel>,
    kernel_args: &KernelArgs,
) -> Result<BinaryLearner> {
    Ok(match kernel {
        Some(kernel) => BinaryLearner::Kernel(super::kernel::params(
            base,
            kernel,
            kernel_args.cache_bytes(),
        )?),
        None => BinaryLearner::Linear(base.clone()),
    })
}

/// The kernel of one-vs-rest (the multi-class perceptron has none).
fn kernel_of(
    method: Method,
    data: &MulticlassDataset,
    args: &KernelArgs,
) -> Result<Option<Kernel>> {
    let kernel = args.kernel(data.features())?;
    if kernel.is_some() && method == Method::Kesler {
        return Err(Error::parameter(
            "--kernel",
            "the multi-class perceptron is offered in the input space only; with a kernel use \
             --multiclass ovr",
        ));
    }
    Ok(kernel)
}

pub(super) fn confusion_text(m: &ConfusionMatrix) -> String {
    let mut rows = vec![
        std::iter::once("true \\ predicted".to_string())
            .chain(m.classes.iter().cloned())
            .collect::<Vec<_>>(),
    ];
    for (class, counts) in m.classes.iter().zip(&m.counts) {
        rows.push(
            std::iter::once(class.clone())
                .chain(counts.iter().map(u64::to_string))
                .collect(),
        );
    }
    render(&rows)
}

/// `novikoff train --multiclass …`, the binary learner's parameters in `base`; the model is saved
/// after the report when `save` names a file.
pub fn train(
    data_args: &DataArgs,
    base: &PerceptronParams,
    test: Option<&std::path::Path>,
    method: Method,
    kernel_args: &KernelArgs,
    save: Option<&std::path::Path>,
    format: OutputFormat,
) -> Result<()> {
    let source = &data_args.data.display().to_string();
    let data = load(data_args)?;
    let kernel = kernel_of(method, &data, kernel_args)?;
    let test = load_test(test, data_args, &data)?;
    let bias = base.bias_rule();
    let started = Instant::now();
    let model;
    let (summary, train_confusion, test_confusion) = match method {
        Method::Kesler => {
            let learner = kesler_params(base)?.check()?;
            let fit = learner.fit(&data)?;
            model =
                save.map(|_| ModelFile::from_multiclass_fit(&fit, &learner, &data, Some(source)));
            let confusion = fit.confusion(&data)?;
            let tested = test.as_ref().map(|t| fit.confusion(t)).transpose()?;
            (
                json!({"mistakes": fit.mistakes, "epochs": fit.epochs, "converged": fit.converged,
                       "stop_reason": fit.stop_reason.name(), "train_seconds": fit.train_seconds, "w": fit.w.rows().into_iter().map(|r| r.to_vec()).collect::<Vec<_>>(),
                       "b": fit.b.to_vec()}),
                confusion,
                tested,
            )
        }
        Method::OneVsRest => {
            let learner = learner(base, kernel.as_ref(), kernel_args)?;
            let ovr = OneVsRest::fit(&data, &learner)?;
            model = save.map(|_| match &learner {
                BinaryLearner::Kernel(params) => {
                    ModelFile::from_kernel_one_vs_rest(&ovr, params, &data, Some(source))
                }
                _ => ModelFile::from_one_vs_rest(&ovr, base, &data, Some(source)),
            });
            let tested = test.as_ref().map(|t| ovr.confusion(t)).transpose()?;
            (
                json!({"mistakes": ovr.mistakes,
                       "classes": ovr.classes.iter().map(|c| json!({"class": c.class, "mistakes": c.verdict.mistakes(), "converged": c.verdict.converged()})).collect::<Vec<_>>()}),
                ovr.confusion.clone(),
                tested,
            )
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    let printed = match format {
        OutputFormat::Json => print_json(&json!({
            "data": source,
            "n": data.n_samples(),
            "d": data.n_features(),
            "classes": data.classes(),
            "multiclass": method.name(),
            "kernel": kernel.as_ref().map(novikoff::kernel::KernelSummary::of),
            "bias": bias.name(),
            "run": summary,
            "accuracy": train_confusion.accuracy(),
            "confusion": train_confusion,
            "test": test_confusion.as_ref().map(|m| json!({"n": m.total(), "accuracy": m.accuracy(), "confusion": m})),
            "seconds": seconds,
        })),
        OutputFormat::Table => {
            let mut pairs = vec![
                ("data", source.to_string()),
                (
                    "n × d",
                    format!("{} × {}", data.n_samples(), data.n_features()),
                ),
                (
                    "classes",
                    format!("{} ({})", data.n_classes(), data.classes().join(", ")),
                ),
                ("method", method_name(method, kernel.as_ref())),
                ("bias rule", bias.name()),
                ("mistakes", summary["mistakes"].to_string()),
            ];
            if let Some(epochs) = summary.get("epochs") {
                pairs.push(("epochs", epochs.to_string()));
                pairs.push(("converged", summary["converged"].to_string()));
            }
            if let Some(train_seconds) = summary.get("train_seconds").and_then(|s| s.as_f64()) {
                pairs.push(("train seconds", format!("{train_seconds:.6}")));
            }
            pairs.push(("training accuracy", train_confusion.accuracy().to_string()));
            if let Some(m) = &test_confusion {
                pairs.push((
                    "test accuracy",
                    format!("{} (n = {})", m.accuracy(), m.total()),
                ));
            }
            pairs.push(("seconds", format!("{seconds:.6}")));
            print_pairs(&pairs)?;
            let (what, m) = match &test_confusion {
                Some(m) => ("test", m),
                None => ("training", &train_confusion),
            };
            print!("\nconfusion matrix ({what} data):\n{}", confusion_text(m));
            Ok(())
        }
    };
    printed?;
    // The model is made with the run, and refused (weights that overflowed) or written after the
    // report, as the binary `train --save` does: a failed save keeps what was printed.
    match (save, model) {
        (Some(path), Some(model)) => model?.save(path),
        _ => Ok(()),
    }
}

fn method_name(method: Method, kernel: Option<&Kernel>) -> String {
    match (method, kernel) {
        (Method::Kesler, _) => "the multi-class perceptron (Kesler's construction)".into(),
        (Method::OneVsRest, None) => "one-vs-rest, the perceptron per class".into(),
        (Method::OneVsRest, Some(k)) => format!(
            "one-vs-rest, the kernel perceptron per class ({})",
            k.describe()
        ),
    }
}

/// `novikoff margin --multiclass …`.
pub fn margin(
    source: &str,
    data_args: &DataArgs,
    method: Method,
    solver: &margin::MaxMarginParams,
    format: OutputFormat,
) -> Result<()> {
    let data = load(data_args)?;
    let started = Instant::now();
    let bias = solver.bias();
    match method {
        Method::Kesler => {
            let c = if bias == Bias::ThroughOrigin {
                0.0
            } else {
                1.0
            };
            let lifted = LiftedGeometry::compute_with(&data, c, solver)?;
            let seconds = started.elapsed().as_secs_f64();
            let (rows, cols, nnz) = lifted.shape;
            let bracket = lifted.margin.bracket();
            match format {
                OutputFormat::Json => print_json(&json!({
                    "data": source, "classes": data.classes(), "multiclass": "kesler",
                    "bias_constant": c, "lifted_rows": rows, "lifted_columns": cols, "lifted_nnz": nnz,
                    "radius_lifted": lifted.radius, "status": status(&lifted.margin),
                    "gamma_lower": bracket.map(|b| b.0), "gamma_upper": bracket.map(|b| b.1),
                    "certificate_residual": lifted.margin.certificate().map(|c| c.residual),
                    "solve_seconds": seconds,
                })),
                OutputFormat::Table => print_pairs(&[
                    ("data", source.to_string()),
                    (
                        "classes",
                        format!("{} ({})", data.n_classes(), data.classes().join(", ")),
                    ),
                    (
                        "lifted vectors",
                        format!(
                            "{rows} × {cols}, {nnz} stored values (Kesler: Φ(x, y) − Φ(x, r), {})",
                            if c == 0.0 {
                                "x in each block".to_string()
                            } else {
                                "(x, 1) in each block".into()
                            }
                        ),
                    ),
                    ("radius R_Φ", num(lifted.radius)),
                    ("result", status(&lifted.margin).into()),
                    (
                        "multi-class margin γ_Φ*",
                        bracket.map_or_else(
                            || {
                                format!(
                                    "— (certificate residual {:e})",
                                    lifted.margin.certificate().map_or(f64::NAN, |c| c.residual)
                                )
                            },
                            |(l, u)| format!("[{l}, {u}]"),
                        ),
                    ),
                    (
                        "(R_Φ/γ_Φ)²",
                        bracket
                            .filter(|b| b.0 > 0.0)
                            .map_or("—".into(), |(l, _)| num((lifted.radius / l).powi(2))),
                    ),
                    ("solve seconds", format!("{seconds:.6}")),
                ]),
            }
        }
        Method::OneVsRest => {
            let solver = solver.clone().check()?;
            let mut rows = vec![
                ["class", "status", "γ lower", "γ upper"]
                    .map(String::from)
                    .to_vec(),
            ];
            let mut entries = Vec::new();
            for (r, class) in data.classes().iter().enumerate() {
                let result = solver.solve(&data.one_vs_rest(r)?)?;
                let bracket = result.bracket();
                rows.push(vec![
                    class.clone(),
                    status(&result).into(),
                    opt(bracket.map(|b| b.0)),
                    opt(bracket.map(|b| b.1)),
                ]);
                entries
                    .push(json!({"class": class, "status": status(&result), "bracket": bracket}));
            }
            match format {
                OutputFormat::Json => print_json(
                    &json!({"data": source, "multiclass": "ovr", "bias": bias.name(), "classes": entries}),
                ),
                OutputFormat::Table => {
                    print!(
                        "{source}: one class against the rest, bias {}\n{}",
                        bias.name(),
                        render(&rows)
                    );
                    Ok(())
                }
            }
        }
    }
}

fn status(result: &MarginResult) -> &'static str {
    match result {
        MarginResult::Separable { .. } => "separable",
        MarginResult::NotSeparable { .. } => "not_separable",
        _ => "inaccurate",
    }
}

/// `novikoff verify --multiclass …`.
pub fn verify(
    source: &str,
    data_args: &DataArgs,
    runs: &[PerceptronParams],
    method: Method,
    kernel_args: &KernelArgs,
    solver: &margin::MaxMarginParams,
    format: OutputFormat,
) -> Result<ExitCode> {
    let data = load(data_args)?;
    let kernel = kernel_of(method, &data, kernel_args)?;
    let runs = match &kernel {
        None => MulticlassRuns::verify(&data, method, runs, solver)
            .map_err(|e| super::kernel::rename_any(e, &[("variant", "--variant")]))?,
        Some(kernel) => MulticlassRuns::verify_one_vs_rest(
            &data,
            runs.iter()
                .map(|base| learner(base, Some(kernel), kernel_args))
                .collect::<Result<_>>()?,
            solver,
        )?,
    };
    let failures = runs.failures();
    match format {
        OutputFormat::Json => print_json(
            &runs.to_json(
                source,
                &data,
                kernel
                    .as_ref()
                    .map(novikoff::kernel::KernelSummary::of)
                    .as_ref(),
            ),
        )?,
        OutputFormat::Table => match &runs {
            MulticlassRuns::Kesler(verdicts) => print_kesler(source, &data, verdicts),
            MulticlassRuns::OneVsRest(runs) => print_ovr(source, kernel.as_ref(), runs),
            _ => {}
        },
    }
    super::output::finish(&failures)
}

fn print_ovr(source: &str, kernel: Option<&Kernel>, runs: &[(BiasRule, OneVsRest)]) {
    let mut rows = vec![
        [
            "rule",
            "class",
            "positives",
            "mistakes",
            "bound",
            "holds",
            "converged",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for (rule, ovr) in runs {
        for class in &ovr.classes {
            rows.push(vec![
                rule.name(),
                class.class.clone(),
                class.positives.to_string(),
                class.verdict.mistakes().to_string(),
                opt(class.verdict.bound()),
                yes_no(class.verdict.holds()).into(),
                class.verdict.converged().to_string(),
            ]);
        }
    }
    print!(
        "{source}: {}\n{}",
        method_name(Method::OneVsRest, kernel),
        render(&rows)
    );
    if let Some((rule, ovr)) = runs.last() {
        print!(
            "\nconfusion matrix (training data, rule {}):\n{}",
            rule.name(),
            confusion_text(&ovr.confusion)
        );
    }
}

fn print_kesler(source: &str, data: &MulticlassDataset, verdicts: &[MulticlassVerdict]) {
    println!(
        "{source}: {} × {}, {} classes ({}); the multi-class perceptron on Kesler's lifted vectors",
        data.n_samples(),
        data.n_features(),
        data.n_classes(),
        data.classes().join(", ")
    );
    let mut rows = vec![
        [
            "rule", "bound", "formula", "γ_Φ", "R", "bound", "mistakes", "epochs", "ratio", "holds",
        ]
        .map(String::from)
        .to_vec(),
    ];
    let mut notes = Vec::new();
    for v in verdicts {
        for b in &v.bounds {
            rows.push(vec![
                v.rule.clone(),
                b.name.into(),
                b.formula.into(),
                opt(b.gamma),
                num(b.radius),
                opt(b.value),
                v.mistakes.to_string(),
                v.epochs.to_string(),
                opt(b.ratio),
                yes_no(b.holds).into(),
            ]);
            if let Some(reason) = &b.reason {
                notes.push(format!("  {} / {}: {reason}", v.rule, b.name));
            }
        }
        let i = &v.invariants;
        notes.push(match i.status {
            InvariantStatus::Checked => format!(
                "  {}: the proof's inequalities in the lifted space after each of {} updates: min slack dot {}, norm {}, cos {}; {} violations",
                v.rule, i.updates, opt(i.min_dot_slack), opt(i.min_norm_slack), opt(i.min_cos_slack), i.violations
            ),
            _ => format!("  {}: inequalities not checked: {}", v.rule, i.reason.as_deref().unwrap_or("")),
        });
    }
    print!("{}", render(&rows));
    for note in &notes {
        println!("{note}");
    }
    if let Some(v) = verdicts.last() {
        print!(
            "\nconfusion matrix (training data, rule {}):\n{}",
            v.rule,
            confusion_text(&v.confusion)
        );
    }
}
