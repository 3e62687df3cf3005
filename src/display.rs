//! How the crate writes a number for people: the one formatting shared by the library's messages and
//! the command line's tables, so that a bound reads the same in both.

/// A number in at most 6 significant digits, trailing zeros trimmed; scientific notation outside
/// `[1e-4, 1e6)`.
///
/// ```
/// use novikoff::display::short_number;
/// assert_eq!(short_number(5.000000000000047), "5");
/// assert_eq!(short_number(2.23606797749979), "2.23607");
/// assert_eq!(short_number(1.5e-7), "1.50000e-7");
/// ```
pub fn short_number(v: f64) -> String {
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
