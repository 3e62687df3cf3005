//! Small formatting helpers shared by the subcommands.

use std::io::Write;

use std::process::ExitCode;

use ndarray::Array1;
use novikoff::bounds::Failure;
use novikoff::{Error, Result};
use serde::Serialize;

/// Print a two-column key/value table.
pub fn print_pairs(pairs: &[(&str, String)]) -> Result<()> {
    let width = pairs.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = std::io::stdout().lock();
    for (key, value) in pairs {
        writeln!(out, "{key:<width$}  {value}").map_err(|e| Error::io("<stdout>", e))?;
    }
    Ok(())
}

/// Print one JSON value on a line of its own, serialised as it is written.
pub fn print_json(value: &impl serde::Serialize) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer(&mut out, value)
        .map_err(|e| Error::io("<stdout>", std::io::Error::other(e)))?;
    writeln!(out).map_err(|e| Error::io("<stdout>", e))?;
    out.flush().map_err(|e| Error::io("<stdout>", e))
}

/// A vector written as a JSON array of numbers where it lies. A separator in a million columns is
/// 11 MB of floats; made a tree of JSON values first (`json!(w.to_vec())`, 32 bytes a number and a copy)
/// it took four times that again, after the work, and set the command's peak.
pub struct Floats<'a>(pub &'a Array1<f64>);

impl Serialize for Floats<'_> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter())
    }
}

/// A vector of floats as `[a, b, c]` with shortest round-trip formatting ([`round_trip`]).
pub fn format_vector(values: &[f64]) -> String {
    let parts: Vec<String> = values.iter().map(|&v| round_trip(v)).collect();
    format!("[{}]", parts.join(", "))
}

/// A vector for the table: in full when short; otherwise its length and non-zero entries, the first few
/// of them (the JSON output has it whole).
pub fn summarise_vector(v: &[f64]) -> String {
    const SHOWN: usize = 16;
    if v.len() <= SHOWN {
        return format_vector(v);
    }
    let non_zero: Vec<String> = v
        .iter()
        .enumerate()
        .filter(|(_, x)| **x != 0.0)
        .map(|(j, &x)| format!("{j}:{}", round_trip(x)))
        .collect();
    let listed = non_zero
        .iter()
        .take(8)
        .cloned()
        .collect::<Vec<_>>()
        .join(" ");
    if non_zero.is_empty() {
        return format!("{} values, all zero", v.len());
    }
    let more = if non_zero.len() > 8 { " …" } else { "" };
    format!(
        "{} values, {} non-zero: {listed}{more} (all of them with --format json)",
        v.len(),
        non_zero.len()
    )
}

/// Row numbers for a table: all of them when few, otherwise the first ones and how many more (the
/// caller says where all of them are).
pub fn summarise_rows(rows: &[usize]) -> String {
    const SHOWN: usize = 16;
    let shown: Vec<String> = rows.iter().take(SHOWN).map(usize::to_string).collect();
    match rows.len() {
        0 => String::new(),
        1 => shown[0].clone(),
        k if k <= SHOWN => format!("{} and {}", shown[..k - 1].join(", "), shown[k - 1]),
        k => format!("{} and {} more", shown.join(", "), k - SHOWN),
    }
}

/// A number in at most 6 significant digits, trailing zeros trimmed (the library's own formatting).
pub use novikoff::display::short_number as num;

/// A number in every digit it needs to read back the same, scientific when very large or small.
pub use novikoff::display::round_trip;

/// A number, or `—` when there is none.
pub fn opt(v: Option<f64>) -> String {
    v.map(num).unwrap_or_else(|| "—".into())
}

/// `yes`, `NO`, or `n/a` when the question does not apply.
pub fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "NO",
        None => "n/a",
    }
}

/// Left-aligned columns separated by two spaces.
pub fn render(rows: &[Vec<String>]) -> String {
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

/// The exit status of a verification: 0 when every check passed, otherwise 1 with every failure named
/// on stderr.
pub fn finish(failures: &[Failure]) -> Result<ExitCode> {
    if failures.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "novikoff verify: {} check{} failed:",
        failures.len(),
        if failures.len() == 1 { "" } else { "s" }
    );
    for failure in failures {
        eprintln!("  {failure}");
    }
    Ok(ExitCode::FAILURE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Floats` writes what a JSON value of the same vector would, byte for byte: shortest round-trip
    /// numbers, `-0.0` kept, and `null` for what JSON cannot hold.
    #[test]
    fn floats_are_written_as_their_json_values_would_be() {
        let v = ndarray::array![
            1.0,
            -0.0,
            1e-300,
            0.1 + 0.2,
            f64::MAX,
            f64::NAN,
            f64::NEG_INFINITY
        ];
        let direct = serde_json::to_string(&Floats(&v)).unwrap();
        let tree = serde_json::to_string(&serde_json::json!(v.to_vec())).unwrap();
        assert_eq!(direct, tree);
        assert!(direct.starts_with("[1.0,-0.0,1e-300,0.30000000000000004,"));
        assert!(direct.ends_with(",null,null]"));
        let empty = ndarray::Array1::<f64>::zeros(0);
        assert_eq!(serde_json::to_string(&Floats(&empty)).unwrap(), "[]");
    }
}
