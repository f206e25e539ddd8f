//! The daemon's Prometheus text metrics (exposition format 0.0.4), and a
//! small server for them on a localhost port.

use std::fmt::Write;
use std::io::{Read, Write as _};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use thermocline_live::backend::LinuxBackend;
use thermocline_live::procfs;
use thermocline_live::sys::PAGE;
use thermocline_managers::Manager;

/// The latest metrics text, shared with the server thread.
pub type Shared = Arc<Mutex<String>>;

fn family(s: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(s, "# HELP thermocline_{name} {help}");
    let _ = writeln!(s, "# TYPE thermocline_{name} {kind}");
}

fn label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The metrics of the backend and manager now.
pub fn render(b: &LinuxBackend, m: &dyn Manager, dry_run: bool) -> String {
    let mut s = String::new();
    let tiers = b.live_tiers();
    let resident = b.resident_bytes();
    let c = b.counters();
    family(
        &mut s,
        "pages",
        "gauge",
        "Pages of the targets resident per tier (4 KiB): the last full read, rate-limited by its cost, plus the daemon's moves since.",
    );
    for (t, r) in tiers.iter().zip(&resident) {
        let _ = writeln!(
            s,
            "thermocline_pages{{tier=\"{}\"}} {}",
            label(&t.name),
            r / PAGE
        );
    }
    family(
        &mut s,
        "moved_pages_total",
        "counter",
        "Pages moved into each tier by the manager.",
    );
    for (t, n) in tiers.iter().zip(&c.moved_pages) {
        let _ = writeln!(
            s,
            "thermocline_moved_pages_total{{tier=\"{}\"}} {n}",
            label(&t.name)
        );
    }
    family(
        &mut s,
        "moved_bytes_total",
        "counter",
        "Bytes moved between tiers (page-outs included).",
    );
    let _ = writeln!(s, "thermocline_moved_bytes_total {}", c.moved_bytes);
    family(
        &mut s,
        "would_move_pages_total",
        "counter",
        "Pages a dry run decided to move and did not.",
    );
    let _ = writeln!(s, "thermocline_would_move_pages_total {}", c.would_move);
    family(
        &mut s,
        "failed_pages_total",
        "counter",
        "Pages the kernel (or the quota) did not let move, by reason.",
    );
    for (why, n) in [
        ("busy", c.failed_busy),
        ("nomem", c.failed_nomem),
        ("access", c.failed_access),
        ("quota", c.failed_quota),
    ] {
        let _ = writeln!(s, "thermocline_failed_pages_total{{reason=\"{why}\"}} {n}");
    }
    family(
        &mut s,
        "sampling_pageouts_total",
        "counter",
        "Telemetry cost: pages paged out to sample their accesses (refault sampling).",
    );
    let _ = writeln!(
        s,
        "thermocline_sampling_pageouts_total {}",
        c.sampling_pageouts
    );
    family(
        &mut s,
        "refaults_total",
        "counter",
        "Sampled pages that came back (were accessed).",
    );
    let _ = writeln!(s, "thermocline_refaults_total {}", c.refaults);
    family(
        &mut s,
        "restored_pages_total",
        "counter",
        "Sampled pages moved back to the node they were sampled on.",
    );
    let _ = writeln!(s, "thermocline_restored_pages_total {}", c.restored);
    family(
        &mut s,
        "thp_splits_total",
        "counter",
        "Transparent huge pages split on the manager's request.",
    );
    let _ = writeln!(s, "thermocline_thp_splits_total {}", c.splits);
    family(
        &mut s,
        "thp_collapses_total",
        "counter",
        "2 MiB ranges collapsed into a transparent huge page on the manager's request.",
    );
    let _ = writeln!(s, "thermocline_thp_collapses_total {}", c.collapses);
    family(
        &mut s,
        "cpu_seconds_total",
        "counter",
        "CPU time of the daemon (telemetry and manager).",
    );
    let _ = writeln!(
        s,
        "thermocline_cpu_seconds_total {:.6}",
        b.cpu_ns() as f64 / 1e9
    );
    family(
        &mut s,
        "dry_run",
        "gauge",
        "1 when the daemon decides and moves nothing.",
    );
    let _ = writeln!(s, "thermocline_dry_run {}", u8::from(dry_run));
    family(&mut s, "manager", "gauge", "What the manager tracks (its report gauges), e.g. estimated slow-tier accesses per second.");
    for (k, v) in m.gauges() {
        if v.is_finite() {
            let _ = writeln!(
                s,
                "thermocline_manager{{manager=\"{}\",name=\"{}\"}} {v}",
                m.name(),
                label(k)
            );
        }
    }
    family(
        &mut s,
        "target_up",
        "gauge",
        "1 while a target process is alive.",
    );
    for p in b.processes() {
        let _ = writeln!(
            s,
            "thermocline_target_up{{pid=\"{}\"}} {}",
            p.pid,
            u8::from(p.alive)
        );
    }
    family(
        &mut s,
        "target_faults_total",
        "counter",
        "Page faults of each target (major: swap-ins, e.g. refaults from zram).",
    );
    for p in b.processes().iter().filter(|p| p.alive) {
        if let Ok(f) = procfs::faults(p.pid) {
            let _ = writeln!(
                s,
                "thermocline_target_faults_total{{pid=\"{}\",kind=\"minor\"}} {}",
                p.pid, f.minor
            );
            let _ = writeln!(
                s,
                "thermocline_target_faults_total{{pid=\"{}\",kind=\"major\"}} {}",
                p.pid, f.major
            );
        }
    }
    if let Ok(v) = procfs::vmstat(&procfs::VMSTAT_KEYS) {
        family(
            &mut s,
            "kernel_vmstat",
            "counter",
            "The kernel's own migration and tiering counters (/proc/vmstat).",
        );
        for (k, n) in v {
            let _ = writeln!(s, "thermocline_kernel_vmstat{{counter=\"{k}\"}} {n}");
        }
    }
    if let Some(p) = std::fs::read_to_string("/proc/pressure/memory")
        .ok()
        .and_then(|t| procfs::parse_pressure(&t))
    {
        family(
            &mut s,
            "memory_pressure_seconds_total",
            "counter",
            "Memory stall time of the host (PSI).",
        );
        let _ = writeln!(
            s,
            "thermocline_memory_pressure_seconds_total{{kind=\"some\"}} {:.6}",
            p.some_us as f64 / 1e6
        );
        let _ = writeln!(
            s,
            "thermocline_memory_pressure_seconds_total{{kind=\"full\"}} {:.6}",
            p.full_us as f64 / 1e6
        );
    }
    s
}

/// Serves `shared` at every path of `addr` (HTTP/1.0-style: one response
/// per connection) from a background thread; returns the bound address.
pub fn serve(addr: &str, shared: Shared) -> std::io::Result<std::net::SocketAddr> {
    let listener = TcpListener::bind(addr)?;
    let bound = listener.local_addr()?;
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let _ = conn.set_read_timeout(Some(std::time::Duration::from_secs(2)));
            // the request itself does not matter: read what has come
            let mut buf = [0u8; 1024];
            let _ = conn.read(&mut buf);
            let body = shared.lock().map(|s| s.clone()).unwrap_or_default();
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    Ok(bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_answers_with_the_latest_text() {
        let shared: Shared = Arc::new(Mutex::new("a 1\n".into()));
        let addr = serve("127.0.0.1:0", shared.clone()).unwrap();
        *shared.lock().unwrap() = "thermocline_x 2\n".into();
        let mut c = std::net::TcpStream::connect(addr).unwrap();
        c.write_all(b"GET /metrics HTTP/1.0\r\n\r\n").unwrap();
        let mut out = String::new();
        c.read_to_string(&mut out).unwrap();
        assert!(out.starts_with("HTTP/1.1 200 OK"), "{out}");
        assert!(out.ends_with("thermocline_x 2\n"), "{out}");
    }

    #[test]
    fn labels_are_escaped() {
        assert_eq!(label("a\"b\\c"), "a\\\"b\\\\c");
    }
}
