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

/// A number in the fewest digits that read back as the same `f64` (the shortest round trip), written
/// as Python's `repr` writes it: positional in `[1e-4, 1e16)`, scientific outside, so that a radius of
/// 10²⁰⁰ or a weight of 5·10⁻³²⁰ takes a few characters, not hundreds of zeros.
///
/// ```
/// use novikoff::display::round_trip;
/// assert_eq!(round_trip(0.1), "0.1");
/// assert_eq!(round_trip(123456789.5), "123456789.5");
/// assert_eq!(round_trip(1e200), "1e200");
/// assert_eq!(round_trip(-2.5e-7), "-2.5e-7");
/// assert_eq!(round_trip(-0.0), "-0");
/// ```
pub fn round_trip(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-4..1e16).contains(&v.abs()) {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_trip_number_reads_back_to_the_bit_and_stays_short() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut checked = 0;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for v in [
                f64::from_bits(x),
                f64::from_bits(x >> 2),
                (x >> 11) as f64 * 1e-9,
            ] {
                if !v.is_finite() {
                    continue;
                }
                let text = round_trip(v);
                assert_eq!(
                    text.parse::<f64>().unwrap().to_bits(),
                    v.to_bits(),
                    "{text}"
                );
                // The longest: a sign, 17 digits, a point, `e` and a signed three-digit exponent.
                assert!(text.len() <= 24, "{text}");
                checked += 1;
            }
        }
        assert!(checked > 50_000);
        assert_eq!(round_trip(f64::MIN_POSITIVE), "2.2250738585072014e-308");
        assert_eq!(round_trip(1e16), "1e16");
        assert_eq!(round_trip(9999999999999998.0), "9999999999999998");
        assert_eq!(round_trip(1e-4), "0.0001");
        assert_eq!(round_trip(f64::NAN), "NaN");
    }
}
