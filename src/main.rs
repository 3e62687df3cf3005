//! The `novikoff` command line: a thin shell over the library.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    restore_default_sigpipe();
    join_the_pool();
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

/// The main thread joins rayon's global pool as its first worker, so that the work it hands to the
/// pool runs on it while it would wait: a max-margin solve, which moves onto a pool thread at once
/// (`margin`), then runs where the data were read, one thread fewer, and allocates from the heap that
/// read them, reusing the reader's freed buffers. On the README's rcv1-shaped file the peak fell
/// 0.4–0.5 MB (session 53, `docs/max-margin-history.md`), and the solve's time did not change.
fn join_the_pool() {
    // It fails where a pool exists already (nothing builds one before this) or its threads cannot
    // start; rayon's default pool then serves, as it did before.
    let _ = rayon::ThreadPoolBuilder::new()
        .use_current_thread()
        .build_global();
}
