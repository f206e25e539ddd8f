//! What stamps results: the commit the tree is at, and the command line.

/// The commit the working tree is at (`-dirty` with uncommitted changes to
/// tracked files), or "unknown" outside a git checkout.
pub fn commit() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
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

/// Whether a [`commit`] names the code it stands for: not a tree with
/// uncommitted changes, nor one outside git.
pub fn names_its_code(commit: &str) -> bool {
    commit != "unknown" && !commit.ends_with("-dirty")
}

/// The command line as typed, the program named `thermocline`.
pub fn command_line() -> String {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    args.insert(0, "thermocline".into());
    args.join(" ")
}
