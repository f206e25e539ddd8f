//! What the two kinds of guest run share (`run.backend = "guest"`:
//! guest_run.rs runs the daemon on masim, guest_damon.rs the kernel's own
//! DAMON): the guest script's checks, the MASIM config read once, the
//! console's sections, the guest's boot and the error every guest failure
//! becomes.

pub mod damon;
pub mod run;

use thermocline_engine::runner::{install_remote, RemoteBackend};

/// The QEMU guest as the engine's `guest` backend: with
/// `metrics.damon_regions` the kernel's own DAMON ([`damon`]), else the
/// daemon on masim ([`run`]).
pub struct Guest;

impl RemoteBackend for Guest {
    fn run(
        &self,
        cfg: &thermocline_engine::config::RunConfig,
    ) -> Result<thermocline_engine::report::Report, thermocline_engine::RunError> {
        if cfg.metrics.damon_regions {
            damon::run(cfg)
        } else {
            run::run(cfg)
        }
    }
}

/// Registers the guest with the engine (once; later calls do nothing).
pub fn install() {
    install_remote(&Guest);
}

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use thermocline_engine::config::RunConfig;
use thermocline_engine::error::{ConfigError, RunError};

/// A guest run's failure, named as the `run.backend=guest` setting's.
pub fn invalid(msg: impl Into<String>) -> RunError {
    ConfigError::invalid("run.backend=guest", msg.into()).into()
}

/// The text between `NAME-BEGIN` and `NAME-END` lines of the guest's console.
pub fn section<'a>(console: &'a str, name: &str) -> Option<&'a str> {
    let begin = format!("{name}-BEGIN\n");
    let a = console.find(&begin)? + begin.len();
    let b = a + console[a..].find(&format!("{name}-END"))?;
    Some(&console[a..b])
}

/// The guest script (tools/live/guest.sh, or `THERMOCLINE_GUEST_SH`),
/// once QEMU and the guest's kernel are known to be there: without them,
/// an error that names the scripts that install them (guest.sh would
/// otherwise try to install them itself, as root, from the network).
pub fn guest_sh() -> Result<PathBuf, RunError> {
    let guest_sh = std::env::var_os("THERMOCLINE_GUEST_SH")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("tools/live/guest.sh"));
    if !guest_sh.exists() {
        return Err(invalid(format!(
            "{} not found: run from the repository's root (or set THERMOCLINE_GUEST_SH)",
            guest_sh.display()
        )));
    }
    let on_path = |prog: &str| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(prog).is_file()))
    };
    if !on_path("qemu-system-x86_64") {
        return Err(invalid(
            "the guest needs QEMU, and qemu-system-x86_64 is not on PATH: install it (and busybox-static, cpio, xz) with tools/live/install-deps.sh, then the guest's kernel with tools/live/fetch-kernel.sh (both as root, Debian bookworm)",
        ));
    }
    let kernel = std::env::var_os("THERMOCLINE_GUEST_KERNEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            guest_sh
                .parent()
                .unwrap_or(Path::new("."))
                .join("../../target/live/kernel")
        });
    if !kernel.join("vmlinuz").is_file() {
        return Err(invalid(format!(
            "the guest's kernel is not at {}: fetch it with tools/live/fetch-kernel.sh (as root; it runs tools/live/install-deps.sh first), or point THERMOCLINE_GUEST_KERNEL at a directory holding vmlinuz and modules/",
            kernel.join("vmlinuz").display()
        )));
    }
    Ok(guest_sh)
}

/// A guest run's inputs, read and checked before QEMU starts.
pub struct Prepared {
    /// The MASIM config's text, as the guest gets it.
    pub text: String,
    /// Its phases' total length (s).
    pub duration_s: f64,
    /// tools/live/guest.sh.
    pub guest_sh: PathBuf,
    /// This binary, which the guest runs.
    pub exe: PathBuf,
    /// A directory for the files given to the guest.
    pub dir: PathBuf,
    /// The config's file name in the guest's /files.
    pub cfg_name: String,
}

impl Prepared {
    /// Writes `text` as `name` in the run's directory, for the guest.
    pub fn write(&self, name: &str, text: &str) -> Result<PathBuf, RunError> {
        let p = self.dir.join(name);
        std::fs::write(&p, text).map_err(|e| invalid(format!("{}: {e}", p.display())))?;
        Ok(p)
    }
}

/// Reads and checks what a guest run needs; `tag` names its directory.
pub fn prepare(cfg: &RunConfig, tag: &str) -> Result<Prepared, RunError> {
    let workload = Path::new(&cfg.run.workload);
    let text = std::fs::read_to_string(workload).map_err(|e| {
        invalid(format!(
            "the guest runs MASIM configs for real; {}: {e}",
            workload.display()
        ))
    })?;
    let masim = thermocline_workloads::masim::parse(&text, &cfg.run.workload)?;
    let duration_s: f64 = masim
        .phases
        .iter()
        .map(|p| p.duration_ms as f64 / 1e3)
        .sum();
    let guest_sh = guest_sh()?;
    let exe = std::env::current_exe().map_err(|e| invalid(e.to_string()))?;
    let dir = std::env::temp_dir().join(format!("{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| invalid(format!("{}: {e}", dir.display())))?;
    let cfg_name = workload
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "workload.cfg".into());
    Ok(Prepared {
        text,
        duration_s,
        guest_sh,
        exe,
        dir,
        cfg_name,
    })
}

/// A finished guest: its console, and how guest.sh ended.
pub struct Booted {
    /// What the guest printed (guest.sh's stdout).
    pub console: String,
    status: ExitStatus,
    stderr: String,
}

/// Boots the guest with this binary and `files` (in its /files), runs
/// `script` in it for `timeout_s` at the most, then removes `p.dir`.
pub fn boot(
    p: &Prepared,
    timeout_s: f64,
    files: &[&Path],
    script: &Path,
) -> Result<Booted, RunError> {
    let mut cmd = Command::new("bash");
    cmd.arg(&p.guest_sh)
        .args(["-t", &format!("{timeout_s:.0}")])
        .arg("-b")
        .arg(&p.exe);
    for f in files {
        cmd.arg("-f").arg(f);
    }
    let out = cmd
        .arg(script)
        .output()
        .map_err(|e| invalid(format!("{}: {e}", p.guest_sh.display())))?;
    let _ = std::fs::remove_dir_all(&p.dir);
    Ok(Booted {
        console: String::from_utf8_lossy(&out.stdout).into_owned(),
        status: out.status,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

impl Booted {
    /// Whether the script ran to its end and exited 0.
    pub fn success(&self) -> bool {
        self.status.success()
    }

    /// The run's failure: `why`, the guest's exit code, what guest.sh said,
    /// and the console's last `tail` lines (none if 0).
    pub fn failed(&self, why: &str, tail: usize) -> RunError {
        let mut msg = format!(
            "{why} (guest exit {:?}): {}",
            self.status.code(),
            self.stderr.trim()
        );
        if tail > 0 {
            let last: Vec<&str> = self.console.lines().rev().take(tail).collect();
            msg.push(' ');
            msg.push_str(&last.into_iter().rev().collect::<Vec<_>>().join(" | "));
        }
        invalid(msg)
    }
}
