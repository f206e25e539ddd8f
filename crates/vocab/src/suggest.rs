//! "Did you mean": the known name closest to a mistyped one.

/// The candidate closest to `name` by edit distance (Jaro-Winkler, as
/// clap and cargo suggest), when it is close enough to be the likely
/// intent; `None` when nothing is.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(name, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// `" (did you mean X?)"`, or nothing: to end an unknown-name error with.
pub fn hint<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    did_you_mean(name, candidates)
        .map(|c| format!(" (did you mean {c:?}?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_its_name_and_nonsense_finds_none() {
        let names = ["first-touch", "interleave", "thermostat", "multiphase"];
        assert_eq!(did_you_mean("first-tuch", names), Some("first-touch"));
        assert_eq!(did_you_mean("multiphse", names), Some("multiphase"));
        assert_eq!(did_you_mean("zzzzzz", names), None);
        assert_eq!(hint("zzzzzz", names), "");
        assert_eq!(hint("thermostta", names), " (did you mean \"thermostat\"?)");
    }
}
