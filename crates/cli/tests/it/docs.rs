//! The README and the book (docs/, built by mdBook): every relative link
//! reaches a file and, with an anchor, one of its headings; every chapter is
//! in docs/SUMMARY.md; the README stays a five-minute read; prose names no
//! commit (numbers come from generated pages, docs/numbers.md).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// README.md and every page under docs/.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut out = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut out);
    out.sort();
    out
}

/// The lines of `text` outside fenced code blocks, with their numbers.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// A heading's anchor as GitHub and mdBook make it: lower case, letters,
/// digits, `-` and `_` kept, spaces to `-`, the rest dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    prose(text)
        .into_iter()
        .filter_map(|(_, l)| l.strip_prefix('#'))
        .map(|h| slug(h.trim_start_matches('#')))
        .collect()
}

/// The targets of the inline links `[text](target)` of a line, without
/// those inside `code`.
fn links(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'`' => in_code = !in_code,
            b']' if !in_code && b.get(i + 1) == Some(&b'(') => {
                if let Some(end) = line[i + 2..].find(')') {
                    out.push(line[i + 2..i + 2 + end].to_string());
                    i += end + 2;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

#[test]
fn every_relative_link_reaches_its_file_and_heading() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (n, line) in prose(&text) {
            for target in links(line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
                let path = if file.is_empty() {
                    page.clone()
                } else {
                    page.parent().unwrap().join(file)
                };
                let shown = format!("{}:{n}: ({target})", page.display());
                if !path.exists() {
                    broken.push(format!("{shown}: no such file"));
                } else if !anchor.is_empty()
                    && path.extension().is_some_and(|x| x == "md")
                    && !anchors(&std::fs::read_to_string(&path).unwrap()).contains(anchor)
                {
                    broken.push(format!("{shown}: no heading with that anchor"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_chapter_is_in_the_summary_and_every_entry_exists() {
    let docs = root().join("docs");
    let summary = std::fs::read_to_string(docs.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<String> = summary.lines().flat_map(links).collect();
    for l in &listed {
        assert!(
            docs.join(l).exists(),
            "SUMMARY.md lists {l}, which does not exist"
        );
    }
    for page in pages().iter().filter(|p| p.starts_with(&docs)) {
        let rel = page
            .strip_prefix(&docs)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if rel != "SUMMARY.md" {
            assert!(
                listed.contains(&rel),
                "docs/{rel} is not in docs/SUMMARY.md"
            );
        }
    }
}

#[test]
fn no_page_keeps_a_placeholder() {
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        assert!(
            !text.contains("@@"),
            "{}: a placeholder left to fill",
            page.display()
        );
    }
}

#[test]
fn the_readme_is_a_five_minute_read() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = text.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines: at most 250, the rest in docs/"
    );
}

/// A word of 7 to 40 hexadecimal digits with a digit and a letter: how a
/// commit is named.
fn names_a_commit(word: &str) -> bool {
    let w = word.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    (7..=40).contains(&w.len())
        && w.chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        && w.chars().any(|c| c.is_ascii_digit())
        && w.chars().any(|c| c.is_ascii_alphabetic())
}

#[test]
fn prose_names_no_commit() {
    let mut found = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (n, line) in prose(&text) {
            // inline code may show an id a command prints; prose may not
            let outside_code: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
            for w in outside_code
                .split_whitespace()
                .filter(|w| names_a_commit(w))
            {
                found.push(format!("{}:{n}: {w}", page.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "commits named in prose (numbers come from generated pages, docs/numbers.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checks_see_what_they_look_for() {
    assert_eq!(slug("The test guest"), "the-test-guest");
    assert_eq!(
        slug("`thermocline exec`: tiering a command"),
        "thermocline-exec-tiering-a-command"
    );
    assert_eq!(links("see [a](b.md#c) and `[x](y)`"), vec!["b.md#c"]);
    assert!(names_a_commit("5aba68c,") && !names_a_commit("deadbee") && !names_a_commit("1234567"));
}

/// `tools/bench_charts.py`'s file name for a family and unit.
fn chart_name(family: &str, unit: &str) -> String {
    let slug = |t: &str| {
        let s: String = t
            .to_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        s.split('-')
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("-")
    };
    format!("{}--{}.svg", slug(family), slug(unit))
}

#[test]
fn every_benchmark_family_has_its_chart_in_the_book() {
    let csv = std::fs::read_to_string(root().join("benchsuite/results.csv")).unwrap();
    let page = std::fs::read_to_string(root().join("docs/benchmarks.md")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("date,commit,benchmark,value,unit,load,command")
    );
    let mut missing = BTreeSet::new();
    for (n, line) in lines.enumerate() {
        let f: Vec<&str> = line.splitn(7, ',').collect();
        assert!(f.len() == 7, "results.csv:{}: 7 fields: {line}", n + 2);
        let name = chart_name(f[2].split('/').next().unwrap(), f[4]);
        if !page.contains(&format!("img/bench/{name}"))
            || !root().join("docs/img/bench").join(&name).exists()
        {
            missing.insert(name);
        }
    }
    assert!(
        missing.is_empty(),
        "charts missing: run .venv/bin/python tools/bench_charts.py: {missing:?}"
    );
}
