//! Counts as the footer and cards show them.

/// `1234` → `1.2k`, `2500000` → `2.5M`.
pub(crate) fn human(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else if n >= 1000 {
        format!("{:.1}k", n as f64 / 1e3)
    } else {
        n.to_string()
    }
}
