//! Small formatting helpers shared by the subcommands.

use std::io::Write;

use novikoff::{Error, Result};

/// Print a two-column key/value table.
pub fn print_pairs(pairs: &[(&str, String)]) -> Result<()> {
    let width = pairs.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = std::io::stdout().lock();
    for (key, value) in pairs {
        writeln!(out, "{key:<width$}  {value}").map_err(|e| Error::io("<stdout>", e))?;
    }
    Ok(())
}

/// Print one JSON value on a line of its own.
pub fn print_json(value: &serde_json::Value) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value)
        .map_err(|e| Error::io("<stdout>", std::io::Error::other(e)))?;
    writeln!(out).map_err(|e| Error::io("<stdout>", e))
}

/// A vector of floats as `[a, b, c]` with shortest round-trip formatting.
pub fn format_vector(values: &[f64]) -> String {
    let parts: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    format!("[{}]", parts.join(", "))
}
