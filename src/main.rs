//! The `novikoff` command line: a thin shell over the library.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run(cli::parse()) {
        Ok(status) => status,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(1))
        }
    }
}
