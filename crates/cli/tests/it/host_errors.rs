//! A live host's refusals on this machine's own kernel: each kind of host
//! failure ends with its own exit code (4 permission, 6 target gone; see
//! `thermocline --help`), not with 2 as if the input were wrong, and says
//! what to do in one line.

use std::os::unix::fs::MetadataExt;
use std::process::Command;

/// `thermocline args` as the caller, or as `nobody` (uid 65534) when the
/// caller is root: pid 1 is then a process it may not touch. `None` when
/// root cannot drop its privileges here (no setpriv).
fn unprivileged(args: &[&str]) -> Option<(i32, String)> {
    let bin = env!("CARGO_BIN_EXE_thermocline");
    // /proc/self belongs to the process's effective user
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    let mut cmd = if root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", bin]);
        c
    } else {
        Command::new(bin)
    };
    if root {
        // setpriv present, and nobody may run the binary where it is?
        let works = Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                bin,
                "--version",
            ])
            .output()
            .is_ok_and(|o| o.status.success());
        if !works {
            eprintln!("skipped: root cannot run thermocline as nobody here (setpriv)");
            return None;
        }
    }
    let out = cmd.args(args).output().expect("runs");
    Some((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

#[test]
fn a_process_the_caller_may_not_touch_exits_4_saying_to_run_as_root() {
    for args in [
        vec!["probe", "--pid", "1"],
        vec!["monitor", "--pid", "1", "--once", "--no-damon"],
        vec!["torture", "--pid", "1", "--moves", "1"],
    ] {
        let Some((code, err)) = unprivileged(&args) else {
            return;
        };
        assert_eq!(code, 4, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(err.starts_with("error: "), "{err}");
        assert!(err.contains("permission denied"), "{err}");
        assert!(err.contains("run thermocline as root"), "{err}");
    }
}

#[test]
fn a_target_that_exited_exits_6() {
    let mut child = Command::new("true").spawn().expect("true runs");
    let pid = child.id().to_string();
    child.wait().unwrap();
    for args in [
        vec!["probe", "--pid", &pid],
        vec!["monitor", "--pid", &pid, "--once", "--no-damon"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_thermocline"))
            .args(&args)
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(6), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(err.contains(&format!("no process {pid}")), "{err}");
    }
}

#[test]
fn the_exit_codes_are_listed_under_help() {
    let out = Command::new(env!("CARGO_BIN_EXE_thermocline"))
        .arg("--help")
        .output()
        .expect("runs");
    let help = String::from_utf8_lossy(&out.stdout);
    for line in [
        "  2    a usage or input mistake",
        "  4    the host refused for lack of privilege",
        "  5    the kernel lacks a feature",
        "  6    the target process exited",
        "  7    the host is out of memory",
    ] {
        assert!(help.contains(line), "{line:?} in:\n{help}");
    }
}
