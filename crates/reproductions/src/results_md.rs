//! RESULTS.md, assembled from one section per reproduction. Each section is
//! self-contained and stamped with what produced it (commit, command, run
//! length, seed): its claims held or not held with our figure beside the
//! paper's, the reason of each that is not held, and its table as it
//! printed. A run that names some reproductions replaces their sections and
//! keeps the others, so the long ones (hours on 2 cores) need not be rerun
//! with every short one; the summary says which commit each section is from.
//!
//! A section starts with its `## name` heading and a marker line, an HTML
//! comment holding its [`SectionMeta`] as JSON; the summary is rebuilt from
//! the markers, never from the prose.

use crate::claims::{Kind, Verdict};
use crate::reproduce::Reproduced;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What produced the results.
#[derive(Clone, Debug, PartialEq)]
pub struct Stamp {
    /// The commit the binary was run from (with `-dirty` if the tree had
    /// changes), or what stood in for it.
    pub commit: String,
    /// The command line, as typed.
    pub command: String,
    /// The cap on every run's simulated length, if any.
    pub duration_s: Option<f64>,
    /// The seeds every run ran with, in order (a claim holds when it holds
    /// on each).
    pub seeds: Vec<u64>,
}

/// A section's stamp and claim counts, kept in its marker line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SectionMeta {
    /// The reproduction.
    pub name: String,
    /// The commit it was run at.
    pub commit: String,
    /// The command that ran it.
    pub command: String,
    /// The first seed of every run (kept for sections written before
    /// several seeds ran).
    pub seed: u64,
    /// Every seed the runs ran with (empty in sections written before).
    #[serde(default)]
    pub seeds: Vec<u64>,
    /// The cap on every run's simulated length, if any.
    pub duration_s: Option<f64>,
    /// Claims that hold (on every seed), of every kind.
    pub held: usize,
    /// Claims checked, of every kind.
    pub claims: usize,
    /// Per kind: (held, checked). Empty in sections written before kinds,
    /// whose claims all count as the papers'.
    #[serde(default)]
    pub by_kind: BTreeMap<Kind, (usize, usize)>,
    /// One line per claim that does not hold, with its reason.
    pub not_held: Vec<String>,
}

/// One reproduction's section: its stamp and its markdown (heading and
/// marker included).
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// Its stamp and counts.
    pub meta: SectionMeta,
    /// Its markdown, from the heading to the end of its last table.
    pub text: String,
}

/// A reproduction without a section: its name, what it reproduces and how
/// many runs it needs.
#[derive(Clone, Debug, PartialEq)]
pub struct NotRun {
    /// Its name.
    pub name: &'static str,
    /// Its description (which says what a run costs where that matters).
    pub description: &'static str,
    /// Runs it needs.
    pub runs: usize,
}

const MARKER: &str = "<!-- thermocline-section ";
const MARKER_END: &str = " -->";

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn verdict_word(v: &Verdict) -> String {
    if v.held {
        "held".into()
    } else if v.flips() {
        let held = v.seeds.iter().filter(|s| s.held).count();
        format!("**NOT held** (held on {held} of {} seeds)", v.seeds.len())
    } else {
        "**NOT held**".into()
    }
}

/// The kinds' counts of a section: (held, checked) per kind.
fn count_kinds(verdicts: &[Verdict]) -> BTreeMap<Kind, (usize, usize)> {
    let mut m = BTreeMap::new();
    for v in verdicts {
        let e = m.entry(v.kind).or_insert((0, 0));
        e.0 += usize::from(v.held);
        e.1 += 1;
    }
    m
}

impl SectionMeta {
    /// (held, checked) of one kind; a section from before kinds counts
    /// every claim as the papers'.
    pub fn kind(&self, k: Kind) -> (usize, usize) {
        if self.by_kind.is_empty() {
            return if k == Kind::Paper {
                (self.held, self.claims)
            } else {
                (0, 0)
            };
        }
        self.by_kind.get(&k).copied().unwrap_or((0, 0))
    }

    /// The seeds, as a section from before several seeds names its one.
    pub fn seed_list(&self) -> Vec<u64> {
        if self.seeds.is_empty() {
            vec![self.seed]
        } else {
            self.seeds.clone()
        }
    }
}

fn seeds_words(seeds: &[u64]) -> String {
    let list: Vec<String> = seeds.iter().map(u64::to_string).collect();
    match seeds.len() {
        1 => format!("seed {}", list[0]),
        _ => format!(
            "seeds {} (a claim holds when it holds on each)",
            list.join(", ")
        ),
    }
}

fn length(duration_s: Option<f64>) -> String {
    match duration_s {
        Some(d) => format!(
            "every run capped at {d} s of simulated time (`--duration {d}`), so figures of longer runs are cut short"
        ),
        None => "full-length runs".into(),
    }
}

fn not_held_line(v: &Verdict) -> String {
    let kind = match v.kind {
        Kind::Paper => String::new(),
        k => format!(" ({})", k.label()),
    };
    format!(
        "`{}`{kind}: {}. Ours: {}; paper: {} ({}, {}). Why: {}",
        v.id,
        v.sentence,
        v.ours_line(),
        v.paper,
        v.source.file,
        v.source.at,
        v.reason.as_deref().unwrap_or("unknown yet")
    )
}

/// A section's heading and marker, up to the marker's end.
fn header(meta: &SectionMeta) -> String {
    // `>` is escaped so that no string in the JSON can close the comment.
    let json = serde_json::to_string(meta)
        .expect("strings and numbers serialize")
        .replace('>', "\\u003e");
    format!("## {}\n{MARKER}{json}{MARKER_END}", meta.name)
}

/// The section of one reproduction run under `stamp`.
pub fn section(stamp: &Stamp, d: &Reproduced) -> Section {
    let held = d.verdicts.iter().filter(|v| v.held).count();
    let meta = SectionMeta {
        name: d.name.to_string(),
        commit: stamp.commit.clone(),
        command: stamp.command.clone(),
        seed: stamp.seeds.first().copied().unwrap_or(1),
        seeds: stamp.seeds.clone(),
        duration_s: stamp.duration_s,
        held,
        claims: d.verdicts.len(),
        by_kind: count_kinds(&d.verdicts),
        not_held: d
            .verdicts
            .iter()
            .filter(|v| !v.held)
            .map(not_held_line)
            .collect(),
    };
    let mut s = format!("{}\n\n", header(&meta));
    let (paper_held, papers) = meta.kind(Kind::Paper);
    let _ = writeln!(
        s,
        "Generated by `{}` at commit `{}`, {}, {}. {paper_held} of {papers} paper claims hold.\n",
        stamp.command,
        stamp.commit,
        seeds_words(&stamp.seeds),
        length(stamp.duration_s),
    );
    let _ = writeln!(s, "```text\n{}```\n", d.output.text);
    s.push_str("| claim | verdict | ours | paper | source |\n|---|---|---|---|---|\n");
    for v in &d.verdicts {
        let kind = match v.kind {
            Kind::Paper => String::new(),
            k => format!(" *({})*", k.label()),
        };
        let _ = writeln!(
            s,
            "| `{}`{kind}: {} | {} | {} | {} ({}) | {}, {} |",
            v.id,
            cell(&v.sentence),
            verdict_word(v),
            cell(&v.ours_line()),
            cell(&v.paper),
            cell(&v.expect),
            v.source.file,
            cell(v.source.at)
        );
    }
    Section { meta, text: s }
}

/// The stamped sections of a RESULTS.md, in file order, and the number of
/// `## ` headings that carried no marker (a file from before sections had
/// stamps: they cannot be kept).
pub fn parse(md: &str) -> (Vec<Section>, usize) {
    let lines: Vec<&str> = md.lines().collect();
    let mut starts: Vec<(usize, SectionMeta)> = Vec::new();
    let mut unstamped = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = line.strip_prefix("## ") else {
            continue;
        };
        let meta = lines
            .get(i + 1)
            .and_then(|m| m.strip_prefix(MARKER))
            .and_then(|m| m.strip_suffix(MARKER_END))
            .and_then(|j| serde_json::from_str::<SectionMeta>(j).ok())
            .filter(|m| m.name == name);
        match meta {
            Some(m) => starts.push((i, m)),
            None if is_reproduction_heading(name) => unstamped += 1,
            None => {}
        }
    }
    // A section runs to the next heading of the assembled file's own
    // (stamped or not), or to the end.
    let boundaries: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("## "))
        .map(|(i, _)| i)
        .collect();
    let sections = starts
        .into_iter()
        .map(|(i, meta)| {
            let end = boundaries
                .iter()
                .copied()
                .find(|&b| b > i)
                .unwrap_or(lines.len());
            let mut text = lines[i..end].join("\n");
            while text.ends_with('\n') {
                text.pop();
            }
            text.push('\n');
            Section { meta, text }
        })
        .collect();
    (sections, unstamped)
}

/// Headings the assembled file writes itself, which are not reproductions.
fn is_reproduction_heading(name: &str) -> bool {
    !matches!(
        name,
        "Summary" | "Claims that do not hold, and why" | "Not run yet" | "Not run by this command"
    )
}

/// The whole RESULTS.md from `sections` (in the order given) and the
/// reproductions that have none.
pub fn assemble(sections: &[Section], not_run: &[NotRun]) -> String {
    let mut s = String::from("# Measured results\n\n");
    s.push_str(
        "Generated, one section per reproduction, each naming the command, the commit and the \
         seeds that produced it: the same commit, command and seeds give the same numbers. Do \
         not edit by hand. `thermocline reproduce --all --check --markdown RESULTS.md --cache \
         DIR` regenerates the whole file at one commit (resumable: an interrupted run picks up \
         the runs DIR holds); `thermocline reproduce NAME ...` replaces one section and keeps \
         the others, and the summary then says that the sections ran at several commits.\n\n",
    );
    s.push_str(
        "Each reproduction checks the claims of its paper (`thermocline reproduce NAME --check`) \
         on seeds 1, 2 and 3: a claim holds when it holds on every seed, with our figure (its \
         spread over the seeds) beside the paper's. docs/claims.md gives the rules a check \
         follows; tolerances the paper does not state are marked *inferred* in the source \
         column. A claim that is not held says why, with figures read from the same runs.\n\n",
    );
    let total = |k: Kind| {
        sections.iter().fold((0, 0), |(h, n), x| {
            let (a, b) = x.meta.kind(k);
            (h + a, n + b)
        })
    };
    let (paper_held, papers) = total(Kind::Paper);
    let (cal_held, cals) = total(Kind::Calibration);
    let (goal_held, goals) = total(Kind::Goal);
    let held: usize = sections.iter().map(|x| x.meta.held).sum();
    let claims: usize = sections.iter().map(|x| x.meta.claims).sum();
    let mut commits: Vec<&str> = sections.iter().map(|x| x.meta.commit.as_str()).collect();
    commits.sort_unstable();
    commits.dedup();
    let mut seeds: Vec<Vec<u64>> = sections.iter().map(|x| x.meta.seed_list()).collect();
    seeds.sort();
    seeds.dedup();
    let _ = writeln!(
        s,
        "## Summary\n\n**{paper_held} of {papers} of the papers' claims hold.** \
         Apart from them: {cal_held} of {cals} calibrations and model checks hold (a value \
         fitted to or copied from a paper, or our own model's assumption: shown, never \
         counted), and {goal_held} of {goals} project goals (a live testbed's agreement, an \
         issue's target). See docs/claims.md for the rules.\n"
    );
    match (commits.as_slice(), seeds.as_slice()) {
        ([c], [sd]) => {
            let _ = writeln!(
                s,
                "Every section ran at commit `{c}`, {}.\n",
                seeds_words(sd)
            );
        }
        _ => {
            let _ = writeln!(
                s,
                "The sections ran at {} commit(s) with {} set(s) of seeds: each names its own.\n",
                commits.len(),
                seeds.len()
            );
        }
    }
    s.push_str(
        "| reproduction | paper claims held | not held | calibrations held | goals held | seeds | commit | runs |\n\
         |---|---:|---:|---:|---:|---|---|---|\n",
    );
    for x in sections {
        let m = &x.meta;
        let runs = match m.duration_s {
            Some(d) => format!("capped at {d} s"),
            None => "full length".into(),
        };
        let (ph, pn) = m.kind(Kind::Paper);
        let (ch, cn) = m.kind(Kind::Calibration);
        let (gh, gn) = m.kind(Kind::Goal);
        let frac = |h: usize, n: usize| {
            if n == 0 {
                "-".to_string()
            } else {
                format!("{h} of {n}")
            }
        };
        let sd: Vec<String> = m.seed_list().iter().map(u64::to_string).collect();
        let _ = writeln!(
            s,
            "| {} | {ph} | {} | {} | {} | {} | `{}` | {runs} |",
            m.name,
            pn - ph,
            frac(ch, cn),
            frac(gh, gn),
            sd.join(", "),
            m.commit
        );
    }
    s.push_str("\n## Claims that do not hold, and why\n\n");
    if held == claims {
        s.push_str("None.\n");
    }
    for x in sections {
        for line in &x.meta.not_held {
            let _ = writeln!(s, "- {line}");
        }
    }
    if !not_run.is_empty() {
        s.push_str(
            "\n## Not run yet\n\nTheir claims are unchecked here; \
             `thermocline reproduce NAME --check --markdown RESULTS.md` adds a section.\n\n",
        );
        for n in not_run {
            let _ = writeln!(
                s,
                "- `{}` ({} runs): {}",
                n.name,
                n.runs,
                cell(n.description)
            );
        }
    }
    for x in sections {
        s.push('\n');
        s.push_str(&x.text);
    }
    s
}

/// RESULTS.md after a run: the sections of `existing` (if any) with those
/// of `fresh` replacing or joining them, ordered as `order` (the
/// catalogue; sections of names it no longer has are dropped), and
/// `not_run` describing every name of `order` without a section. Returns
/// the markdown, the names whose sections were kept from `existing`, and
/// the number of unstamped sections of `existing` that were dropped.
///
/// A kept section stays as its run wrote it, reasons included: a reason's
/// figures are its run's (docs/claims.md, rule 7).
pub fn update(
    existing: Option<&str>,
    fresh: Vec<Section>,
    order: &[&str],
    not_run: impl Fn(&str) -> Option<NotRun>,
) -> (String, Vec<String>, usize) {
    let (old, unstamped) = existing.map(parse).unwrap_or_default();
    let mut sections = Vec::new();
    let mut kept = Vec::new();
    let mut missing = Vec::new();
    for &name in order {
        if let Some(x) = fresh.iter().find(|x| x.meta.name == name) {
            sections.push(x.clone());
        } else if let Some(x) = old.iter().find(|x| x.meta.name == name) {
            kept.push(name.to_string());
            sections.push(x.clone());
        } else if let Some(n) = not_run(name) {
            missing.push(n);
        }
    }
    (assemble(&sections, &missing), kept, unstamped)
}

/// What keeps a RESULTS.md from being one regeneration: sections of
/// several commits or seed sets, capped runs, reproductions without a
/// section, or a summary whose counts are not its sections' (edited by
/// hand, or left behind by a change of the sections). Empty when it is one.
pub fn not_one_regeneration(md: &str, catalogue: &[&str]) -> Vec<String> {
    let (sections, unstamped) = parse(md);
    let mut problems = Vec::new();
    if unstamped > 0 {
        problems.push(format!("{unstamped} section(s) without a stamp"));
    }
    let mut commits: Vec<&str> = sections.iter().map(|x| x.meta.commit.as_str()).collect();
    commits.sort_unstable();
    commits.dedup();
    if commits.len() > 1 {
        problems.push(format!(
            "sections of {} commits: {}",
            commits.len(),
            commits.join(", ")
        ));
    }
    if commits.iter().any(|c| c.ends_with("-dirty")) {
        problems.push("a section ran on a tree with uncommitted changes".into());
    }
    let mut seeds: Vec<Vec<u64>> = sections.iter().map(|x| x.meta.seed_list()).collect();
    seeds.sort();
    seeds.dedup();
    if seeds.len() > 1 {
        problems.push(format!(
            "sections with {} different sets of seeds",
            seeds.len()
        ));
    }
    for x in &sections {
        if let Some(d) = x.meta.duration_s {
            problems.push(format!("{} ran capped at {d} s", x.meta.name));
        }
    }
    for name in catalogue {
        if !sections.iter().any(|x| x.meta.name == *name) {
            problems.push(format!("{name} has no section"));
        }
    }
    let names: Vec<&str> = sections.iter().map(|x| x.meta.name.as_str()).collect();
    if assemble(&sections, &[]) != md && !md.contains("\n## Not run yet\n") {
        problems.push(format!(
            "the file is not what its sections assemble to (a summary or preamble edited or stale; sections {})",
            names.join(", ")
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claims::{Claim, Expect, Source, Unit, UNKNOWN};
    use crate::reproduction::Output;
    use serde_json::json;

    fn claim(id: &str, hi: f64) -> Claim {
        Claim {
            id: id.into(),
            sentence: "x | y is small".into(),
            source: Source {
                file: "f.txt",
                at: "Table 1",
            },
            paper: "<= 1".into(),
            expect: Expect::Band { lo: 0.0, hi },
            unit: Unit::Num(1),
            measure: Box::new(|v| Ok(vec![(String::new(), v["x"].as_f64().unwrap_or(0.0))])),
            reason: UNKNOWN,
        }
    }

    fn reproduced(name: &'static str, x: f64) -> Reproduced {
        let summary = json!({ "x": x });
        Reproduced {
            name,
            output: Output {
                json: summary.clone(),
                text: "table\n".into(),
                charts: Vec::new(),
            },
            verdicts: vec![
                claim(&format!("{name}/holds"), 3.0).check(&summary),
                claim(&format!("{name}/fails"), 1.0).check(&summary),
            ],
        }
    }

    fn stamp(commit: &str, command: &str, duration_s: Option<f64>) -> Stamp {
        Stamp {
            commit: commit.into(),
            command: command.into(),
            duration_s,
            seeds: vec![1],
        }
    }

    fn not_run(name: &str) -> Option<NotRun> {
        (name == "long").then_some(NotRun {
            name: "long",
            description: "a long one",
            runs: 60,
        })
    }

    const ORDER: &[&str] = &["r", "s", "long"];

    #[test]
    fn stamps_counts_and_explains_each_claim_not_held() {
        let cmd = "thermocline reproduce r --check";
        let fresh = vec![section(
            &stamp("abc123", cmd, Some(5.0)),
            &reproduced("r", 2.0),
        )];
        let (md, kept, dropped) = update(None, fresh, ORDER, not_run);
        assert!(kept.is_empty() && dropped == 0);
        assert!(md.contains("## Not run yet"));
        assert!(md.contains("- `long` (60 runs): a long one"));
        assert!(md.contains("`thermocline reproduce r --check` at commit `abc123`"));
        assert!(md.contains("capped at 5 s"));
        assert!(
            md.contains("**1 of 2 of the papers' claims hold.**"),
            "{md}"
        );
        assert!(md.contains("1 of 2 paper claims hold."), "{md}");
        assert!(
            md.contains("Every section ran at commit `abc123`, seed 1."),
            "{md}"
        );
        assert!(
            md.contains("| r | 1 | 1 | - | - | 1 | `abc123` | capped at 5 s |"),
            "{md}"
        );
        assert!(md.contains("- `r/fails`: x | y is small. Ours: 2.0; paper: <= 1"));
        assert!(md.contains("Why: unknown yet"));
        assert!(md.contains("```text\ntable\n```"));
        // Table cells escape the pipe.
        assert!(
            md.contains("| `r/holds`: x \\| y is small | held | 2.0 |"),
            "{md}"
        );
        assert!(md.contains("| **NOT held** |"));
    }

    #[test]
    fn a_section_reads_back_as_written() {
        let x = section(&stamp("c1", "cmd --x", None), &reproduced("r", 2.0));
        let md = assemble(std::slice::from_ref(&x), &[]);
        let (back, unstamped) = parse(&md);
        assert_eq!(unstamped, 0);
        assert_eq!(back, vec![x]);
    }

    #[test]
    fn a_run_replaces_its_sections_and_keeps_the_others() {
        let first = vec![
            section(&stamp("old", "run r s", None), &reproduced("r", 2.0)),
            section(&stamp("old", "run r s", None), &reproduced("s", 2.0)),
        ];
        let (md1, _, _) = update(None, first, ORDER, not_run);
        // Only `s` runs again, at another commit, and now holds both claims.
        let again = vec![section(&stamp("new", "run s", None), &reproduced("s", 0.5))];
        let (md2, kept, dropped) = update(Some(&md1), again, ORDER, not_run);
        assert_eq!(kept, vec!["r".to_string()]);
        assert_eq!(dropped, 0);
        assert!(
            md2.contains("| r | 1 | 1 | - | - | 1 | `old` | full length |"),
            "{md2}"
        );
        assert!(
            md2.contains("| s | 2 | 0 | - | - | 1 | `new` | full length |"),
            "{md2}"
        );
        assert!(md2.contains("**3 of 4 of the papers' claims hold.**"));
        assert!(md2.contains("The sections ran at 2 commit(s)"), "{md2}");
        assert!(md2.contains("- `r/fails`"));
        assert!(!md2.contains("- `s/fails`"));
        // Sections follow the catalogue, whatever order the runs came in.
        assert!(md2.find("\n## r\n").unwrap() < md2.find("\n## s\n").unwrap());
        // Updating with nothing new changes nothing.
        let (md3, _, _) = update(Some(&md2), Vec::new(), ORDER, not_run);
        assert_eq!(md3, md2);
    }

    #[test]
    fn unstamped_and_retired_sections_are_dropped_and_counted() {
        let old_format = "# Measured results\n\n## Summary\n\n## r\n\n```text\nx\n```\n";
        let (md, kept, dropped) = update(Some(old_format), Vec::new(), ORDER, not_run);
        assert!(kept.is_empty());
        assert_eq!(dropped, 1);
        assert!(!md.contains("\n## r\n"));
        // A reproduction no longer in the catalogue loses its section.
        let gone = vec![section(&stamp("c", "cmd", None), &reproduced("gone", 2.0))];
        let (md, _, _) = update(None, gone, ORDER, not_run);
        let (md, kept, _) = update(Some(&md), Vec::new(), ORDER, not_run);
        assert!(kept.is_empty() && !md.contains("## gone"));
    }

    #[test]
    fn a_marker_survives_text_that_would_close_a_comment() {
        let mut r = reproduced("r", 2.0);
        r.verdicts[1].reason = Some("because a --> b".into());
        let x = section(&stamp("c", "cmd", None), &r);
        let (back, _) = parse(&assemble(std::slice::from_ref(&x), &[]));
        assert_eq!(back[0].meta.not_held, x.meta.not_held);
        assert!(back[0].meta.not_held[0].ends_with("because a --> b"));
    }

    #[test]
    fn one_regeneration_is_one_commit_one_seed_set_and_its_own_summary() {
        let at = |c: &str, seeds: Vec<u64>| {
            let mut st = stamp(c, "thermocline reproduce --all", None);
            st.seeds = seeds;
            st
        };
        let one = assemble(
            &[
                section(&at("c1", vec![1, 2, 3]), &reproduced("r", 2.0)),
                section(&at("c1", vec![1, 2, 3]), &reproduced("s", 2.0)),
            ],
            &[],
        );
        assert!(not_one_regeneration(&one, &["r", "s"]).is_empty());
        assert_eq!(
            not_one_regeneration(&one, &["r", "s", "t"]),
            ["t has no section"]
        );
        let two = assemble(
            &[
                section(&at("c1", vec![1, 2, 3]), &reproduced("r", 2.0)),
                section(&at("c2", vec![1]), &reproduced("s", 2.0)),
            ],
            &[],
        );
        let p = not_one_regeneration(&two, &["r", "s"]);
        assert!(
            p.iter().any(|x| x.starts_with("sections of 2 commits")),
            "{p:?}"
        );
        assert!(
            p.iter().any(|x| x.contains("2 different sets of seeds")),
            "{p:?}"
        );
        let edited = one.replacen("**2 of 4", "**3 of 4", 1);
        assert_ne!(edited, one);
        let p = not_one_regeneration(&edited, &["r", "s"]);
        assert!(
            p.iter()
                .any(|x| x.contains("not what its sections assemble")),
            "{p:?}"
        );
    }
}
