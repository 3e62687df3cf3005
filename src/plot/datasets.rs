//! The figures of 2-D datasets: the points, the separators found by each rule and the maximum-margin
//! separator with its margin band.

use super::*;

/// At most this many 2-D datasets are drawn (the first replicate of each grid point).
pub(super) const MAX_DATASET_PLOTS: usize = 40;

/// 2-D datasets whose rows carry their points, with the rows of each (one per rule and order).
pub(super) fn datasets_2d(records: &[TaskRecord]) -> BTreeMap<String, Vec<&TaskRecord>> {
    let mut map: BTreeMap<String, Vec<&TaskRecord>> = BTreeMap::new();
    for r in records {
        let first_replicate = !r.dataset.contains('#') || r.dataset.ends_with("#0");
        if r.d == Some(2) && first_replicate && r.extra.get("points").is_some() {
            if map.len() >= MAX_DATASET_PLOTS && !map.contains_key(&r.dataset) {
                continue;
            }
            map.entry(r.dataset.clone()).or_default().push(r);
        }
    }
    map
}

pub(super) fn floats(value: Option<&serde_json::Value>) -> Vec<f64> {
    value
        .and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect())
        .unwrap_or_default()
}

/// The segment of the line `w·x + b = offset` inside the box.
pub(super) fn line_in_box(
    w: &[f64],
    b: f64,
    offset: f64,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> Vec<(f64, f64)> {
    if w.len() != 2 || (w[0] == 0.0 && w[1] == 0.0) {
        return Vec::new();
    }
    if w[1].abs() >= w[0].abs() {
        let y = |x: f64| (offset - b - w[0] * x) / w[1];
        vec![(x0, y(x0)), (x1, y(x1))]
    } else {
        let x = |y: f64| (offset - b - w[1] * y) / w[0];
        vec![(x(y0), y0), (x(y1), y1)]
    }
}

pub(super) fn draw_dataset<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    name: &str,
    rows: &[&TaskRecord],
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    // The points and the maximum margin come with the primal rows; kernel rows carry the points too.
    let first = rows
        .iter()
        .find(|r| r.extra.get("max_margin").is_some())
        .copied()
        .unwrap_or(rows[0]);
    let points: Vec<(f64, f64)> = first
        .extra
        .get("points")
        .and_then(|p| p.as_array())
        .map(|rows| {
            rows.iter()
                .filter_map(|p| {
                    let p = floats(Some(p));
                    (p.len() == 2).then(|| (p[0], p[1]))
                })
                .collect()
        })
        .unwrap_or_default();
    let labels = floats(first.extra.get("labels"));
    let extent = points
        .iter()
        .fold(1e-9f64, |m, &(x, y)| m.max(x.abs()).max(y.abs()))
        * 1.15;
    let (xr, yr) = ((-extent, extent), (-extent, extent));
    let mut chart = ChartBuilder::on(root)
        .caption(
            format!("{name}: max-margin separator and the perceptron's"),
            ("sans-serif", 18),
        )
        .margin(15)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(xr.0..xr.1, yr.0..yr.1)?;
    chart.configure_mesh().draw()?;

    if let Some(mm) = first.extra.get("max_margin") {
        let w = floats(mm.get("w"));
        let b = mm.get("b").and_then(|v| v.as_f64()).unwrap_or(0.0);
        let gamma = mm.get("gamma").and_then(|v| v.as_f64()).unwrap_or(0.0);
        // With ‖w‖ = 1 the margin band is w·x + b = ±γ.
        chart
            .draw_series(LineSeries::new(
                line_in_box(&w, b, 0.0, xr, yr),
                BLACK.stroke_width(2),
            ))?
            .label("max-margin separator")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(2)));
        for offset in [gamma, -gamma] {
            chart.draw_series(LineSeries::new(
                line_in_box(&w, b, offset, xr, yr),
                BLACK.mix(0.4).stroke_width(1),
            ))?;
        }
        let support: Vec<usize> = mm
            .get("support")
            .and_then(|s| s.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_u64().map(|v| v as usize))
                    .collect()
            })
            .unwrap_or_default();
        chart.draw_series(
            support
                .iter()
                .filter_map(|&i| points.get(i))
                .map(|&p| Circle::new(p, 9, BLACK.stroke_width(1))),
        )?;
    }
    chart
        .draw_series(
            points
                .iter()
                .zip(&labels)
                .filter(|&(_, &y)| y > 0.0)
                .map(|(&p, _)| Circle::new(p, 4, PALETTE[0].filled())),
        )?
        .label("y = +1")
        .legend(|(x, y)| Circle::new((x + 10, y), 4, PALETTE[0].filled()));
    chart
        .draw_series(
            points
                .iter()
                .zip(&labels)
                .filter(|&(_, &y)| y < 0.0)
                .map(|(&(x, y), _)| {
                    Rectangle::new(
                        [
                            (x - extent * 0.008, y - extent * 0.008),
                            (x + extent * 0.008, y + extent * 0.008),
                        ],
                        PALETTE[3].filled(),
                    )
                }),
        )?
        .label("y = −1")
        .legend(|(x, y)| Rectangle::new([(x + 6, y - 4), (x + 14, y + 4)], PALETTE[3].filled()));
    let primal: Vec<&&TaskRecord> = rows
        .iter()
        .filter(|r| r.order == "cyclic" && r.extra.get("w").is_some())
        .collect();
    super::kernel::draw_kernel_contours(&mut chart, rows, xr, yr, primal.len() + 1)?;
    for (k, row) in primal.into_iter().enumerate() {
        let w = floats(row.extra.get("w"));
        let b = row.extra.get("b").and_then(|v| v.as_f64()).unwrap_or(0.0);
        let colour = PALETTE[(k + 1) % PALETTE.len()];
        chart
            .draw_series(LineSeries::new(
                line_in_box(&w, b, 0.0, xr, yr),
                colour.stroke_width(2),
            ))?
            .label(format!("perceptron, rule {}", row.rule))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()?;
    Ok(())
}
