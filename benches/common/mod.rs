//! The clock of novikoff's benches: the benchmark thread's CPU time by default, wall time on request.
//!
//! The benches are meant to be run on shared machines, where the benchmark thread is often descheduled
//! for other work. Wall time then measures the other work as much as novikoff; the thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`, which counts the time the core spent on the thread, memory stalls
//! included) does not. On an idle machine the two agree for these single-threaded loops.
//!
//! `NOVIKOFF_BENCH_CLOCK=wall cargo bench ...` measures wall time instead (always, off Linux).
//! Throughputs are printed in decimal units (GB/s, Gelem/s).

use std::sync::OnceLock;
use std::time::Instant;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{Criterion, Throughput};

/// Which clock [`Clock`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    ThreadCpu,
    Wall,
}

/// A criterion measurement in nanoseconds of thread CPU time or of wall time.
pub struct Clock {
    source: Source,
}

impl Clock {
    /// The clock `NOVIKOFF_BENCH_CLOCK` asks for (`wall`), else thread CPU time where available.
    pub fn from_env() -> Self {
        let wall = std::env::var("NOVIKOFF_BENCH_CLOCK").is_ok_and(|v| v == "wall");
        let source = if wall || thread_cpu_ns().is_none() {
            Source::Wall
        } else {
            Source::ThreadCpu
        };
        Self { source }
    }

    pub fn source(&self) -> Source {
        self.source
    }

    /// Nanoseconds on this clock since an arbitrary origin.
    pub fn now(&self) -> u64 {
        match self.source {
            Source::ThreadCpu => thread_cpu_ns().unwrap_or(0),
            Source::Wall => {
                static ANCHOR: OnceLock<Instant> = OnceLock::new();
                ANCHOR.get_or_init(Instant::now).elapsed().as_nanos() as u64
            }
        }
    }
}

/// A criterion configured with [`Clock::from_env`].
pub fn criterion() -> Criterion<Clock> {
    let clock = Clock::from_env();
    eprintln!("bench clock: {:?}", clock.source());
    Criterion::default().with_measurement(clock)
}

#[cfg(target_os = "linux")]
fn thread_cpu_ns() -> Option<u64> {
    #[repr(C)]
    struct Timespec {
        seconds: i64,
        nanoseconds: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut time = Timespec {
        seconds: 0,
        nanoseconds: 0,
    };
    // SAFETY: clock_gettime writes one timespec (two 64-bit fields on 64-bit Linux) to `time`.
    let status = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut time) };
    (status == 0 && cfg!(target_pointer_width = "64"))
        .then(|| time.seconds as u64 * 1_000_000_000 + time.nanoseconds as u64)
}

#[cfg(not(target_os = "linux"))]
fn thread_cpu_ns() -> Option<u64> {
    None
}

impl Measurement for Clock {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        self.now()
    }
    fn end(&self, started: u64) -> u64 {
        self.now().saturating_sub(started)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &Nanoseconds
    }
}

struct Nanoseconds;

impl ValueFormatter for Nanoseconds {
    fn scale_values(&self, typical_ns: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = match typical_ns {
            t if t < 1e3 => (1.0, "ns"),
            t if t < 1e6 => (1e-3, "µs"),
            t if t < 1e9 => (1e-6, "ms"),
            _ => (1e-9, "s"),
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(
        &self,
        _typical_ns: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        // Per nanosecond is per second in units of 10⁹.
        let (amount, unit) = match *throughput {
            Throughput::Bytes(b) | Throughput::BytesDecimal(b) => (b as f64, "GB/s"),
            Throughput::ElementsAndBytes { bytes, .. } => (bytes as f64, "GB/s"),
            Throughput::Elements(e) => (e as f64, "Gelem/s"),
            Throughput::Bits(b) => (b as f64, "Gbit/s"),
        };
        values.iter_mut().for_each(|v| *v = amount / *v);
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}
