//! Plots of an experiment's results (plotters; SVG and PNG; a bundled DejaVu Sans font).
//!
//! * `mistakes_vs_bound`: every run's mistakes against its bound on log–log axes with the line y = x,
//!   one colour per rule: the theorem at a glance (every point lies on or below the line).
//! * `mistakes_vs_bound_by_variant`: the same points coloured by member of the perceptron's family
//!   (averaged, voted, pocket, margin, PA, …), drawn when the results hold more than the plain one.
//! * `mistakes_vs_inverse_gamma2`: mistakes against 1/γ².
//! * `dataset_<name>`: for every 2-D dataset, the points, the max-margin separator with its margin band, the
//!   support vectors circled, and each rule's final perceptron separator (after Duda & Hart's figures in
//!   seed 000).
//! * the dataset figures also draw each kernel perceptron's decision boundary `f(x) = 0` as a contour;
//! * `confusion_<dataset>_<method>_<rule>`: the confusion matrix of each multi-class run (test data when
//!   the entry has them);
//! * `trace_<task>`: for traced runs, cos(u, w_k) and ‖w_k‖ against k with the proof's bounds drawn in.
//!
//! Everything is drawn from the result rows alone (2-D points and traces travel in their `extra` field),
//! so `novikoff plot RESULTS` redraws the same figures from a results file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::error::{Error, Result};
use crate::experiment::TaskRecord;

mod datasets;
mod kernel;

use datasets::*;
use kernel::draw_confusion;

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

fn register_font() {
    REGISTER.call_once(|| {
        // The bundled font is known-good; a failure here would only mean text is not drawn.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

// matplotlib's tab10, so that the eight members of the family get eight colours.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// A log axis' tick: a power of ten as `10^k` (plotters' default prints `1000000000.0`, which the
/// label area clips), anything else as the shortest decimal.
fn log_tick(value: &f64) -> String {
    let exponent = value.log10().round();
    if (value / 10f64.powf(exponent) - 1.0).abs() < 1e-9 && exponent.abs() >= 4.0 {
        format!("1e{exponent}")
    } else {
        format!("{value}")
    }
}

fn plot_error<E: std::fmt::Debug>(path: &Path) -> impl Fn(E) -> Error + '_ {
    move |e| {
        Error::io(
            path,
            std::io::Error::other(format!("drawing failed: {e:?}")),
        )
    }
}

/// Draw one figure as `stem.svg` and `stem.png`.
macro_rules! render {
    ($stem:expr, $size:expr, $draw:ident ( $($arg:expr),* )) => {{
        let stem: &Path = $stem;
        // Append rather than `with_extension`: dataset keys hold dots (`margin=0.5`).
        let svg = PathBuf::from(format!("{}.svg", stem.display()));
        let png = PathBuf::from(format!("{}.png", stem.display()));
        {
            let root = SVGBackend::new(&svg, $size).into_drawing_area();
            $draw(&root, $($arg),*).map_err(plot_error(&svg))?;
            root.present().map_err(plot_error(&svg))?;
        }
        {
            let root = BitMapBackend::new(&png, $size).into_drawing_area();
            $draw(&root, $($arg),*).map_err(plot_error(&png))?;
            root.present().map_err(plot_error(&png))?;
        }
        vec![svg, png]
    }};
}

type DrawResult<DB> =
    std::result::Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Draw every plot for `records` into `dir`; returns the files written.
///
/// ```
/// use novikoff::experiment::TaskRecord;
/// let rows = vec![TaskRecord {
///     rule: "none".into(), mistakes: Some(3), bound: Some(5.0), gamma_lower: Some(1.0),
///     ..Default::default()
/// }];
/// let dir = tempfile::tempdir().unwrap();
/// let files = novikoff::plot::plot_all(&rows, dir.path())?;
/// assert!(files.iter().any(|f| f.ends_with("mistakes_vs_bound.svg")));
/// let by_variant = |files: &[std::path::PathBuf]| {
///     files.iter().any(|f| f.ends_with("mistakes_vs_bound_by_variant.svg"))
/// };
/// assert!(!by_variant(&files)); // the plain perceptron alone
/// let averaged = TaskRecord { variant: "averaged".into(), ..rows[0].clone() };
/// let files = novikoff::plot::plot_all(&[rows[0].clone(), averaged], dir.path())?;
/// assert!(by_variant(&files));
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn plot_all(records: &[TaskRecord], dir: &Path) -> Result<Vec<PathBuf>> {
    register_font();
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut files = Vec::new();

    let mistakes_and_bound = |r: &TaskRecord| Some((r.bound?, r.mistakes? as f64));
    let by_rule = series_by_rule(records, mistakes_and_bound);
    files.extend(render!(
        &dir.join("mistakes_vs_bound"),
        (900, 700),
        draw_mistakes_vs_bound(&by_rule, "rule")
    ));
    // An empty variant is a record built in code with `..Default::default()`: the plain perceptron.
    if records
        .iter()
        .any(|r| !matches!(r.variant.as_str(), "" | "perceptron"))
    {
        let by_variant = series_by(records, |r| &r.variant, mistakes_and_bound);
        files.extend(render!(
            &dir.join("mistakes_vs_bound_by_variant"),
            (900, 700),
            draw_mistakes_vs_bound(&by_variant, "member of the perceptron's family")
        ));
    }

    let by_rule = series_by_rule(records, |r| {
        let gamma = r.gamma_lower.filter(|g| *g > 0.0)?;
        Some((1.0 / (gamma * gamma), r.mistakes? as f64))
    });
    files.extend(render!(
        &dir.join("mistakes_vs_inverse_gamma2"),
        (900, 700),
        draw_mistakes_vs_inverse_gamma2(&by_rule)
    ));

    for (dataset, rows) in datasets_2d(records) {
        let stem = dir.join(format!("dataset_{}", file_safe(&dataset)));
        files.extend(render!(&stem, (800, 800), draw_dataset(&dataset, &rows)));
    }

    for record in kernel::confusion_rows(records) {
        let stem = dir.join(format!(
            "confusion_{}",
            file_safe(&format!(
                "{}_{}_{}{}",
                record.dataset,
                record.multiclass.as_deref().unwrap_or(""),
                record.rule,
                record
                    .kernel
                    .as_deref()
                    .map(|k| format!("_{k}"))
                    .unwrap_or_default()
            ))
        ));
        files.extend(render!(&stem, (800, 760), draw_confusion(record)));
    }

    for record in representative_traces(records) {
        let stem = dir.join(format!("trace_{}", file_safe(&record.rule)));
        files.extend(render!(&stem, (1000, 500), draw_trace(record)));
    }
    Ok(files)
}

fn file_safe(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.len() > 120 {
        format!("{}_{}", &safe[..100], crate::experiment::task_id(name))
    } else {
        safe
    }
}

fn series_by_rule(
    records: &[TaskRecord],
    point: impl Fn(&TaskRecord) -> Option<(f64, f64)>,
) -> BTreeMap<String, Vec<(f64, f64)>> {
    series_by(records, |r| &r.rule, point)
}

/// The finite points of `records`, one series per `key` (log axes: x > 0, and y drawn at least 0.5).
fn series_by(
    records: &[TaskRecord],
    key: impl Fn(&TaskRecord) -> &String,
    point: impl Fn(&TaskRecord) -> Option<(f64, f64)>,
) -> BTreeMap<String, Vec<(f64, f64)>> {
    let mut map: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in records {
        if let Some((x, y)) = point(r).filter(|(x, y)| x.is_finite() && y.is_finite() && *x > 0.0) {
            map.entry(key(r).clone()).or_default().push((x, y.max(0.5)));
        }
    }
    map
}

fn log_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values
        .filter(|v| *v > 0.0 && v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo.is_finite() {
        (lo / 2.0).max(0.25)..(hi * 2.0).max(2.0)
    } else {
        0.5..10.0
    }
}

/// One colour per rule, with a legend: the scatter shared by the two log–log figures.
fn scatter_by_rule<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>,
    by_rule: &BTreeMap<String, Vec<(f64, f64)>>,
) -> DrawResult<DB> {
    for (k, (rule, points)) in by_rule.iter().enumerate() {
        let colour = PALETTE[k % PALETTE.len()];
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, colour.filled())))?
            .label(rule.as_str())
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, colour.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    Ok(())
}

/// Mistakes against the bound, one colour per series (`series_of` names what a series is).
fn draw_mistakes_vs_bound<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    by_rule: &BTreeMap<String, Vec<(f64, f64)>>,
    series_of: &str,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let all = || by_rule.values().flatten();
    let range = log_range(all().map(|p| p.0).chain(all().map(|p| p.1)));
    let mut chart = ChartBuilder::on(root)
        .caption(
            format!("Mistakes against the bound, one colour per {series_of} (on or below y = x)"),
            ("sans-serif", 20),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(range.clone().log_scale(), range.clone().log_scale())?;
    chart
        .configure_mesh()
        .x_desc("bound (the run's tightest: from the certified γ, else Freund–Schapire or Shalev-Shwartz–Singer)")
        .y_desc("mistakes")
        .x_label_formatter(&log_tick)
        .y_label_formatter(&log_tick)
        .draw()?;
    chart
        .draw_series(LineSeries::new(
            vec![(range.start, range.start), (range.end, range.end)],
            BLACK.stroke_width(1),
        ))?
        .label("y = x")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
    scatter_by_rule(&mut chart, by_rule)
}

fn draw_mistakes_vs_inverse_gamma2<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    by_rule: &BTreeMap<String, Vec<(f64, f64)>>,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let all = || by_rule.values().flatten();
    let xs = log_range(all().map(|p| p.0));
    let ys = log_range(all().map(|p| p.1));
    let mut chart = ChartBuilder::on(root)
        .caption("Mistakes against 1/γ²", ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(xs.log_scale(), ys.log_scale())?;
    chart
        .configure_mesh()
        .x_desc("1/γ² (γ: certified lower end of the margin the rule's bound uses)")
        .y_desc("mistakes")
        .x_label_formatter(&log_tick)
        .y_label_formatter(&log_tick)
        .draw()?;
    scatter_by_rule(&mut chart, by_rule)
}

/// One traced run per rule: the one that came closest to its bound (most mistakes on a tie), so the
/// figure shows the proof's inequalities where they are tightest. The `basis` worst case attains the
/// bound exactly, which would hide the bound curves under the run's, so other runs are preferred.
fn representative_traces(records: &[TaskRecord]) -> Vec<&TaskRecord> {
    let mut best: BTreeMap<&str, &TaskRecord> = BTreeMap::new();
    for r in records
        .iter()
        .filter(|r| r.extra.get("trace").is_some() && r.mistakes.unwrap_or(0) > 1)
    {
        let score = |r: &TaskRecord| {
            (
                r.source != "basis",
                r.ratio.unwrap_or(0.0),
                r.mistakes.unwrap_or(0),
            )
        };
        let slot = best.entry(r.rule.as_str()).or_insert(r);
        if score(r) > score(slot) {
            *slot = r;
        }
    }
    best.into_values().collect()
}

fn draw_trace<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    record: &TaskRecord,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let trace = &record.extra["trace"];
    let ks = floats(trace.get("k"));
    let cos = floats(trace.get("cos"));
    let norms = floats(trace.get("norm"));
    let gamma = trace.get("gamma").and_then(|v| v.as_f64()).unwrap_or(0.0);
    let r_eff = trace.get("r_eff").and_then(|v| v.as_f64()).unwrap_or(1.0);
    let eta = trace.get("eta").and_then(|v| v.as_f64()).unwrap_or(1.0);
    let k_max = ks.iter().copied().fold(1.0, f64::max);
    let (left, right) = root.split_horizontally(500);

    let mut chart = ChartBuilder::on(&left)
        .caption(
            format!("cos(u, w_k), rule {}", record.rule),
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0..k_max, 0.0..1.05)?;
    chart.configure_mesh().x_desc("update k").draw()?;
    chart
        .draw_series(LineSeries::new(
            ks.iter().copied().zip(cos.iter().copied()),
            PALETTE[0].stroke_width(2),
        ))?
        .label("cos(u, w_k)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], PALETTE[0]));
    let steps = 200;
    chart
        .draw_series(LineSeries::new(
            (0..=steps).map(|i| {
                let k = k_max * i as f64 / steps as f64;
                (k, (k.sqrt() * gamma / r_eff).min(1.05))
            }),
            PALETTE[3].stroke_width(1),
        ))?
        .label("√k·γ/R (proof's lower bound)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], PALETTE[3]));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()?;

    let norm_max = norms
        .iter()
        .copied()
        .fold(k_max.sqrt() * eta * r_eff, f64::max)
        * 1.05;
    let mut chart = ChartBuilder::on(&right)
        .caption("‖w_k‖ between the proof's bounds", ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..k_max, 0.0..norm_max)?;
    chart.configure_mesh().x_desc("update k").draw()?;
    chart
        .draw_series(LineSeries::new(
            ks.iter().copied().zip(norms.iter().copied()),
            PALETTE[0].stroke_width(2),
        ))?
        .label("‖w_k‖")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], PALETTE[0]));
    chart
        .draw_series(LineSeries::new(
            (0..=steps).map(|i| {
                let k = k_max * i as f64 / steps as f64;
                (k, k.sqrt() * eta * r_eff)
            }),
            PALETTE[3].stroke_width(1),
        ))?
        .label("√k·η·R (upper)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], PALETTE[3]));
    chart
        .draw_series(LineSeries::new(
            (0..=steps).map(|i| {
                let k = k_max * i as f64 / steps as f64;
                (k, k * eta * gamma)
            }),
            PALETTE[2].stroke_width(1),
        ))?
        .label("k·η·γ (lower)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], PALETTE[2]));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    Ok(())
}
