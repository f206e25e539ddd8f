//! Every `thermocline` command of the README runs from a clone as written:
//! each one in a `sh` block is run here, in a scratch directory that sees
//! the clone's `crates/` (where the README's MASIM configs are), except
//! those that need root or hours (`sudo`, `--all`), which are checked to
//! parse instead. A command exits 0, or 1 under `--check` when a claim does
//! not hold (docs/exit-codes.md).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The commands of the README's `sh` blocks, continuation lines joined,
/// comments dropped.
fn readme_commands() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let code = line.split(" # ").next().unwrap_or("").trim();
        if code.is_empty() || code.starts_with('#') {
            continue;
        }
        match code.strip_suffix('\\') {
            Some(head) => pending.push_str(head),
            None => {
                pending.push_str(code);
                out.push(std::mem::take(&mut pending));
            }
        }
    }
    out
}

/// `cmd`'s words after `thermocline`, if it runs thermocline.
fn thermocline_args(cmd: &str) -> Option<Vec<String>> {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "thermocline")?;
    Some(words[at + 1..].iter().map(|w| w.to_string()).collect())
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("thermocline-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("crates");
    if !link.exists() {
        std::os::unix::fs::symlink(root().join("crates"), &link).unwrap();
    }
    dir
}

#[test]
fn every_readme_command_runs_from_a_clone_as_written() {
    let commands = readme_commands();
    assert!(commands.len() >= 8, "the README's sh blocks: {commands:?}");
    let dir = scratch();
    let mut runs = Vec::new();
    for cmd in &commands {
        let Some(mut args) = thermocline_args(cmd) else {
            // cargo's own commands: CI runs those
            assert!(
                cmd.starts_with("cargo "),
                "a README command that is not thermocline's: {cmd}"
            );
            continue;
        };
        if cmd.starts_with("sudo") || args.iter().any(|a| a == "--all") {
            // root or hours: check that it parses (`--help` after the subcommand)
            let sub = args
                .iter()
                .position(|a| !a.starts_with('-'))
                .map_or(0, |i| i + 1);
            args.truncate(sub);
            args.push("--help".into());
        }
        runs.push((cmd.clone(), args));
    }
    // two at a time, as on the 2-core machine CI runs on
    let failures: Vec<String> = runs
        .chunks(2)
        .flat_map(|pair| {
            let children: Vec<_> = pair
                .iter()
                .map(|(cmd, args)| {
                    let child = Command::new(env!("CARGO_BIN_EXE_thermocline"))
                        .args(args)
                        .current_dir(&dir)
                        .stdout(Stdio::piped())
                        .stderr(Stdio::piped())
                        .spawn()
                        .expect("thermocline starts");
                    (cmd.clone(), args.clone(), child)
                })
                .collect();
            children
        })
        .filter_map(|(cmd, args, child)| {
            let out = child.wait_with_output().expect("thermocline ends");
            let code = out.status.code().unwrap_or(-1);
            let allowed = code == 0 || (code == 1 && args.iter().any(|a| a == "--check"));
            (!allowed).then(|| {
                format!(
                    "{cmd}\n  exit {code}: {}",
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .last()
                        .unwrap_or("")
                )
            })
        })
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        failures.is_empty(),
        "README commands that fail:\n{}",
        failures.join("\n")
    );
}
