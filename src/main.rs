//! The `novikoff` command line: a thin shell over the library.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    restore_default_sigpipe();
    match cli::run(cli::parse()) {
        Ok(status) => status,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(1))
        }
    }
}

/// Rust ignores SIGPIPE, so printing into a closed pipe (`novikoff experiment … | head -1`) panics.
/// Restore the default, as command-line tools expect: the process ends quietly when its reader is gone.
/// Every results file is complete on disk before anything is printed.
fn restore_default_sigpipe() {
    #[cfg(target_os = "linux")]
    // SAFETY: called first in `main`, before any other thread exists; SIG_DFL is a valid disposition for
    // SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
