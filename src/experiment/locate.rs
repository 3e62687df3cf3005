//! Where a key of a spec's TOML text is, so that an error names the line the user must fix.

pub(super) fn line_of_offset(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

pub(super) fn find_key_line(text: &str, key: &str) -> usize {
    text.lines()
        .position(|line| {
            let line = line.trim_start();
            line.starts_with(key) && line[key.len()..].trim_start().starts_with('=')
                || line.starts_with(&format!("[{key}]"))
        })
        .map_or(0, |i| i + 1)
}

pub(super) fn nth_table_line(text: &str, header: &str, k: usize) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.trim_start().starts_with(header))
        .nth(k)
        .map_or(0, |(i, _)| i + 1)
}

/// The line of `key` inside the `k`-th `[[dataset]]` table (the table's own line when the key is absent).
pub(super) fn key_line_in_table(text: &str, k: usize, key: &str) -> usize {
    let start = nth_table_line(text, "[[dataset]]", k);
    if start == 0 {
        return 0;
    }
    for (i, line) in text.lines().enumerate().skip(start) {
        let line = line.trim_start();
        if line.starts_with('[') {
            break;
        }
        if line.starts_with(key) && line[key.len()..].trim_start().starts_with('=') {
            return i + 1;
        }
    }
    start
}
