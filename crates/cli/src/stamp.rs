//! What stamps results: the commit the tree is at, and the command line.

fn git(args: &[&str]) -> Option<String> {
    std::process::Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// The files that decide what a run does: the workspace's manifest and
/// lock, and the sources and manifest of every crate a run goes through
/// (workloads, managers, the machines, the engine and the sweep runner).
/// Their tests and benchmarks are not here: they check runs, they do not
/// make them. The reproductions, the command line, the presentation and
/// the Python package only choose runs and read their reports.
pub const RUN_CODE: [&str; 24] = [
    "Cargo.toml",
    "Cargo.lock",
    "crates/vocab/Cargo.toml",
    "crates/vocab/src",
    "crates/masim/Cargo.toml",
    "crates/masim/src",
    "crates/model/Cargo.toml",
    "crates/model/src",
    "crates/backend/Cargo.toml",
    "crates/backend/src",
    "crates/sim/Cargo.toml",
    "crates/sim/src",
    "crates/rate/Cargo.toml",
    "crates/rate/src",
    "crates/live/Cargo.toml",
    "crates/live/src",
    "crates/managers/Cargo.toml",
    "crates/managers/src",
    "crates/workloads/Cargo.toml",
    "crates/workloads/src",
    "crates/engine/Cargo.toml",
    "crates/engine/src",
    "crates/sweep/Cargo.toml",
    "crates/sweep/src",
];

/// What names the code a run was made by, for a sweep directory's cells:
/// `runs-` and a hash of the git trees of [`RUN_CODE`] at HEAD, so a commit
/// that changes only how reports are read (a claim, a table) reuses the
/// runs, and any change to what runs does not. `-dirty` when those files
/// have uncommitted changes; "unknown" outside a git checkout.
pub fn run_code() -> String {
    let mut args = vec!["rev-parse".to_string()];
    args.extend(RUN_CODE.iter().map(|p| format!("HEAD:{p}")));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let Some(trees) = git(&refs) else {
        return "unknown".into();
    };
    // FNV-1a: stable across builds and platforms, which a std hasher is not.
    let hash = trees.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut status = vec!["status", "--porcelain", "--untracked-files=no", "--"];
    status.extend(RUN_CODE);
    let dirty = git(&status).is_some_and(|s| !s.is_empty());
    format!("runs-{hash:016x}{}", if dirty { "-dirty" } else { "" })
}

/// The commit the working tree is at (`-dirty` with uncommitted changes to
/// tracked files), or "unknown" outside a git checkout.
pub fn commit() -> String {
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(c) if !c.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{c}-dirty")
            } else {
                c
            }
        }
        _ => "unknown".into(),
    }
}

/// Whether a [`commit`] or [`run_code`] names the code it stands for: not a
/// tree with uncommitted changes, nor one outside git.
pub fn names_its_code(commit: &str) -> bool {
    commit != "unknown" && !commit.ends_with("-dirty")
}

/// The command line as typed, the program named `thermocline`.
pub fn command_line() -> String {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    args.insert(0, "thermocline".into());
    args.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In a checkout the key names the run code's trees, the same on every
    /// call; outside one it is "unknown", which names no code.
    #[test]
    fn the_run_code_key_is_stable_and_names_its_code() {
        let a = run_code();
        assert_eq!(a, run_code());
        if a != "unknown" {
            let hex = a.trim_start_matches("runs-").trim_end_matches("-dirty");
            assert!(a.starts_with("runs-") && hex.len() == 16, "{a}");
            assert!(hex.chars().all(|c| c.is_ascii_hexdigit()), "{a}");
        }
        assert!(!names_its_code("unknown"));
        assert!(!names_its_code("runs-0123456789abcdef-dirty"));
        assert!(names_its_code("runs-0123456789abcdef"));
    }
}
