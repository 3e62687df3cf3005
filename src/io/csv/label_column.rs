//! The label column of a CSV header: found by name or position, and the header listed in errors.

use super::*;

pub(super) fn resolve_label_column(
    label: &LabelColumn,
    header: &[String],
    fields: usize,
    at: &Location,
) -> Result<usize> {
    match label {
        LabelColumn::Last => Ok(fields.saturating_sub(1)),
        LabelColumn::Name(name) => header.iter().position(|h| h == name).ok_or_else(|| {
            Error::parse(
                at.clone(),
                if header.is_empty() {
                    format!(
                        "no column named {}: the file has no header, give a 1-based column number",
                        shown(name.as_bytes())
                    )
                } else {
                    format!(
                        "no column named {}; the header has: {}",
                        shown(name.as_bytes()),
                        listing(header)
                    )
                },
            )
        }),
        LabelColumn::Index(k) => {
            // A header cell literally named "3" wins over the third column.
            if let Some(j) = header.iter().position(|h| *h == (k + 1).to_string()) {
                return Ok(j);
            }
            if *k < fields {
                return Ok(*k);
            }
            Err(Error::parse(
                at.clone(),
                format!(
                    "label column {} is out of range: the file has {fields} columns",
                    k + 1
                ),
            ))
        }
    }
}

/// The first header names, each as [`shown_bare`], so that a header of a million columns stays readable.
pub(super) fn listing(header: &[String]) -> String {
    const NAMES: usize = 20;
    let names: Vec<String> = header
        .iter()
        .take(NAMES)
        .map(|h| shown_bare(h.as_bytes()))
        .collect();
    if header.len() > NAMES {
        format!("{}, … ({} columns)", names.join(", "), header.len())
    } else {
        names.join(", ")
    }
}
