//! `env.json`: what ran the experiment (crate version, git commit, CPU, threads, date).

use std::path::Path;

use serde::Serialize;

/// The environment record written beside the results.
#[derive(Debug, Clone, Serialize)]
pub struct Environment {
    /// novikoff's version.
    pub crate_version: &'static str,
    /// `git rev-parse HEAD` of the working folder, if it is a checkout.
    pub git_commit: Option<String>,
    /// The CPU model, from `/proc/cpuinfo` where available.
    pub cpu: Option<String>,
    /// Logical CPUs of the machine.
    pub cpus: usize,
    /// Threads used by the runner.
    pub threads: usize,
    /// UTC date and time of the start, ISO 8601.
    pub started: String,
    /// The spec's name.
    pub spec_name: String,
    /// Hash of the spec text.
    pub spec_hash: String,
    /// `I/N` when sharded.
    pub shard: Option<String>,
}

impl Environment {
    /// Describe this machine and run.
    ///
    /// ```
    /// let env = novikoff::experiment::Environment::capture(2, "demo", "00ff", None);
    /// assert_eq!(env.threads, 2);
    /// assert!(env.started.ends_with('Z'));
    /// ```
    pub fn capture(
        threads: usize,
        spec_name: &str,
        spec_hash: &str,
        shard: Option<String>,
    ) -> Self {
        Environment {
            crate_version: env!("CARGO_PKG_VERSION"),
            git_commit: git_commit(),
            cpu: cpu_model(),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            threads,
            started: utc_now(),
            spec_name: spec_name.to_string(),
            spec_hash: spec_hash.to_string(),
            shard,
        }
    }
}

fn git_commit() -> Option<String> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string(Path::new("/proc/cpuinfo")).ok()?;
    text.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ` (civil-from-days; no time-zone database needed).
pub(crate) fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
