//! `ln` and `exp` in plain IEEE arithmetic, so that generated data and kernel values (the Gaussian kernel's
//! `exp`) have the same bits on every machine.
//!
//! `f64::ln` and `f64::exp` call the platform's libm, whose last bit differs between glibc, musl, macOS and
//! Windows. A generator that used them would give the same seed different data on different machines. The
//! functions here are the classic fdlibm algorithms (argument reduction plus a fixed polynomial), written
//! with `+ − × ÷` and `sqrt` only, which IEEE 754 rounds identically everywhere (Rust never fuses a
//! multiply and an add on its own). They are accurate to within one ulp; the unit tests compare them with
//! the platform's functions.

const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000); // 6.93147180369123816490e-1
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76); // 1.90821492927058770002e-10
const INV_LN2: f64 = f64::from_bits(0x3ff7_1547_652b_82fe); // 1.44269504088896338700

const LG1: f64 = f64::from_bits(0x3fe5_5555_5555_5593); // 6.666666666666735130e-1
const LG2: f64 = f64::from_bits(0x3fd9_9999_9997_fa04); // 3.999999999940941908e-1
const LG3: f64 = f64::from_bits(0x3fd2_4924_9422_9359); // 2.857142874366239149e-1
const LG4: f64 = f64::from_bits(0x3fcc_71c5_1d8e_78af); // 2.222219843214978396e-1
const LG5: f64 = f64::from_bits(0x3fc7_4664_96cb_03de); // 1.818357216161805012e-1
const LG6: f64 = f64::from_bits(0x3fc3_9a09_d078_c69f); // 1.531383769920937332e-1
const LG7: f64 = f64::from_bits(0x3fc2_f112_df3e_5244); // 1.479819860511658591e-1

const OVERFLOW: f64 = f64::from_bits(0x4086_2e42_fefa_39ef); // 709.782712893383973096
const UNDERFLOW: f64 = f64::from_bits(0xc087_4910_d52d_3051); // -745.13321910194110842

const P1: f64 = f64::from_bits(0x3fc5_5555_5555_553e); // 1.66666666666666019037e-1
const P2: f64 = f64::from_bits(0xbf66_c16c_16be_bd93); // -2.77777777770155933842e-3
const P3: f64 = f64::from_bits(0x3f11_566a_af25_de2c); // 6.61375632143793436117e-5
const P4: f64 = f64::from_bits(0xbebb_bd41_c5d2_6bf1); // -1.65339022054652515390e-6
const P5: f64 = f64::from_bits(0x3e66_3769_72be_a4d0); // 4.13813679705723846039e-8

/// The natural logarithm (fdlibm's `e_log.c`): `ln(0) = −∞`, `ln(x < 0) = NaN`.
pub(crate) fn ln(x: f64) -> f64 {
    let mut x = x;
    let mut bits = x.to_bits();
    let mut high = (bits >> 32) as u32;
    let mut k: i32 = 0;
    if high < 0x0010_0000 || high >> 31 != 0 {
        if bits << 1 == 0 {
            return f64::NEG_INFINITY;
        }
        if high >> 31 != 0 {
            return f64::NAN;
        }
        // Subnormal: scale into the normal range first.
        k -= 54;
        x *= f64::from_bits(0x4350_0000_0000_0000); // 2^54
        bits = x.to_bits();
        high = (bits >> 32) as u32;
    } else if high >= 0x7ff0_0000 {
        return x;
    } else if high == 0x3ff0_0000 && bits << 32 == 0 {
        return 0.0;
    }
    // Reduce x to 2^k·(1 + f) with √2/2 < 1 + f < √2.
    high = high.wrapping_add(0x3ff0_0000 - 0x3fe6_a09e);
    k += (high >> 20) as i32 - 0x3ff;
    high = (high & 0x000f_ffff) + 0x3fe6_a09e;
    let reduced = f64::from_bits((u64::from(high) << 32) | (bits & 0xffff_ffff));
    let f = reduced - 1.0;
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    let r = t2 + t1;
    let dk = f64::from(k);
    s * (hfsq + r) + dk * LN2_LO - hfsq + f + dk * LN2_HI
}

/// `e^x` (fdlibm's `e_exp.c`).
pub(crate) fn exp(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > OVERFLOW {
        return f64::INFINITY;
    }
    if x < UNDERFLOW {
        return 0.0;
    }
    let abs = x.abs();
    if abs < f64::from_bits(0x3e30_0000_0000_0000) {
        // |x| < 2^-28: e^x = 1 + x to working precision.
        return 1.0 + x;
    }
    let (k, hi, lo) = if abs > 0.5 * std::f64::consts::LN_2 {
        let k: i32 = if abs < 1.5 * std::f64::consts::LN_2 {
            if x > 0.0 { 1 } else { -1 }
        } else {
            (INV_LN2 * x + 0.5f64.copysign(x)) as i32
        };
        let dk = f64::from(k);
        (k, x - dk * LN2_HI, dk * LN2_LO)
    } else {
        (0, x, 0.0)
    };
    let r = hi - lo;
    let rr = r * r;
    let c = r - rr * (P1 + rr * (P2 + rr * (P3 + rr * (P4 + rr * P5))));
    let y = 1.0 + (r * c / (2.0 - c) - lo + hi);
    if k == 0 { y } else { scalbn(y, k) }
}

/// `ln(1 + x)`, accurate also for tiny `x` (Goldberg's correction).
pub(crate) fn ln_1p(x: f64) -> f64 {
    let u = 1.0 + x;
    if u == 1.0 { x } else { ln(u) * (x / (u - 1.0)) }
}

/// `e^x − 1`, accurate also for tiny `x` (Kahan's correction).
pub(crate) fn exp_m1(x: f64) -> f64 {
    let u = exp(x);
    if u == 1.0 {
        return x;
    }
    if u.is_infinite() {
        return u;
    }
    let um1 = u - 1.0;
    if um1 == -1.0 {
        return -1.0;
    }
    um1 * x / ln(u)
}

/// `base^power` for `base > 0`, as `e^(power·ln base)`.
pub(crate) fn powf(base: f64, power: f64) -> f64 {
    exp(power * ln(base))
}

/// `x·2^n` without overflow in the intermediate steps (musl's `scalbn`).
fn scalbn(mut x: f64, mut n: i32) -> f64 {
    let two_1023 = f64::from_bits(0x7fe0_0000_0000_0000);
    let two_m1022_53 =
        f64::from_bits(0x0010_0000_0000_0000) * f64::from_bits(0x4340_0000_0000_0000);
    if n > 1023 {
        x *= two_1023;
        n -= 1023;
        if n > 1023 {
            x *= two_1023;
            n -= 1023;
            n = n.min(1023);
        }
    } else if n < -1022 {
        x *= two_m1022_53;
        n += 1022 - 53;
        if n < -1022 {
            x *= two_m1022_53;
            n += 1022 - 53;
            n = n.max(-1022);
        }
    }
    x * f64::from_bits(((0x3ff + n) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> u64 {
        if a == b {
            return 0;
        }
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    /// Deterministic arguments spread over many binades.
    fn arguments() -> impl Iterator<Item = f64> {
        let mut state = 0x1234_5678_9abc_def0u64;
        (0..200_000).map(move |_| {
            state = crate::rng::splitmix64(state);
            let mantissa = 1.0 + (state >> 12) as f64 / (1u64 << 52) as f64;
            let exponent = ((state & 0xff) as i32) - 128;
            mantissa * 2f64.powi(exponent)
        })
    }

    #[test]
    fn ln_is_within_one_ulp_of_the_platform() {
        for x in arguments().chain([
            1.0,
            2.0,
            0.5,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            1.0 + 1e-15,
        ]) {
            assert!(
                ulps(ln(x), x.ln()) <= 1,
                "ln({x:e}) = {} vs {}",
                ln(x),
                x.ln()
            );
        }
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan());
        assert_eq!(ln(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn exp_is_within_one_ulp_of_the_platform() {
        for x in arguments()
            .map(|a| a.min(700.0))
            .chain([-1.0, -700.0, -740.0, 1e-20, 0.3, -0.3, 1.0])
        {
            for x in [x, -x] {
                assert!(
                    ulps(exp(x), x.exp()) <= 1,
                    "exp({x:e}) = {} vs {}",
                    exp(x),
                    x.exp()
                );
            }
        }
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(800.0), f64::INFINITY);
        assert_eq!(exp(-800.0), 0.0);
    }

    #[test]
    fn the_corrected_forms_keep_tiny_arguments() {
        for x in [1e-300, 1e-17, -1e-17, 1e-10, 1e-3, -0.5, 0.7, 3.0] {
            let rel = |a: f64, b: f64| ((a - b) / b).abs();
            assert!(rel(ln_1p(x), x.ln_1p()) < 1e-15, "ln_1p({x})");
            assert!(rel(exp_m1(x), x.exp_m1()) < 1e-15, "exp_m1({x})");
        }
        assert_eq!(exp_m1(1000.0), f64::INFINITY);
        assert_eq!(exp_m1(-1000.0), -1.0);
    }

    #[test]
    fn pinned_values_never_change() {
        // Bits of this implementation: a change here changes every generated dataset. (exp(1) is one ulp
        // above the correctly rounded e, which is within the documented accuracy.)
        assert_eq!(ln(10.0).to_bits(), 4_612_367_379_483_415_830);
        assert_eq!(exp(1.0).to_bits(), 4_613_303_445_314_885_482);
        assert_eq!(powf(2.0, 0.5).to_bits(), 4_609_047_870_845_172_684);
        assert_eq!(ln(0.3).to_bits(), 13_831_473_067_500_349_217);
    }
}
