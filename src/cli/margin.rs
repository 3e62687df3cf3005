//! `novikoff margin`: the radius and the certified maximum margin of a data file, or a proof that no
//! separator exists.

use std::time::Instant;

use clap::Args;
use novikoff::margin::{Bias, Certificate, MarginResult, MaxMarginParams};
use novikoff::{Dataset, Error, Result};
use serde::Serialize;

use super::output::{
    Floats, print_json, print_pairs, round_trip, summarise_rows, summarise_vector,
};
use super::{DataArgs, OutputFormat};

#[derive(Debug, Args)]
pub struct MarginArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Only separators through the origin (w·x = 0); by default the bias b is free.
    #[arg(long)]
    pub through_origin: bool,
    /// The largest accepted relative width of the bracket [lower, upper].
    #[arg(long, default_value_t = 1e-6)]
    pub tolerance: f64,
    /// Mebibytes the solve's working set (its points and their factorisation) may take (default 128);
    /// a factorisation that would pass it goes on, slower, without its orthogonal factor, and past the
    /// budget even so the answer is `inaccurate` with its bracket.
    #[arg(long, value_name = "MB")]
    pub working_set_mb: Option<u64>,
    #[command(flatten)]
    pub kernel: super::kernel::KernelArgs,
    #[command(flatten)]
    pub multiclass: super::multiclass::MulticlassArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// How many certificate rows the table names.
const NAMED_ROWS: usize = 6;

/// `bias`'s solver with `--working-set-mb` applied (checked by `MaxMarginParams::check`), refused with
/// `--kernel`, whose margin is another solver's (its budget is `--cache-mb`). The multi-class margins
/// (Kesler's lifted vectors, each class against the rest) are linear solves and take it.
pub(super) fn linear_solver(
    bias: Bias,
    working_set_mb: Option<u64>,
    kernel: bool,
) -> Result<MaxMarginParams> {
    if kernel && working_set_mb.is_some() {
        return Err(Error::parameter(
            "--working-set-mb",
            "sets the budget of the linear solve, and --kernel would ignore it (its budget is --cache-mb)",
        ));
    }
    let params = MaxMarginParams::new(bias).working_set_mebibytes(working_set_mb);
    params.clone().check()?;
    Ok(params)
}

pub fn run(args: &MarginArgs) -> Result<()> {
    let source = args.data.data.display().to_string();
    let bias = if args.through_origin {
        Bias::ThroughOrigin
    } else {
        Bias::Free
    };
    let params = linear_solver(bias, args.working_set_mb, args.kernel.kernel.is_some())?
        .tolerance(args.tolerance);
    if let Some(method) = args.multiclass.multiclass {
        if args.kernel.kernel.is_some() {
            return Err(Error::parameter(
                "--kernel",
                "the multi-class margin is offered in the input space only",
            ));
        }
        return super::multiclass::margin(&source, &args.data, method, &params, args.format);
    }
    let data = args.data.load()?;
    if let Some(kernel) = args.kernel.kernel(&data)? {
        return super::kernel::margin(
            &source,
            &data,
            &kernel,
            bias,
            args.tolerance,
            args.kernel.cache_bytes(),
            args.format,
        )
        .map_err(|e| in_file(e, &args.data.data));
    }
    let solver = params.check()?;
    let start = Instant::now();
    let result = solver
        .solve(&data)
        .map_err(|e| in_file(e, &args.data.data))?;
    let seconds = start.elapsed().as_secs_f64();
    let source = args.data.data.display().to_string();
    match args.format {
        OutputFormat::Json => print_json(&to_json(&source, &data, bias, &result, seconds)),
        OutputFormat::Table => print_table(&source, &data, bias, &result, seconds),
    }
}

/// Name the file in a refusal that only the data could cause (one class with a free bias).
fn in_file(error: Error, path: &std::path::Path) -> Error {
    match error {
        Error::SingleClass { label, .. } => Error::SingleClass {
            label,
            context: format!(" in {}", path.display()),
        },
        other => other,
    }
}

fn status(result: &MarginResult) -> &'static str {
    match result {
        MarginResult::Separable { .. } => "separable",
        MarginResult::NotSeparable { .. } => "not_separable",
        _ => "inaccurate",
    }
}

/// The JSON record of `margin`, serialised from the result where it lies ([`Floats`]; as a tree of JSON
/// values the news20-shaped file of the README peaked at 213 MB against the solve's 170 MB). The fields
/// are in alphabetical order, the order of the keys of a JSON object as the crate has always written
/// them.
#[derive(Serialize)]
struct MarginRecord<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    b: Option<f64>,
    bias: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    certificate: Option<CertificateRecord<'a>>,
    d: usize,
    data: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    gamma: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gamma_lower: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gamma_upper: Option<f64>,
    n: usize,
    passes: usize,
    radius: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    rounds: usize,
    separable: Option<bool>,
    solve_seconds: f64,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    support: Option<&'a [usize]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    w: Option<Floats<'a>>,
    working_set: usize,
}

#[derive(Serialize)]
struct CertificateRecord<'a> {
    residual: f64,
    weights: Floats<'a>,
}

fn to_json<'a>(
    source: &'a str,
    data: &Dataset,
    bias: Bias,
    result: &'a MarginResult,
    seconds: f64,
) -> MarginRecord<'a> {
    let stats = result.stats();
    let bracket = result.bracket();
    let mut record = MarginRecord {
        b: None,
        bias: bias.name(),
        certificate: result.certificate().map(|certificate| CertificateRecord {
            residual: certificate.residual,
            weights: Floats(&certificate.weights),
        }),
        d: data.n_features(),
        data: source,
        gamma: result.gamma(),
        gamma_lower: bracket.map(|(lower, _)| lower),
        gamma_upper: bracket.map(|(_, upper)| upper),
        n: data.n_samples(),
        passes: stats.passes,
        radius: data.radius(),
        reason: None,
        rounds: stats.rounds,
        separable: result.separability(),
        solve_seconds: seconds,
        status: status(result),
        support: None,
        w: None,
        working_set: stats.working_set,
    };
    // `separator()` withholds an inaccurate result's `w` when it separates nothing; the record has
    // always carried it.
    match result {
        MarginResult::Separable { w, b, support, .. } => {
            (record.w, record.b) = (Some(Floats(w)), Some(*b));
            record.support = Some(support);
        }
        MarginResult::Inaccurate { w, b, reason, .. } => {
            (record.w, record.b) = (Some(Floats(w)), Some(*b));
            record.reason = Some(reason);
        }
        _ => {}
    }
    record
}

fn explain_certificate(data: &Dataset, certificate: &Certificate) -> Vec<(&'static str, String)> {
    let rows = certificate.rows_by_weight();
    let named = &rows[..rows.len().min(NAMED_ROWS)];
    let more = rows.len() - named.len();
    let tail = if more > 0 {
        format!(" (and {more} more)")
    } else {
        String::new()
    };
    let verdict = match certificate.bias {
        Bias::Free => format!(
            "not linearly separable: rows {}{tail} carry a certificate: a mix of their positive rows \
             equals a mix of their negative rows, so the convex hulls of the classes meet",
            summarise_rows(named)
        ),
        // One row alone is a certificate only through the origin, and only as the origin itself.
        _ if rows.len() == 1 => format!(
            "not separable through the origin: row {} carries a certificate: it is the origin, so \
             every plane through the origin passes through it and misclassifies it",
            rows[0]
        ),
        _ => format!(
            "not separable through the origin: rows {}{tail} carry a certificate: a mix of the \
             points y·x is the origin (Gordan), so every plane through the origin misclassifies one",
            summarise_rows(named)
        ),
    };
    let weights: Vec<String> = named
        .iter()
        .map(|&i| {
            format!(
                "row {i} (y = {:+}): {:.6}",
                data.labels()[i],
                certificate.weights[i]
            )
        })
        .collect();
    vec![
        ("result", verdict),
        ("certificate weights", weights.join("; ")),
        (
            "residual",
            format!(
                "{:e} (= {:.1e}·R; checkable with the weights in --format json)",
                certificate.residual,
                certificate.residual / data.radius().max(f64::MIN_POSITIVE)
            ),
        ),
    ]
}

fn print_table(
    source: &str,
    data: &Dataset,
    bias: Bias,
    result: &MarginResult,
    seconds: f64,
) -> Result<()> {
    let radius = data.radius();
    let mut pairs: Vec<(&str, String)> = vec![
        ("data", source.to_string()),
        (
            "n × d",
            format!("{} × {}", data.n_samples(), data.n_features()),
        ),
        ("radius R", round_trip(radius)),
        ("bias", bias.name().to_string()),
    ];
    match result {
        MarginResult::Separable {
            gamma,
            bracket,
            w,
            b,
            support,
            ..
        } => {
            pairs.push((
                "result",
                format!(
                    "linearly separable{}",
                    if bias == Bias::Free {
                        ""
                    } else {
                        " through the origin"
                    }
                ),
            ));
            pairs.push(("max margin γ*", round_trip(*gamma)));
            pairs.push((
                "certified bracket",
                format!(
                    "[{}, {}] (relative width {:.1e})",
                    round_trip(bracket.0),
                    round_trip(bracket.1),
                    (bracket.1 - bracket.0) / bracket.1
                ),
            ));
            pairs.push(("(R/γ*)²", round_trip((radius / gamma).powi(2))));
            pairs.push(("w (unit)", summarise_vector(w.as_slice().unwrap_or(&[]))));
            pairs.push(("b", round_trip(*b)));
            pairs.push((
                "support rows",
                format!(
                    "{} (0-based; on the margin{})",
                    summarise_rows(support),
                    if support.len() > 16 {
                        "; all of them with --format json"
                    } else {
                        ""
                    }
                ),
            ));
        }
        MarginResult::NotSeparable { certificate, .. } => {
            pairs.extend(explain_certificate(data, certificate));
        }
        MarginResult::Inaccurate {
            gamma,
            bracket,
            w,
            b,
            reason,
            ..
        } => {
            pairs.push((
                "result",
                format!("not resolved to the requested accuracy: {reason}"),
            ));
            if result.stopped_before_separator() {
                // No estimate, and nothing to show for w and b.
                pairs.push((
                    "certified bracket",
                    "none: the solve stopped before its first separator".into(),
                ));
            } else {
                pairs.push(("estimate γ", round_trip(*gamma)));
                pairs.push((
                    "certified bracket",
                    format!("[{}, {}]", round_trip(bracket.0), round_trip(bracket.1)),
                ));
                pairs.push(("w (unit)", summarise_vector(w.as_slice().unwrap_or(&[]))));
                pairs.push(("b", round_trip(*b)));
            }
        }
        _ => {}
    }
    let stats = result.stats();
    pairs.push((
        "solver effort",
        format!(
            "{} passes over the data in {} rounds; working set of {} rows",
            stats.passes, stats.rounds, stats.working_set
        ),
    ));
    pairs.push(("solve seconds", format!("{seconds:.6}")));
    print_pairs(&pairs)
}
