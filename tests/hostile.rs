//! The hostile-input sweep: hundreds of malformed, extreme and odd inputs, generated here in a temporary
//! folder, through every command that reads something, each run by the real binary under a time bound.
//!
//! Every refused case must exit 2 within [`TIME_LIMIT`], print no panic, and name the file and the place
//! (a line, a row, an entry, or the flag). Valid-but-odd inputs (one class through the origin, empty
//! LIBSVM rows, ±0.0, a byte-order mark) must give the right answer instead.
//!
//! Every case carries the [`Owner`] part of issue #18 whose fix it checks, shown beside a failure.
//! `NOVIKOFF_SWEEP_ONLY=TEXT` runs only the cases whose name contains TEXT.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The longest a debug build may take on one case before it counts as a hang and is killed.
const TIME_LIMIT: Duration = Duration::from_secs(30);

/// Cases run at once (the machine has two cores).
const WORKERS: usize = 2;

/// The part of issue #18 a case checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// The CLI's refusals: one class, ignored flags, messages.
    Cli,
    /// Overflow, underflow and false certificates.
    Numerics,
    /// The experiment store: results files, shards, spec messages, grid sizes, `--out FILE`.
    Store,
    /// The readers: FIFOs, line-length caps, /dev/zero, message truncation, NUL escaping, CR endings.
    Readers,
}

/// What a case must do.
#[derive(Debug, Clone)]
enum Expect {
    /// Exit 2, with every needle in stderr (a needle such as `bad.csv:3:2` names the file and the place).
    Refused(Vec<String>),
    /// Exit 0, with every needle in stdout and none of the forbidden texts.
    Answer {
        needles: Vec<String>,
        forbidden: Vec<String>,
    },
    /// Either the answer, or a refusal whose stderr holds the needle (the policy is another part's).
    AnswerOrRefused {
        needles: Vec<String>,
        forbidden: Vec<String>,
        refusal: String,
    },
}

#[derive(Debug, Clone)]
struct Case {
    name: String,
    owner: Owner,
    args: Vec<String>,
    expect: Expect,
    /// A FIFO to feed with these bytes from a writer thread while the case runs.
    fifo: Option<(PathBuf, Vec<u8>)>,
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn refused(needles: &[&str]) -> Expect {
    Expect::Refused(strings(needles))
}

fn answer(needles: &[&str]) -> Expect {
    Expect::Answer {
        needles: strings(needles),
        forbidden: Vec::new(),
    }
}

/// Builds the case table in a temporary folder.
struct Sweep {
    dir: PathBuf,
    cases: Vec<Case>,
}

impl Sweep {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn file(&self, name: &str, contents: &[u8]) -> String {
        let path = self.path(name);
        std::fs::write(&path, contents).unwrap();
        path.display().to_string()
    }

    fn push(&mut self, name: String, owner: Owner, args: Vec<String>, expect: Expect) {
        self.cases.push(Case {
            name,
            owner,
            args,
            expect,
            fifo: None,
        });
    }

    /// One data file through every command that reads data: train, margin (free bias and through the
    /// origin), verify and convert. Each must refuse it with `needle` in its message.
    fn data_refused(
        &mut self,
        name: &str,
        contents: &[u8],
        extra: &[&str],
        needle: &str,
        owner: Owner,
    ) {
        let path = self.file(name, contents);
        self.each_command(name, &path, extra, refused(&[needle]), owner);
    }

    fn each_command(
        &mut self,
        name: &str,
        path: &str,
        extra: &[&str],
        expect: Expect,
        owner: Owner,
    ) {
        let out = self
            .path(&format!("converted-{name}.csv"))
            .display()
            .to_string();
        let commands: [&[&str]; 5] = [
            &["train"],
            &["margin"],
            &["margin", "--through-origin"],
            &["verify", "--rules", "none,classic", "--max-epochs", "50"],
            &["convert"],
        ];
        for command in commands {
            let mut args = strings(command);
            args.push(path.to_string());
            if command[0] == "convert" {
                args.push(out.clone());
            }
            args.extend(strings(extra));
            self.push(
                format!("{} {name} {}", command.join(" "), extra.join(" ")),
                owner,
                args,
                expect.clone(),
            );
        }
    }
}

/// Malformed delimited text: each refused at its line (and column where there is one).
fn csv_cases(s: &mut Sweep) {
    let cli = Owner::Cli;
    let cases: &[(&str, &[u8], &[&str], &str)] = &[
        ("nan.csv", b"a,b,y\n1,2,1\n3,NaN,-1\n", &[], "nan.csv:3:2"),
        ("inf.csv", b"a,b,y\n1,inf,1\n3,4,-1\n", &[], "inf.csv:2:2"),
        (
            "neginf.csv",
            b"a,b,y\n1,-inf,1\n3,4,-1\n",
            &[],
            "neginf.csv:2:2",
        ),
        (
            "e309.csv",
            b"a,b,y\n1,1e309,1\n3,4,-1\n",
            &[],
            "e309.csv:2:2",
        ),
        (
            "dots.csv",
            b"a,b,y\n1,1.2.3,1\n3,4,-1\n",
            &[],
            "dots.csv:2:2",
        ),
        ("expo.csv", b"a,b,y\n1,1e,1\n3,4,-1\n", &[], "expo.csv:2:2"),
        ("dash.csv", b"a,b,y\n--1,2,1\n3,4,-1\n", &[], "dash.csv:2:1"),
        ("hex.csv", b"a,b,y\n0x10,2,1\n3,4,-1\n", &[], "hex.csv:2:1"),
        ("word.csv", b"a,b,y\n1,x7,1\n3,4,-1\n", &[], "word.csv:2:2"),
        (
            "blankfield.csv",
            b"a,b,y\n1,,1\n3,4,-1\n",
            &[],
            "blankfield.csv:2:2",
        ),
        ("ragged.csv", b"a,b,y\n1,2,1\n3,-1\n", &[], "ragged.csv:3"),
        ("long.csv", b"a,b,y\n1,2,1\n3,4,5,-1\n", &[], "long.csv:3"),
        ("empty.csv", b"", &[], "empty.csv"),
        ("header.csv", b"a,b,y\n", &[], "header.csv"),
        ("blanklines.csv", b"\n\n\n", &[], "blanklines.csv"),
        (
            "nolabel.csv",
            b"a,b,y\n1,2,\n3,4,-1\n",
            &[],
            "nolabel.csv:2:3",
        ),
        ("labelonly.csv", b"y\n1\n-1\n", &[], "labelonly.csv"),
        ("three.csv", b"a,y\n1,1\n2,-1\n3,2\n", &[], "three.csv:4:2"),
        ("twovals.csv", b"a,y\n1,2\n3,4\n", &[], "twovals.csv:3"),
        ("labelnan.csv", b"a,y\n1,nan\n3,1\n", &[], "labelnan.csv:2"),
        ("labelinf.csv", b"a,y\n1,1\n3,inf\n", &[], "labelinf.csv:3"),
        (
            "labeltext.csv",
            b"a,y\n1,cat\n3,dog\n",
            &[],
            "labeltext.csv:2",
        ),
        ("single2.csv", b"a,y\n1,2\n3,2\n", &[], "single2.csv:2"),
        ("utf8.csv", b"a,y\n1,1\n\xff,-1\n", &[], "utf8.csv:3:1"),
        (
            "utf8label.csv",
            b"a,y\n1,1\n2,\xfe\n",
            &[],
            "utf8label.csv:3:2",
        ),
        ("quote.csv", b"a,y\n\"1,1\n2,-1\n", &[], "quote.csv:2"),
        (
            "nohdrword.csv",
            b"a,y\n1,1\n2,-1\n",
            &["--no-header"],
            "nohdrword.csv:1:1",
        ),
        (
            "col.csv",
            b"a,b,y\n1,2,1\n3,4,-1\n",
            &["--label-col", "label"],
            "col.csv",
        ),
        (
            "col9.csv",
            b"a,b,y\n1,2,1\n3,4,-1\n",
            &["--label-col", "9"],
            "col9.csv",
        ),
        (
            "feat.csv",
            b"a,b,y\n1,2,1\n3,4,-1\n",
            &["--features", "3"],
            "feat.csv",
        ),
        ("semi.csv", b"a;b;y\n1;2;1\n3;4;-1\n", &[], "semi.csv:1"),
        ("tabs.csv", b"a\tb\ty\n1\t2\t1\n", &[], "tabs.csv:1"),
        (
            "spaces.csv",
            b"a,b,y\n1 2,3,1\n3,4,-1\n",
            &[],
            "spaces.csv:2:1",
        ),
        (
            "plusminus.csv",
            b"a,b,y\n+-1,3,1\n3,4,-1\n",
            &[],
            "plusminus.csv:2:1",
        ),
        (
            "lateinf.csv",
            b"a,b,y\n1,2,1\n3,4,-1\n5,6,1\n7,Infinity,-1\n",
            &[],
            "lateinf.csv:5:2",
        ),
        ("ext.xlsx", b"a,y\n1,1\n2,-1\n", &[], "ext.xlsx"),
        ("noext", b"a,y\n1,1\n2,-1\n", &[], "noext"),
    ];
    for (name, contents, extra, needle) in cases {
        s.data_refused(name, contents, extra, needle, cli);
    }
    // Another part's fixes: a NUL byte is escaped in the echo, an enormous field is not echoed whole.
    let mut huge = b"a,y\n1,1\n".to_vec();
    huge.extend(std::iter::repeat_n(b'9', 100_000));
    huge.extend(b"x,-1\n");
    s.data_refused(
        "hugefield.csv",
        &huge,
        &[],
        "hugefield.csv:3:1",
        Owner::Readers,
    );
    s.data_refused(
        "nul.csv",
        b"a,y\n1,1\n2\x00,-1\n",
        &[],
        "nul.csv:3:1",
        Owner::Cli,
    );
}

/// LIBSVM text.
fn libsvm_cases(s: &mut Sweep) {
    let cases: &[(&str, &[u8], &[&str], &str)] = &[
        ("zero.svm", b"1 0:1\n-1 1:2\n", &[], "zero.svm:1:3"),
        ("negidx.svm", b"1 -3:1\n-1 1:2\n", &[], "negidx.svm:1"),
        ("order.svm", b"1 2:1 1:1\n-1 1:2\n", &[], "order.svm:1"),
        ("dup.svm", b"1 1:1 1:2\n-1 1:2\n", &[], "dup.svm:1"),
        ("colon.svm", b"1 1-1\n-1 1:2\n", &[], "colon.svm:1"),
        ("value.svm", b"1 1:abc\n-1 1:2\n", &[], "value.svm:1"),
        ("idxword.svm", b"1 a:1\n-1 1:2\n", &[], "idxword.svm:1"),
        ("nanval.svm", b"1 1:nan\n-1 1:2\n", &[], "nanval.svm:1"),
        ("infval.svm", b"1 1:1\n-1 1:-inf\n", &[], "infval.svm:2"),
        ("e309.svm", b"1 1:1\n-1 1:1e309\n", &[], "e309.svm:2"),
        ("label.svm", b"cat 1:1\n-1 1:2\n", &[], "label.svm:1"),
        ("labelnan.svm", b"nan 1:1\n-1 1:2\n", &[], "labelnan.svm:1"),
        ("three.svm", b"1 1:1\n-1 1:2\n3 1:3\n", &[], "three.svm:3"),
        ("single3.svm", b"3 1:1\n3 1:2\n", &[], "single3.svm:1"),
        (
            "beyond.svm",
            b"1 3:1\n-1 1:2\n",
            &["--features", "2"],
            "beyond.svm:1",
        ),
        ("empty.svm", b"", &[], "empty.svm"),
        ("comments.svm", b"# only a comment\n\n", &[], "comments.svm"),
        ("onlylabels.svm", b"1\n-1\n", &[], "onlylabels.svm"),
        ("utf8.svm", b"1 1:1\n-1 1:\xff\n", &[], "utf8.svm:2"),
        // An index near usize::MAX must not size a matrix.
        (
            "hugeidx.svm",
            b"1 18446744073709551615:1\n-1 1:2\n",
            &[],
            "--features 18446744073709551615",
        ),
        (
            "bigidx.svm",
            b"1 99999999999:1\n-1 1:2\n",
            &[],
            "bigidx.svm",
        ),
        (
            "overidx.svm",
            b"1 99999999999999999999999:1\n-1 1:2\n",
            &[],
            "overidx.svm:1",
        ),
        ("colonval.svm", b"1 1:\n-1 1:2\n", &[], "colonval.svm:1"),
        (
            "labelcol.svm",
            b"1 1:1\n-1 1:2\n",
            &["--label-col", "1"],
            "--label-col",
        ),
        (
            "noheader.svm",
            b"1 1:1\n-1 1:2\n",
            &["--no-header"],
            "--no-header",
        ),
        (
            "delim.svm",
            b"1 1:1\n-1 1:2\n",
            &["--delimiter", ","],
            "--delimiter",
        ),
    ];
    for (name, contents, extra, needle) in cases {
        s.data_refused(name, contents, extra, needle, Owner::Cli);
    }
}

/// A `.npy` file: the magic, version 1.0, a padded header dict, then the data.
fn npy(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
        if fortran { "True" } else { "False" }
    );
    let mut header = dict.into_bytes();
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(b' ');
    }
    header.push(b'\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header);
    out.extend(data);
    out
}

fn f64s(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// An uncompressed zip archive of `.npy` members (enough of the format for NumPy's `savez`).
fn npz(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in members {
        let offset = out.len() as u32;
        let crc = crc32(data);
        let mut local = Vec::new();
        local.extend(0x0403_4b50u32.to_le_bytes());
        local.extend([20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        local.extend(crc.to_le_bytes());
        local.extend((data.len() as u32).to_le_bytes());
        local.extend((data.len() as u32).to_le_bytes());
        local.extend((name.len() as u16).to_le_bytes());
        local.extend(0u16.to_le_bytes());
        local.extend(name.as_bytes());
        out.extend(&local);
        out.extend(data);
        central.extend(0x0201_4b50u32.to_le_bytes());
        central.extend([20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        central.extend(crc.to_le_bytes());
        central.extend((data.len() as u32).to_le_bytes());
        central.extend((data.len() as u32).to_le_bytes());
        central.extend((name.len() as u16).to_le_bytes());
        central.extend([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        central.extend(offset.to_le_bytes());
        central.extend(name.as_bytes());
    }
    let start = out.len() as u32;
    out.extend(&central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0, 0, 0, 0]);
    out.extend((members.len() as u16).to_le_bytes());
    out.extend((members.len() as u16).to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(start.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// NumPy `.npy` and `.npz` files.
fn numpy_cases(s: &mut Sweep) {
    let good = f64s(&[1.0, 2.0, 1.0, -3.0, 4.0, -1.0]);
    let full = npy("<f8", false, "(2, 3)", &good);
    let mut cases: Vec<(&str, Vec<u8>, &[&str], &str)> = vec![
        ("magic.npy", b"\x93NUMPZ\x01\x00".to_vec(), &[], "magic.npy"),
        ("short.npy", b"\x93NUM".to_vec(), &[], "short.npy"),
        ("empty.npy", Vec::new(), &[], "empty.npy"),
        ("cut-header.npy", full[..30].to_vec(), &[], "cut-header.npy"),
        (
            "cut-data.npy",
            full[..full.len() - 5].to_vec(),
            &[],
            "cut-data.npy",
        ),
        (
            "extra.npy",
            [full.clone(), vec![0; 8]].concat(),
            &[],
            "extra.npy",
        ),
        (
            "f2.npy",
            npy("<f2", false, "(2, 3)", &[0; 12]),
            &[],
            "f2.npy",
        ),
        (
            "c16.npy",
            npy("<c16", false, "(2, 3)", &[0; 96]),
            &[],
            "c16.npy",
        ),
        (
            "obj.npy",
            npy("|O", false, "(2, 3)", &[0; 48]),
            &[],
            "obj.npy",
        ),
        (
            "str.npy",
            npy("<U3", false, "(2, 3)", &[0; 72]),
            &[],
            "str.npy",
        ),
        ("1d.npy", npy("<f8", false, "(6,)", &good), &[], "1d.npy"),
        (
            "3d.npy",
            npy("<f8", false, "(1, 2, 3)", &good),
            &[],
            "3d.npy",
        ),
        (
            "scalar.npy",
            npy("<f8", false, "()", &good[..8]),
            &[],
            "scalar.npy",
        ),
        (
            "zero-rows.npy",
            npy("<f8", false, "(0, 3)", &[]),
            &[],
            "zero-rows.npy",
        ),
        (
            "one-col.npy",
            npy("<f8", false, "(2, 1)", &f64s(&[1.0, -1.0])),
            &[],
            "one-col.npy",
        ),
        // A header that claims 2⁶⁰ rows must not size an allocation.
        (
            "huge.npy",
            npy("<f8", false, "(1152921504606846976, 3)", &good),
            &[],
            "huge.npy",
        ),
        (
            "overflow.npy",
            npy(
                "<f8",
                false,
                "(18446744073709551615, 18446744073709551615)",
                &good,
            ),
            &[],
            "overflow.npy",
        ),
        (
            "negdim.npy",
            npy("<f8", false, "(-2, 3)", &good),
            &[],
            "negdim.npy",
        ),
        (
            "dict.npy",
            {
                let mut bytes = full.clone();
                bytes[10] = b'[';
                bytes
            },
            &[],
            "dict.npy",
        ),
        (
            "headerlen.npy",
            {
                let mut bytes = full.clone();
                bytes[8] = 0xff;
                bytes[9] = 0xff;
                bytes
            },
            &[],
            "headerlen.npy",
        ),
        (
            "nan.npy",
            npy(
                "<f8",
                false,
                "(2, 3)",
                &f64s(&[1.0, f64::NAN, 1.0, -3.0, 4.0, -1.0]),
            ),
            &[],
            "nan.npy",
        ),
        (
            "inf.npy",
            npy(
                "<f8",
                false,
                "(2, 3)",
                &f64s(&[1.0, 2.0, 1.0, f64::INFINITY, 4.0, -1.0]),
            ),
            &[],
            "inf.npy",
        ),
        (
            "label.npy",
            npy(
                "<f8",
                false,
                "(2, 3)",
                &f64s(&[1.0, 2.0, 0.5, -3.0, 4.0, 3.0]),
            ),
            &[],
            "label.npy",
        ),
        (
            "three.npy",
            npy(
                "<f8",
                false,
                "(3, 2)",
                &f64s(&[1.0, 1.0, 2.0, -1.0, 3.0, 2.0]),
            ),
            &[],
            "three.npy",
        ),
        (
            "labelnan.npy",
            npy("<f8", false, "(2, 2)", &f64s(&[1.0, f64::NAN, 2.0, 1.0])),
            &[],
            "labelnan.npy",
        ),
        (
            "labelcol.npy",
            full.clone(),
            &["--label-col", "1"],
            "--label-col",
        ),
        (
            "noheader.npy",
            full.clone(),
            &["--no-header"],
            "--no-header",
        ),
        (
            "delim.npy",
            full.clone(),
            &["--delimiter", ";"],
            "--delimiter",
        ),
        (
            "features.npy",
            full.clone(),
            &["--features", "5"],
            "features.npy",
        ),
    ];
    let x = npy("<f8", false, "(2, 2)", &f64s(&[1.0, 2.0, -3.0, 4.0]));
    let y = npy("<f8", false, "(2,)", &f64s(&[1.0, -1.0]));
    let npz_cases: Vec<(&str, Vec<u8>, &[&str], &str)> = vec![
        (
            "notzip.npz",
            b"PK\x03\x04 not really".to_vec(),
            &[],
            "notzip.npz",
        ),
        ("text.npz", b"a,y\n1,1\n".to_vec(), &[], "text.npz"),
        ("empty.npz", Vec::new(), &[], "empty.npz"),
        ("nox.npz", npz(&[("y.npy", y.clone())]), &[], "nox.npz"),
        ("noy.npz", npz(&[("x.npy", x.clone())]), &[], "noy.npz"),
        (
            "xy-swapped.npz",
            npz(&[("x.npy", y.clone()), ("y.npy", x.clone())]),
            &[],
            "xy-swapped.npz",
        ),
        (
            "ylen.npz",
            npz(&[
                ("x.npy", x.clone()),
                ("y.npy", npy("<f8", false, "(3,)", &f64s(&[1.0, -1.0, 1.0]))),
            ]),
            &[],
            "ylen.npz",
        ),
        (
            "xbad.npz",
            npz(&[("x.npy", b"junk".to_vec()), ("y.npy", y.clone())]),
            &[],
            "xbad.npz",
        ),
        (
            "xnan.npz",
            npz(&[
                (
                    "x.npy",
                    npy("<f8", false, "(2, 2)", &f64s(&[1.0, f64::NAN, -3.0, 4.0])),
                ),
                ("y.npy", y.clone()),
            ]),
            &[],
            "xnan.npz",
        ),
        (
            "ylabel.npz",
            npz(&[
                ("x.npy", x.clone()),
                ("y.npy", npy("<f8", false, "(2,)", &f64s(&[2.0, 5.0]))),
            ]),
            &[],
            "ylabel.npz",
        ),
        (
            "xhuge.npz",
            npz(&[
                ("x.npy", npy("<f8", false, "(1152921504606846976, 2)", &[])),
                ("y.npy", y.clone()),
            ]),
            &[],
            "xhuge.npz",
        ),
        (
            "cut.npz",
            npz(&[("x.npy", x.clone()), ("y.npy", y.clone())])[..60].to_vec(),
            &[],
            "cut.npz",
        ),
        (
            "labelcol.npz",
            npz(&[("x.npy", x.clone()), ("y.npy", y.clone())]),
            &["--label-col", "2"],
            "--label-col",
        ),
        (
            "noheader.npz",
            npz(&[("x.npy", x.clone()), ("y.npy", y.clone())]),
            &["--no-header"],
            "--no-header",
        ),
    ];
    cases.extend(npz_cases);
    let ints = npy(
        "<i4",
        false,
        "(2, 2)",
        &[2, 0, 0, 0, 1, 0, 0, 0, 254, 255, 255, 255, 0, 0, 0, 0],
    );
    let ints = s.file("ints.npy", &ints);
    s.push(
        "integer .npy reads".into(),
        Owner::Cli,
        strings(&["train", &ints, "--format", "json"]),
        answer(&["\"n\":2", "\"converged\":true"]),
    );
    for (name, contents, extra, needle) in &cases {
        s.data_refused(name, contents, extra, needle, Owner::Cli);
    }
}

/// Valid but odd inputs: the right answer, not a refusal.
fn valid_cases(s: &mut Sweep) {
    let basis = s.file(
        "basis.csv",
        b"x1,x2,x3,x4,y\n1,0,0,0,1\n0,1,0,0,1\n0,0,1,0,1\n0,0,0,1,1\n",
    );
    let run = |s: &mut Sweep, name: &str, args: &[&str], expect: Expect| {
        s.push(name.to_string(), Owner::Cli, strings(args), expect);
    };
    run(
        s,
        "one class: train",
        &["train", &basis, "--format", "json"],
        answer(&["\"mistakes\":4", "\"converged\":true"]),
    );
    run(
        s,
        "one class: train classic",
        &["train", &basis, "--bias", "classic", "--format", "json"],
        answer(&["\"converged\":true", "\"accuracy\":1.0"]),
    );
    run(
        s,
        "one class: margin through the origin",
        &["margin", &basis, "--through-origin", "--format", "json"],
        answer(&["\"status\":\"separable\""]),
    );
    run(
        s,
        "one class: margin with a free bias",
        &["margin", &basis],
        refused(&["basis.csv", "a free bias needs both classes"]),
    );
    run(
        s,
        "one class: verify",
        &["verify", &basis, "--format", "json"],
        answer(&["\"passed\":true", "\"both_classes\":false"]),
    );
    let out = s.path("basis-out.svm").display().to_string();
    run(
        s,
        "one class: convert",
        &["convert", &basis, &out],
        answer(&["4 positive, 0 negative"]),
    );
    let zeros = s.file("zeros.csv", b"a,y\n1,0\n2,0\n");
    run(
        s,
        "one class of 0s",
        &["train", &zeros, "--format", "json"],
        answer(&["\"w\":[-1.0]"]),
    );
    let signed_zero = s.file("signed-zero.csv", b"a,b,y\n-0.0,1,1\n0.0,-1,-1\n");
    run(
        s,
        "±0.0",
        &["train", &signed_zero, "--format", "json"],
        answer(&["\"mistakes\":1", "\"converged\":true"]),
    );
    let minus_zero_label = s.file("minus-zero-label.csv", b"a,y\n1,1\n-1,-0\n");
    run(
        s,
        "label -0 is the 0 of 0/1",
        &["train", &minus_zero_label, "--format", "json"],
        answer(&["\"converged\":true", "\"accuracy\":1.0"]),
    );
    let bom = s.file("bom.csv", b"\xef\xbb\xbfa,y\r\n1,1\r\n-1,-1\r\n");
    run(
        s,
        "BOM and CRLF",
        &["train", &bom, "--format", "json"],
        answer(&["\"n\":2", "\"converged\":true"]),
    );
    let blank = s.file("blank-lines.csv", b"a,y\n\n1,1\n\n-1,-1\n\n");
    run(
        s,
        "blank lines",
        &["train", &blank, "--format", "json"],
        answer(&["\"n\":2"]),
    );
    let empty_rows = s.file("empty-rows.svm", b"1\n-1 1:2\n");
    run(
        s,
        "LIBSVM empty row, classic",
        &[
            "train",
            &empty_rows,
            "--bias",
            "classic",
            "--format",
            "json",
        ],
        answer(&["\"converged\":true", "\"d\":1"]),
    );
    run(
        s,
        "LIBSVM empty row through the origin is not separable",
        &[
            "margin",
            &empty_rows,
            "--through-origin",
            "--format",
            "json",
        ],
        answer(&["\"separable\":false", "\"status\":\"not_separable\""]),
    );
    let comments = s.file(
        "comments-ok.svm",
        b"# a comment\n1 1:1 # trailing\n\n-1 2:1\n",
    );
    run(
        s,
        "LIBSVM comments",
        &["train", &comments, "--format", "json"],
        answer(&["\"n\":2", "\"d\":2"]),
    );
    let tiny_ok = s.file("tiny-ok.csv", b"a,y\n1e-300,1\n-1e-300,-1\n");
    s.push(
        // The product w·x of two values near 1e-300 underflows to 0, whose sign is unknown: the run stops
        // at once and says so, instead of counting a thousand epochs of mistakes it cannot judge.
        "1e-300 stops on underflow".into(),
        Owner::Numerics,
        strings(&["train", &tiny_ok, "--format", "json"]),
        answer(&[
            "\"stop_reason\":\"underflow\"",
            "\"converged\":false",
            "\"epochs\":1",
        ]),
    );
    let semi = s.file("semi-ok.csv", b"a;y\n1;1\n-1;-1\n");
    run(
        s,
        "delimiter honoured",
        &["train", &semi, "--delimiter", ";", "--format", "json"],
        answer(&["\"n\":2"]),
    );
    let positive = s.file("positive.csv", b"a,y\n1,cat\n-1,dog\n-2,bird\n");
    run(
        s,
        "one-vs-rest",
        &["train", &positive, "--positive", "cat", "--format", "json"],
        answer(&["\"converged\":true", "\"n\":3"]),
    );

    // Extreme values: another part decides whether they are refused or answered, but never falsely.
    let tiny = s.file("tiny.csv", b"a,y\n1e-310,1\n-1e-310,-1\n");
    // Separable data: a bracket (certified, or honestly inaccurate where the answer leaves the normal
    // range of f64), or a refusal, but never a certificate of non-separability.
    let separable_or_refused = |refusal: &str| Expect::AnswerOrRefused {
        needles: strings(&["\"gamma_upper\":"]),
        forbidden: strings(&["not_separable", "\"certificate\":{"]),
        refusal: refusal.into(),
    };
    s.push(
        "1e-310 is separable through the origin".into(),
        Owner::Numerics,
        strings(&["margin", &tiny, "--through-origin", "--format", "json"]),
        separable_or_refused("tiny.csv"),
    );
    s.push(
        "1e-310 is separable".into(),
        Owner::Numerics,
        strings(&["margin", &tiny, "--format", "json"]),
        separable_or_refused("tiny.csv"),
    );
    let big = s.file("big.csv", b"a,b,y\n1e308,1e308,1\n-1e308,-1e308,-1\n");
    for (label, args) in [
        ("1e308: margin", vec!["margin", &big, "--format", "json"]),
        (
            "1e308: margin through the origin",
            vec!["margin", &big, "--through-origin", "--format", "json"],
        ),
    ] {
        s.push(
            label.into(),
            Owner::Numerics,
            strings(&args),
            separable_or_refused("big.csv"),
        );
    }
    for (label, args) in [
        ("1e308: train", vec!["train", &big, "--format", "json"]),
        ("1e308: verify", vec!["verify", &big, "--format", "json"]),
    ] {
        s.push(
            label.into(),
            Owner::Numerics,
            strings(&args),
            // The radius itself is finite (1.414e308); per-bound `radius` fields may be null where a bound
            // does not apply.
            Expect::AnswerOrRefused {
                needles: strings(&["\"radius\":1.4142135623730951e+308"]),
                forbidden: Vec::new(),
                refusal: "big.csv".into(),
            },
        );
    }
    // CR-only line endings (old Mac files) read like any other.
    let cr = s.file("cr.csv", b"a,y\r1,1\r-1,-1\r");
    s.push(
        "CR-only line endings".into(),
        Owner::Readers,
        strings(&["train", &cr, "--format", "json"]),
        answer(&["\"n\":2"]),
    );
}

/// Missing files, folders, FIFOs and devices.
fn file_cases(s: &mut Sweep) {
    let missing = s.path("missing.csv").display().to_string();
    s.each_command(
        "missing.csv",
        &missing,
        &[],
        refused(&["missing.csv"]),
        Owner::Cli,
    );
    let folder = s.path("folder.csv");
    std::fs::create_dir(&folder).unwrap();
    let folder = folder.display().to_string();
    s.each_command(
        "folder.csv",
        &folder,
        &[],
        refused(&["folder.csv"]),
        Owner::Cli,
    );
    for ext in ["csv", "svm", "npy"] {
        let link = s.path(&format!("devzero.{ext}"));
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let link = link.display().to_string();
        s.push(
            format!("/dev/zero as .{ext}"),
            Owner::Readers,
            strings(&["train", &link]),
            refused(&[&format!("devzero.{ext}")]),
        );
    }
    for (i, (ext, contents)) in [
        ("csv", &b"a,y\n1,1\n-1,-1\n"[..]),
        ("svm", b"1 1:1\n-1 1:-1\n"),
    ]
    .into_iter()
    .enumerate()
    {
        let fifo = s.path(&format!("fifo{i}.{ext}"));
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        s.cases.push(Case {
            name: format!("FIFO .{ext}"),
            owner: Owner::Readers,
            args: strings(&["train", &fifo.display().to_string(), "--format", "json"]),
            expect: Expect::AnswerOrRefused {
                needles: strings(&["\"n\":2"]),
                forbidden: Vec::new(),
                refusal: format!("fifo{i}.{ext}"),
            },
            fifo: Some((fifo, contents.to_vec())),
        });
    }
}

/// Flags that would be ignored, and bad option values.
fn flag_cases(s: &mut Sweep) {
    let data = s.file("flags.csv", b"a,b,y\n1,2,1\n-3,-4,-1\n");
    let results = s.path("flag-results").display().to_string();
    let cases: &[(&[&str], &str)] = &[
        (
            &["verify", &data, "--separator-bias", "1"],
            "--separator-bias",
        ),
        (&["verify", &data, "--restarts", "2"], "--restarts"),
        (&["verify", &data, "--seed", "2"], "--seed"),
        (&["train", &data, "--seed", "2"], "--seed"),
        (
            &["train", &data, "--order", "cyclic", "--seed", "2"],
            "--seed",
        ),
        (
            &["experiment", "--threads", "0", "--out", &results],
            "--threads",
        ),
        (
            &["experiment", "--print-default-spec", "--threads", "2"],
            "--print-default-spec",
        ),
        (
            &["experiment", "--print-default-spec", "--format", "json"],
            "--print-default-spec",
        ),
        (&["train", &data, "--eta", "0"], "eta"),
        (&["train", &data, "--eta", "-1"], "eta"),
        (&["train", &data, "--eta", "nan"], "eta"),
        (&["train", &data, "--eta", "inf"], "eta"),
        (&["train", &data, "--bias", "c=nan"], "--bias"),
        (&["train", &data, "--bias", "sometimes"], "--bias"),
        (&["train", &data, "--max-epochs", "-1"], "--max-epochs"),
        (&["train", &data, "--delimiter", "é"], "delimiter"),
        (&["train", &data, "--features", "0"], "features"),
        (&["train", &data, "--format", "xml"], "--format"),
        (&["train", &data, "--order", "random"], "--order"),
        (&["margin", &data, "--tolerance", "nan"], "tolerance"),
        (&["margin", &data, "--tolerance", "-1"], "tolerance"),
        (&["verify", &data, "--rules", ""], "rules"),
        (&["verify", &data, "--separator", "1,2,3"], "separator"),
        (&["verify", &data, "--separator", "nan,1"], "separator"),
        (&["verify", &data, "--separator", "0,0"], "separator"),
        (
            &["verify", &data, "--adversary", "--restarts", "-2"],
            "--restarts",
        ),
        (
            &[
                "train",
                &data,
                "--trace",
                &s.path("no/such/dir/trace.csv").display().to_string(),
            ],
            "trace.csv",
        ),
        (
            &["convert", &data, &s.path("out.xlsx").display().to_string()],
            "out.xlsx",
        ),
        (
            &[
                "convert",
                &data,
                &s.path("no/such/dir/out.csv").display().to_string(),
            ],
            "out.csv",
        ),
        (
            &["convert", &data, &s.dir.display().to_string()],
            "unknown file extension",
        ),
    ];
    for (args, needle) in cases {
        s.push(
            format!("flag: {}", args.join(" ")),
            Owner::Cli,
            strings(args),
            refused(&[needle]),
        );
    }
    let out_dir = s.path("out-dir.csv");
    std::fs::create_dir(&out_dir).unwrap();
    let out_dir = out_dir.display().to_string();
    s.push(
        "convert into a folder".into(),
        Owner::Cli,
        strings(&["convert", &data, &out_dir]),
        refused(&["out-dir.csv", "is a directory"]),
    );
}

/// `generate` with parameters outside their domain.
fn generate_cases(s: &mut Sweep) {
    let out = s.path("gen.csv").display().to_string();
    let cases: &[(&[&str], &str)] = &[
        (&["separable", "--n", "0", "--d", "2"], "n"),
        (&["separable", "--n", "10", "--d", "0"], "d"),
        (
            &["separable", "--n", "10", "--d", "2", "--margin", "-0.1"],
            "margin",
        ),
        (
            &["separable", "--n", "10", "--d", "2", "--margin", "nan"],
            "margin",
        ),
        (
            &["separable", "--n", "10", "--d", "2", "--margin", "2"],
            "margin",
        ),
        (
            &["separable", "--n", "10", "--d", "2", "--radius", "0"],
            "radius",
        ),
        (
            &["separable", "--n", "10", "--d", "2", "--radius", "inf"],
            "radius",
        ),
        (
            &["separable", "--n", "10", "--d", "2", "--offset", "nan"],
            "offset",
        ),
        (
            &["separable", "--n", "10", "--d", "2", "--offset", "5"],
            "offset",
        ),
        (&["separable", "--n", "-1", "--d", "2"], "--n"),
        (&["noisy", "--n", "10", "--d", "2", "--flip", "0.5"], "flip"),
        (
            &["noisy", "--n", "10", "--d", "2", "--flip", "-0.1"],
            "flip",
        ),
        (
            &["blobs", "--n", "10", "--d", "2", "--spread", "-1"],
            "spread",
        ),
        (
            &["blobs", "--n", "10", "--d", "2", "--distance", "nan"],
            "distance",
        ),
        (&["xor", "--n", "3"], "n"),
        (&["xor", "--n", "8", "--d", "1"], "d"),
        (&["xor", "--n", "8", "--gap", "2"], "gap"),
        (
            &["concentric", "--n", "8", "--inner", "3", "--outer", "2"],
            "outer",
        ),
        (&["concentric", "--n", "3"], "n"),
        (&["basis", "--m", "0"], "m"),
        (
            &["anisotropic", "--n", "10", "--d", "2", "--ratio", "0"],
            "ratio",
        ),
        (
            &["anisotropic", "--n", "10", "--d", "2", "--ratio", "nan"],
            "ratio",
        ),
    ];
    for (args, needle) in cases {
        let mut all = vec!["generate"];
        all.extend(*args);
        all.extend(["--out", &out]);
        s.push(
            format!("generate {}", args.join(" ")),
            Owner::Cli,
            strings(&all),
            refused(&[needle]),
        );
    }
    // Sizes that would not fit in memory are refused before any allocation.
    for args in [
        &["separable", "--n", "1000000000000", "--d", "1000000"][..],
        &["basis", "--m", "10000000000"],
        &["blobs", "--n", "18446744073709551615", "--d", "2"],
    ] {
        let mut all = vec!["generate"];
        all.extend(args);
        all.extend(["--out", &out]);
        s.push(
            format!("generate {}", args.join(" ")),
            Owner::Cli,
            strings(&all),
            refused(&["`n`"]),
        );
    }
    let bad_ext = s.path("gen.xlsx").display().to_string();
    s.push(
        "generate to .xlsx".into(),
        Owner::Cli,
        strings(&["generate", "basis", "--m", "3", "--out", &bad_ext]),
        refused(&["gen.xlsx"]),
    );
}

/// Experiment specs and results files.
fn experiment_cases(s: &mut Sweep) {
    let ok_data = s.file("exp-data.csv", b"a,y\n1,1\n-1,-1\n");
    let specs: &[(&str, String, &str, Owner)] = &[
        ("syntax.toml", "name = \"x\"\n[train\n".into(), "syntax.toml:2", Owner::Cli),
        ("empty.toml", String::new(), "empty.toml", Owner::Cli),
        ("utf8.toml", "name = \"\u{fffd}\"\n".into(), "utf8.toml", Owner::Cli),
        ("unknown-key.toml", "name = \"x\"\nbogus = 1\n[[dataset]]\nfamily = \"seed004\"\n".into(), "unknown-key.toml", Owner::Cli),
        ("wrong-type.toml", "name = 5\n[[dataset]]\nfamily = \"seed004\"\n".into(), "wrong-type.toml", Owner::Cli),
        ("no-dataset.toml", "name = \"x\"\n".into(), "no-dataset.toml", Owner::Cli),
        ("family.toml", "name = \"x\"\n[[dataset]]\nfamily = \"nope\"\n".into(), "family.toml", Owner::Cli),
        ("rule.toml", "name = \"x\"\n[train]\nrules = [\"sometimes\"]\n[[dataset]]\nfamily = \"seed004\"\n".into(), "rule.toml", Owner::Cli),
        ("eta.toml", "name = \"x\"\n[train]\neta = [-1.0]\n[[dataset]]\nfamily = \"seed004\"\n".into(), "eta.toml", Owner::Cli),
        ("param.toml", "name = \"x\"\n[[dataset]]\nfamily = \"separable\"\nparams = { n = 0, d = 2 }\n".into(), "param.toml", Owner::Cli),
        ("file.toml", "name = \"x\"\n[[dataset]]\nfile = \"missing-data.csv\"\n".into(), "missing-data.csv", Owner::Cli),
        ("file-bad.toml", "name = \"x\"\n[[dataset]]\nfile = \"nan.csv\"\n".into(), "nan.csv:3:2", Owner::Store),
        ("grid.toml", "name = \"x\"\n[train]\nseeds = [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19]\neta = [1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0,9.0,10.0]\n[[dataset]]\nfamily = \"separable\"\nparams = { n = [10,11,12,13,14,15,16,17,18,19], d = [2,3,4,5,6,7,8,9,10,11], margin = [0.1,0.2,0.3,0.4,0.05,0.06,0.07,0.08,0.09,0.01], radius = 1.0 }\nreplicates = 100000\n".into(), "grid.toml", Owner::Store),
        ("huge-n.toml", "name = \"x\"\n[[dataset]]\nfamily = \"separable\"\nparams = { n = 1000000000000, d = 1000000 }\n".into(), "huge-n.toml", Owner::Store),
        ("nul.toml", "name = \"x\0\"\n".into(), "nul.toml", Owner::Cli),
    ];
    for (name, text, needle, owner) in specs {
        let path = s.file(name, text.as_bytes());
        let out = s.path(&format!("exp-{name}")).display().to_string();
        s.push(
            format!("experiment {name}"),
            *owner,
            strings(&["experiment", &path, "--out", &out, "--no-plots"]),
            refused(&[needle]),
        );
    }
    let _ = ok_data;
    let missing = s.path("nope.toml").display().to_string();
    s.push(
        "experiment missing spec".into(),
        Owner::Cli,
        strings(&["experiment", &missing]),
        refused(&["nope.toml"]),
    );
    let folder = s.path("spec-folder.toml");
    std::fs::create_dir(&folder).unwrap();
    s.push(
        "experiment spec is a folder".into(),
        Owner::Cli,
        strings(&["experiment", &folder.display().to_string()]),
        refused(&["spec-folder.toml"]),
    );
    let out_file = s.file("out-is-a-file", b"x");
    let spec = s.file(
        "ok.toml",
        b"name = \"x\"\n[[dataset]]\nfamily = \"seed004\"\n",
    );
    s.push(
        "experiment --out FILE".into(),
        Owner::Store,
        strings(&["experiment", &spec, "--out", &out_file]),
        refused(&["out-is-a-file"]),
    );
    s.push(
        "experiment --shard 3/2".into(),
        Owner::Cli,
        strings(&["experiment", &spec, "--shard", "3/2"]),
        refused(&["--shard"]),
    );
    s.push(
        "experiment --shard x".into(),
        Owner::Cli,
        strings(&["experiment", &spec, "--shard", "x"]),
        refused(&["--shard"]),
    );
    s.push(
        "experiment --shard 0/0".into(),
        Owner::Cli,
        strings(&["experiment", &spec, "--shard", "0/0"]),
        refused(&["--shard"]),
    );

    // Results files for merge, summary and plot.
    let results: &[(&str, &[u8], &str, Owner)] = &[
        ("empty.jsonl", b"", "empty.jsonl", Owner::Store),
        (
            "garbage.jsonl",
            b"not json\n",
            "garbage.jsonl:1",
            Owner::Cli,
        ),
        ("array.jsonl", b"[1,2,3]\n", "array.jsonl:1", Owner::Cli),
        (
            "torn.jsonl",
            b"{\"task\": 1, \"rule\": \"no",
            "torn.jsonl:1",
            Owner::Store,
        ),
        (
            "utf8.jsonl",
            b"{\"x\": \"\xff\"}\n",
            "utf8.jsonl:1",
            Owner::Store,
        ),
        ("nul.jsonl", b"\x00\x00\x00\n", "nul.jsonl:1", Owner::Cli),
        (
            "fields.jsonl",
            b"{\"unexpected\": true}\n",
            "fields.jsonl:1",
            Owner::Cli,
        ),
    ];
    for (name, contents, needle, owner) in results {
        let path = s.file(name, contents);
        let merged = s.path(&format!("merged-{name}")).display().to_string();
        let plots = s.path(&format!("plots-{name}")).display().to_string();
        s.push(
            format!("summary {name}"),
            *owner,
            strings(&["summary", &path]),
            refused(&[needle]),
        );
        s.push(
            format!("plot {name}"),
            *owner,
            strings(&["plot", &path, "--out", &plots]),
            refused(&[needle]),
        );
        s.push(
            format!("merge {name}"),
            *owner,
            strings(&["merge", &path, "--out", &merged]),
            refused(&[needle]),
        );
    }
    let missing = s.path("no-results.jsonl").display().to_string();
    let merged = s.path("merged-missing").display().to_string();
    for args in [
        vec!["summary", &missing],
        vec!["plot", &missing],
        vec!["merge", &missing, "--out", &merged],
    ] {
        let owner = if args[0] == "merge" {
            Owner::Store
        } else {
            Owner::Cli
        };
        s.push(
            format!("{} missing results", args[0]),
            owner,
            strings(&args),
            refused(&["no-results.jsonl"]),
        );
    }
    let empty_dir = s.path("empty-results");
    std::fs::create_dir(&empty_dir).unwrap();
    let empty_dir = empty_dir.display().to_string();
    for args in [
        vec!["summary", &empty_dir],
        vec!["plot", &empty_dir],
        vec!["merge", &empty_dir, "--out", &merged],
    ] {
        let owner = if args[0] == "merge" {
            Owner::Store
        } else {
            Owner::Cli
        };
        s.push(
            format!("{} empty folder", args[0]),
            owner,
            strings(&args),
            refused(&["empty-results"]),
        );
    }
}

/// Feed a FIFO: open it for writing once a reader has it open (without blocking, so that a reader that
/// never comes cannot hang the test), write, close; repeat for a reader that opens it again.
fn feed_fifo(path: PathBuf, contents: Vec<u8>, done: Arc<AtomicBool>) {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    while !done.load(Ordering::Relaxed) {
        match std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)
        {
            Ok(mut file) => {
                let _ = file.write_all(&contents);
                drop(file);
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

/// Run one case; `Err` says what went wrong.
fn run(case: &Case) -> Result<(), String> {
    let done = Arc::new(AtomicBool::new(false));
    let feeder = case.fifo.clone().map(|(path, contents)| {
        let done = Arc::clone(&done);
        std::thread::spawn(move || feed_fifo(path, contents, done))
    });
    let result = run_child(case);
    done.store(true, Ordering::Relaxed);
    if let Some(feeder) = feeder {
        let _ = feeder.join();
    }
    let (code, stdout, stderr) = result?;
    check(case, code, &stdout, &stderr)
}

fn run_child(case: &Case) -> Result<(Option<i32>, String, String), String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_novikoff"))
        .args(&case.args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    // Drain both pipes on threads, so that a child writing a lot cannot block on a full pipe.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {TIME_LIMIT:?}: killed"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Ok((status.code(), out.join().unwrap(), err.join().unwrap()))
}

fn check(case: &Case, code: Option<i32>, stdout: &str, stderr: &str) -> Result<(), String> {
    let shown = || {
        format!(
            "exit {code:?}\nstdout: {}\nstderr: {}",
            clip(stdout),
            clip(stderr)
        )
    };
    if stderr.contains("panicked") || code.is_none() {
        return Err(format!("a panic or a signal: {}", shown()));
    }
    // A message that echoes a huge input whole is not readable.
    if stderr.len() > 4096 {
        return Err(format!("stderr is {} bytes long", stderr.len()));
    }
    let refused_with = |needles: &[String]| -> Result<(), String> {
        if code != Some(2) {
            return Err(format!("expected exit 2: {}", shown()));
        }
        match needles.iter().find(|n| !stderr.contains(n.as_str())) {
            Some(missing) => Err(format!("`{missing}` not in the message: {}", shown())),
            None if !stderr.contains("error: ") => Err(format!("no `error: `: {}", shown())),
            None => Ok(()),
        }
    };
    let answered = |needles: &[String], forbidden: &[String]| -> Result<(), String> {
        if code != Some(0) {
            return Err(format!("expected exit 0: {}", shown()));
        }
        if let Some(missing) = needles.iter().find(|n| !stdout.contains(n.as_str())) {
            return Err(format!("`{missing}` not in the answer: {}", shown()));
        }
        if let Some(bad) = forbidden.iter().find(|n| stdout.contains(n.as_str())) {
            return Err(format!("`{bad}` in the answer: {}", shown()));
        }
        Ok(())
    };
    match &case.expect {
        Expect::Refused(needles) => refused_with(needles),
        Expect::Answer { needles, forbidden } => answered(needles, forbidden),
        Expect::AnswerOrRefused {
            needles,
            forbidden,
            refusal,
        } => match code {
            Some(2) => refused_with(std::slice::from_ref(refusal)),
            _ => answered(needles, forbidden),
        },
    }
}

fn clip(text: &str) -> String {
    if text.len() <= 600 {
        return text.to_string();
    }
    let mut end = 600;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

fn cases(dir: &Path) -> Vec<Case> {
    let mut sweep = Sweep {
        dir: dir.to_path_buf(),
        cases: Vec::new(),
    };
    csv_cases(&mut sweep);
    libsvm_cases(&mut sweep);
    numpy_cases(&mut sweep);
    valid_cases(&mut sweep);
    file_cases(&mut sweep);
    flag_cases(&mut sweep);
    generate_cases(&mut sweep);
    experiment_cases(&mut sweep);
    sweep.cases
}

#[test]
fn hostile_inputs_are_refused_with_a_located_message_or_answered_right() {
    let dir = tempfile::tempdir().unwrap();
    let all = cases(dir.path());
    let only = std::env::var("NOVIKOFF_SWEEP_ONLY").ok();
    let selected: Vec<&Case> = all
        .iter()
        .filter(|c| only.as_ref().is_none_or(|o| c.name.contains(o.as_str())))
        .collect();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..WORKERS {
            scope.spawn(|| {
                while let Some(case) = selected.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(why) = run(case) {
                        failures.lock().unwrap().push(format!(
                            "[{:?}] {} ({}):\n  {why}",
                            case.owner,
                            case.name,
                            case.args.join(" ")
                        ));
                    }
                }
            });
        }
    });
    let count = |owner| all.iter().filter(|c| c.owner == owner).count();
    eprintln!(
        "hostile sweep: {} cases ({} run), by owner: cli {}, numerics {}, store {}, readers {}",
        all.len(),
        selected.len(),
        count(Owner::Cli),
        count(Owner::Numerics),
        count(Owner::Store),
        count(Owner::Readers)
    );
    let failures = failures.into_inner().unwrap();
    assert!(all.len() >= 300, "the sweep must try at least 300 cases");
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        selected.len(),
        failures.join("\n")
    );
}
