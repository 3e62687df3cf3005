//! The tokens of a LIBSVM line: `index:value` pairs split on blanks, a comment cut off.

/// Whitespace-separated tokens with their byte offsets.
pub(super) struct Tokens<'l> {
    pub(super) line: &'l [u8],
    pub(super) position: usize,
}

impl<'l> Iterator for Tokens<'l> {
    type Item = (usize, &'l [u8]);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let line = self.line;
        let mut start = self.position;
        while start < line.len() && line[start].is_ascii_whitespace() {
            start += 1;
        }
        if start == line.len() {
            self.position = start;
            return None;
        }
        let mut end = start;
        while end < line.len() && !line[end].is_ascii_whitespace() {
            end += 1;
        }
        self.position = end;
        Some((start, &line[start..end]))
    }
}
