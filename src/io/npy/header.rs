//! The `.npy` header: its magic, version and dictionary parsed, the dtype and shape checked.

use super::*;

/// The element types that convert exactly to f64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Float,
    Signed,
    Unsigned,
    Bool,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Dtype {
    pub(super) kind: Kind,
    pub(super) size: usize,
    pub(super) big_endian: bool,
}

impl Dtype {
    /// Parse a descriptor such as `'<f8'` (the Python literal, quotes included).
    pub(super) fn parse(literal: &str) -> std::result::Result<Self, String> {
        let text = literal.trim().trim_matches(|c| c == '\'' || c == '"');
        let advice = "convert it with arr.astype(np.float64)";
        if text.is_empty() || literal.trim_start().starts_with(['[', '{', '(']) {
            return Err(format!(
                "structured dtype {literal} is not supported: store a plain 2-D float array"
            ));
        }
        let (big_endian, rest) = match text.as_bytes()[0] {
            b'<' | b'|' => (false, &text[1..]),
            b'>' => (true, &text[1..]),
            b'=' => (cfg!(target_endian = "big"), &text[1..]),
            _ => (cfg!(target_endian = "big"), text),
        };
        let mut chars = rest.chars();
        let kind_char = chars.next().unwrap_or(' ');
        let size: usize = chars.as_str().parse().unwrap_or(0);
        let kind = match (kind_char, size) {
            ('f', 4 | 8) => Kind::Float,
            ('f', 2) => return Err(format!("dtype float16 ({literal}) is not read; {advice}")),
            ('i', 1 | 2 | 4 | 8) => Kind::Signed,
            ('u', 1 | 2 | 4 | 8) => Kind::Unsigned,
            ('b', 1) if rest == "b1" => Kind::Bool,
            ('?', _) => Kind::Bool,
            _ => {
                return Err(format!(
                    "dtype {literal} is not a real number type novikoff reads (float64, float32, integers, bool); {advice}"
                ));
            }
        };
        let size = if kind == Kind::Bool { 1 } else { size };
        Ok(Self {
            kind,
            size,
            big_endian,
        })
    }

    /// Decode one element. Integers beyond 2⁵³ are refused, since f64 would round them.
    #[inline(always)]
    pub(super) fn decode(&self, bytes: &[u8]) -> std::result::Result<f64, String> {
        fn take<const N: usize>(bytes: &[u8], big: bool) -> [u8; N] {
            let mut out = [0u8; N];
            out.copy_from_slice(&bytes[..N]);
            if big {
                out.reverse();
            }
            out
        }
        let big = self.big_endian;
        const EXACT: u64 = 1 << 53;
        Ok(match (self.kind, self.size) {
            (Kind::Float, 8) => f64::from_le_bytes(take(bytes, big)),
            (Kind::Float, _) => f64::from(f32::from_le_bytes(take(bytes, big))),
            (Kind::Signed, 1) => f64::from(bytes[0] as i8),
            (Kind::Signed, 2) => f64::from(i16::from_le_bytes(take(bytes, big))),
            (Kind::Signed, 4) => f64::from(i32::from_le_bytes(take(bytes, big))),
            (Kind::Signed, _) => {
                let v = i64::from_le_bytes(take(bytes, big));
                if v.unsigned_abs() > EXACT {
                    return Err(format!(
                        "the int64 value {v} is not exactly representable as a float64"
                    ));
                }
                v as f64
            }
            (Kind::Unsigned, 1) => f64::from(bytes[0]),
            (Kind::Unsigned, 2) => f64::from(u16::from_le_bytes(take(bytes, big))),
            (Kind::Unsigned, 4) => f64::from(u32::from_le_bytes(take(bytes, big))),
            (Kind::Unsigned, _) => {
                let v = u64::from_le_bytes(take(bytes, big));
                if v > EXACT {
                    return Err(format!(
                        "the uint64 value {v} is not exactly representable as a float64"
                    ));
                }
                v as f64
            }
            (Kind::Bool, _) => f64::from(u8::from(bytes[0] != 0)),
        })
    }
}

/// What a header says, checked.
pub(super) struct NpyHeader {
    pub(super) dtype: Dtype,
    pub(super) fortran: bool,
    pub(super) shape: Vec<usize>,
    /// Bytes of the header, preamble included.
    pub(super) length: u64,
}

impl NpyHeader {
    /// The number of elements, if the byte count fits in u64.
    pub(super) fn elements(&self) -> Option<u64> {
        self.shape
            .iter()
            .try_fold(1u64, |acc, &s| acc.checked_mul(s as u64))
            .filter(|n| n.checked_mul(self.dtype.size as u64).is_some())
    }
}

/// Read and check a header from a source holding `available` bytes in all. `fail` builds an error with the
/// array's name in it.
pub(super) fn read_header<R: Read>(
    reader: &mut R,
    available: u64,
    fail: &dyn Fn(String) -> Error,
) -> Result<NpyHeader> {
    let mut preamble = [0u8; 12];
    read_full(
        reader,
        &mut preamble[..10],
        fail,
        "too short for a .npy header",
    )?;
    if &preamble[..6] != b"\x93NUMPY" {
        return Err(fail(
            "not a .npy array: the magic string \\x93NUMPY is missing".into(),
        ));
    }
    let (prefix, header_length) = match preamble[6] {
        1 => (
            10usize,
            u64::from(u16::from_le_bytes([preamble[8], preamble[9]])),
        ),
        2 | 3 => {
            read_full(
                reader,
                &mut preamble[10..12],
                fail,
                "too short for a .npy header",
            )?;
            (
                12usize,
                u64::from(u32::from_le_bytes([
                    preamble[8],
                    preamble[9],
                    preamble[10],
                    preamble[11],
                ])),
            )
        }
        major => {
            return Err(fail(format!(
                "unsupported .npy format version {major}.{}",
                preamble[7]
            )));
        }
    };
    if header_length > MAX_HEADER || prefix as u64 + header_length > available {
        return Err(fail(format!(
            "truncated or corrupt: the header claims {header_length} bytes, the file has {available} in all"
        )));
    }
    let mut chained = Cursor::new(&preamble[..prefix]).chain(reader.take(header_length));
    let header = Header::from_reader(&mut chained).map_err(|e| match e {
        ReadHeaderError::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            fail("truncated: the header is incomplete".into())
        }
        ReadHeaderError::Io(e) => fail(format!("cannot read the header: {e}")),
        ReadHeaderError::Parse(e) => fail(format!("malformed .npy header: {e}")),
    })?;
    let dtype = Dtype::parse(&header.type_descriptor.to_string()).map_err(fail)?;
    Ok(NpyHeader {
        dtype,
        fortran: header.layout.is_fortran(),
        shape: header.shape,
        length: prefix as u64 + header_length,
    })
}
