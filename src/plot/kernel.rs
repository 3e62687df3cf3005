//! The kernel perceptron's decision boundary `f(x) = 0` on a 2-D dataset (a contour, by marching
//! squares on a grid), and the confusion matrices of multi-class runs.

use plotters::coord::types::RangedCoordf64;

use super::*;
use crate::dataset::RowView;
use crate::kernel::{Gamma, Kernel, KernelKind, KernelParams};
use crate::simd::Summation;

/// Grid cells per side of the contour.
const CONTOUR_CELLS: usize = 120;
/// At most this many confusion matrices are drawn.
pub(super) const MAX_CONFUSION_PLOTS: usize = 20;

/// The dual predictor a kernel row carries: the kernel, the support vectors, their coefficients and `b`.
struct Dual {
    kernel: Kernel,
    support: Vec<[f64; 2]>,
    coef: Vec<f64>,
    b: f64,
}

impl Dual {
    fn of(record: &TaskRecord) -> Option<Dual> {
        let dual = record.extra.get("dual")?;
        let summary = dual.get("kernel")?;
        let kind = KernelKind::parse(summary.get("kernel")?.as_str()?).ok()?;
        let mut params = KernelParams::new(kind);
        if let Some(d) = summary.get("degree").and_then(|v| v.as_u64()) {
            params = params.degree(u32::try_from(d).ok()?);
        }
        if let Some(c) = summary.get("coef0").and_then(|v| v.as_f64()) {
            params = params.coef0(c);
        }
        if let Some(g) = summary.get("gamma").and_then(|v| v.as_f64()) {
            params = params.gamma(Gamma::Value(g));
        }
        let support = dual
            .get("support")?
            .as_array()?
            .iter()
            .filter_map(|p| {
                let p = floats(Some(p));
                (p.len() == 2).then(|| [p[0], p[1]])
            })
            .collect();
        Some(Dual {
            kernel: params.check().ok()?,
            support,
            coef: floats(dual.get("coef")),
            b: dual.get("b").and_then(|v| v.as_f64())?,
        })
    }

    fn value(&self, x: f64, y: f64) -> f64 {
        let point = [x, y];
        let mut sum = self.b;
        for (sv, &c) in self.support.iter().zip(&self.coef) {
            sum +=
                c * self
                    .kernel
                    .eval(RowView::Dense(sv), RowView::Dense(&point), Summation::Fast);
        }
        sum
    }
}

/// The segments of `f = 0` in the box, by marching squares.
fn contour(dual: &Dual, (x0, x1): (f64, f64), (y0, y1): (f64, f64)) -> Vec<[(f64, f64); 2]> {
    let n = CONTOUR_CELLS;
    let at = |i: usize, j: usize| {
        (
            x0 + (x1 - x0) * i as f64 / n as f64,
            y0 + (y1 - y0) * j as f64 / n as f64,
        )
    };
    let mut values = vec![0.0; (n + 1) * (n + 1)];
    for j in 0..=n {
        for i in 0..=n {
            let (x, y) = at(i, j);
            values[j * (n + 1) + i] = dual.value(x, y);
        }
    }
    let value = |i: usize, j: usize| values[j * (n + 1) + i];
    // The crossing of f = 0 on the edge between two corners.
    let cross = |a: (f64, f64), fa: f64, b: (f64, f64), fb: f64| {
        let t = fa / (fa - fb);
        (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1))
    };
    let mut segments = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let corners = [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)];
            let mut points = Vec::with_capacity(4);
            for k in 0..4 {
                let (a, b) = (corners[k], corners[(k + 1) % 4]);
                let (fa, fb) = (value(a.0, a.1), value(b.0, b.1));
                if (fa >= 0.0) != (fb >= 0.0) {
                    points.push(cross(at(a.0, a.1), fa, at(b.0, b.1), fb));
                }
            }
            // Two crossings: one segment; four (a saddle): two, pairing neighbouring edges.
            for pair in points.chunks(2) {
                if let [p, q] = pair {
                    segments.push([*p, *q]);
                }
            }
        }
    }
    segments
}

/// Draw every kernel row's decision boundary; returns whether any was drawn.
pub(super) fn draw_kernel_contours<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    rows: &[&TaskRecord],
    xr: (f64, f64),
    yr: (f64, f64),
    first_colour: usize,
) -> DrawResult<DB> {
    let kernel_rows = rows
        .iter()
        .filter(|r| r.order == "cyclic" && r.extra.get("dual").is_some());
    for (k, row) in kernel_rows.enumerate() {
        let Some(dual) = Dual::of(row) else {
            continue;
        };
        let colour = PALETTE[(first_colour + k) % PALETTE.len()];
        let segments = contour(&dual, xr, yr);
        let mut first = true;
        for segment in segments {
            let series = chart.draw_series(LineSeries::new(segment, colour.stroke_width(2)))?;
            if std::mem::take(&mut first) {
                series
                    .label(format!(
                        "kernel perceptron, rule {}, {}",
                        row.rule,
                        dual.kernel.describe()
                    ))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                    });
            }
        }
    }
    Ok(())
}

/// One multi-class row per dataset and method (the first), with its confusion matrix.
pub(super) fn confusion_rows(records: &[TaskRecord]) -> Vec<&TaskRecord> {
    let mut seen = std::collections::BTreeSet::new();
    records
        .iter()
        .filter(|r| r.extra.get("confusion").is_some_and(|c| c.is_object()))
        .filter(|r| seen.insert((r.dataset.clone(), r.multiclass.clone(), r.kernel.clone())))
        .take(MAX_CONFUSION_PLOTS)
        .collect()
}

/// A confusion matrix as a grid of shaded cells, true classes down, predictions across.
pub(super) fn draw_confusion<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    record: &TaskRecord,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let matrix = record
        .extra
        .get("test_confusion")
        .filter(|m| m.is_object())
        .unwrap_or(&record.extra["confusion"]);
    let classes: Vec<String> = matrix
        .get("classes")
        .and_then(|c| c.as_array())
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default();
    let counts: Vec<Vec<f64>> = matrix
        .get("counts")
        .and_then(|c| c.as_array())
        .map(|rows| rows.iter().map(|r| floats(Some(r))).collect())
        .unwrap_or_default();
    let k = classes.len().max(1);
    let largest = counts.iter().flatten().copied().fold(1.0, f64::max);
    let which = if matrix == &record.extra["confusion"] {
        "training"
    } else {
        "test"
    };
    let mut chart = ChartBuilder::on(root)
        .caption(
            format!(
                "{}: confusion matrix ({which} data), {}{}, rule {}",
                record.dataset,
                record.multiclass.as_deref().unwrap_or(""),
                record
                    .kernel
                    .as_ref()
                    .map(|k| format!(" + {k}"))
                    .unwrap_or_default(),
                record.rule
            ),
            ("sans-serif", 16),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((0..k).into_segmented(), (0..k).into_segmented())?;
    let name = |v: &SegmentValue<usize>, flip: bool| match v {
        SegmentValue::CenterOf(i) if *i < k => classes[if flip { k - 1 - i } else { *i }].clone(),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(k.min(30))
        .y_labels(k.min(30))
        .x_label_formatter(&|v| name(v, false))
        .y_label_formatter(&|v| name(v, true))
        .x_desc("predicted class")
        .y_desc("true class")
        .draw()?;
    for (t, row) in counts.iter().enumerate() {
        let r = k - 1 - t;
        for (p, &count) in row.iter().enumerate() {
            let shade = count / largest;
            let colour = if t == p { PALETTE[0] } else { PALETTE[3] };
            chart.draw_series(std::iter::once(Rectangle::new(
                [
                    (SegmentValue::Exact(p), SegmentValue::Exact(r)),
                    (SegmentValue::Exact(p + 1), SegmentValue::Exact(r + 1)),
                ],
                colour.mix(0.1 + 0.9 * shade).filled(),
            )))?;
            if k <= 15 {
                chart.draw_series(std::iter::once(Text::new(
                    format!("{count}"),
                    (SegmentValue::CenterOf(p), SegmentValue::CenterOf(r)),
                    ("sans-serif", 14),
                )))?;
            }
        }
    }
    Ok(())
}
