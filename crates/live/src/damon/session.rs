//! A kdamond of our own: DAMON's sysfs interface driven to monitor processes
//! (vaddr) or physical memory (paddr), with DAMOS schemes, and its regions
//! read back (Documentation/admin-guide/mm/damon/usage.rst, "sysfs
//! Interface"; mm/damon/sysfs.c and sysfs-schemes.c of Linux 6.12).
//!
//! How the regions are read: scheme 0 of every session is a `stat` scheme
//! whose access pattern matches every region, and writing
//! `update_schemes_tried_regions` to the kdamond's `state` fills its
//! `tried_regions/` directory with the regions DAMON had at the scheme's
//! next application (the write returns when they are there, at most one
//! aggregation interval later). This is how damo reads a snapshot too.
//!
//! Ownership: a session starts only when no kdamond exists at all
//! ([`super::ensure_unowned`]), because writing `nr_kdamonds` rebuilds
//! every kdamond directory; it creates kdamond 0 and removes it again when
//! dropped. Everything here needs root: DAMON's sysfs files are root's
//! (mode 0600).

use super::ADMIN;
use crate::procfs::read;
use crate::LiveError;
use std::path::{Path, PathBuf};

/// DAMON's monitoring attributes (`monitoring_attrs/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DamonAttrs {
    /// Sampling interval (µs).
    pub sample_us: u64,
    /// Aggregation interval (µs): nr_accesses counts the samples of one.
    pub aggr_us: u64,
    /// Interval at which vaddr re-reads the targets' mappings (µs).
    pub update_us: u64,
    /// Fewest regions.
    pub min_regions: u64,
    /// Most regions.
    pub max_regions: u64,
}

impl Default for DamonAttrs {
    /// damo's values (5 ms, 100 ms, 1 s, 10-1000 regions); the
    /// simulator's `damon-moderate` samples every 5 ms with 10-1000
    /// regions too but aggregates every 200 ms (the Telescope paper's), so
    /// `reproduce live-damon` sets it to 100 ms. The kernel's own sysfs
    /// default for `update_us` is 60 s, which would see a new mapping late.
    fn default() -> Self {
        DamonAttrs {
            sample_us: 5_000,
            aggr_us: 100_000,
            update_us: 1_000_000,
            min_regions: 10,
            max_regions: 1000,
        }
    }
}

impl DamonAttrs {
    /// The largest nr_accesses a region can have: samples per aggregation.
    pub fn max_nr_accesses(&self) -> u32 {
        (self.aggr_us / self.sample_us.max(1)).min(u32::MAX as u64) as u32
    }

    fn check(&self) -> Result<(), LiveError> {
        let bad = |why: String| {
            Err(LiveError::Invalid(format!(
                "DAMON attributes: {why} (sample_us={}, aggr_us={}, update_us={}, regions {}-{})",
                self.sample_us, self.aggr_us, self.update_us, self.min_regions, self.max_regions
            )))
        };
        if self.sample_us == 0 || self.aggr_us < self.sample_us {
            return bad("need 0 < sample_us <= aggr_us".into());
        }
        if self.min_regions < 3 || self.max_regions < self.min_regions {
            return bad("need 3 <= min_regions <= max_regions (vaddr starts from 3)".into());
        }
        Ok(())
    }
}

/// What a session monitors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DamonOps {
    /// Virtual address spaces of these processes (`vaddr`).
    Vaddr(Vec<i32>),
    /// Physical address ranges [start, end) (`paddr`): one target.
    Paddr(Vec<(u64, u64)>),
}

/// A range of values of an access pattern, inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    /// Smallest.
    pub min: u64,
    /// Largest.
    pub max: u64,
}

impl Range {
    /// Every value.
    pub const ANY: Range = Range {
        min: 0,
        max: u32::MAX as u64,
    };
}

/// A DAMOS scheme (`schemes/N/`): what to do to regions of a pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheme {
    /// The action as the kernel names it: `stat`, `pageout`, `cold`,
    /// `migrate_hot`, `migrate_cold` (6.11+, paddr only), ...
    pub action: String,
    /// Region size (bytes).
    pub size: Range,
    /// nr_accesses per aggregation interval.
    pub nr_accesses: Range,
    /// Age (aggregation intervals).
    pub age: Range,
    /// Time quota per reset interval (ms; 0: none).
    pub quota_ms: u64,
    /// Bytes quota per reset interval (0: none).
    pub quota_bytes: u64,
    /// The quotas' reset interval (ms).
    pub quota_reset_ms: u64,
    /// Destination node of `migrate_hot` / `migrate_cold`.
    pub target_nid: Option<i32>,
    /// Physical or virtual ranges [start, end) the action leaves alone:
    /// one DAMOS `addr` filter each, `matching` (Linux 6.6+).
    pub exclude_addr: Vec<(u64, u64)>,
}

impl Scheme {
    /// A scheme doing `action` to every region.
    pub fn any(action: &str) -> Self {
        Scheme {
            action: action.into(),
            size: Range {
                min: 0,
                max: u64::MAX,
            },
            nr_accesses: Range::ANY,
            age: Range::ANY,
            quota_ms: 0,
            quota_bytes: 0,
            quota_reset_ms: 0,
            target_nid: None,
            exclude_addr: Vec::new(),
        }
    }
}

/// One region as DAMON reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DamonRegion {
    /// The target it belongs to (index into the pids given, 0 for paddr).
    pub target: usize,
    /// Start address.
    pub start: u64,
    /// End address (exclusive).
    pub end: u64,
    /// Samples of the last aggregation interval that found it accessed.
    pub nr_accesses: u32,
    /// Aggregation intervals its access frequency has stayed similar.
    pub age: u32,
}

impl DamonRegion {
    /// Its size in bytes.
    pub fn len(&self) -> u64 {
        self.end - self.start
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// What a scheme did so far (`schemes/N/stats/`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SchemeStats {
    /// Regions the scheme was tried on.
    pub nr_tried: u64,
    /// Their bytes.
    pub sz_tried: u64,
    /// Regions the action was applied to.
    pub nr_applied: u64,
    /// Their bytes.
    pub sz_applied: u64,
    /// Times a quota stopped it.
    pub qt_exceeds: u64,
}

/// A running kdamond that this process created.
pub struct DamonSession {
    admin: PathBuf,
    kdamond: PathBuf,
    targets: usize,
    attrs: DamonAttrs,
    schemes: usize,
    stopped: bool,
}

impl DamonSession {
    /// Creates kdamond 0, monitoring `ops` with `attrs`, with a `stat`
    /// scheme over every region (read by [`DamonSession::regions`]) and then
    /// `schemes`, and turns it on. Refuses when any kdamond exists.
    pub fn start(ops: DamonOps, attrs: DamonAttrs, schemes: &[Scheme]) -> Result<Self, LiveError> {
        Self::start_in(Path::new(ADMIN), ops, attrs, schemes)
    }

    fn start_in(
        admin: &Path,
        ops: DamonOps,
        attrs: DamonAttrs,
        schemes: &[Scheme],
    ) -> Result<Self, LiveError> {
        attrs.check()?;
        let existing = super::kdamonds_in(admin)?;
        if !existing.is_empty() {
            super::refuse(&existing)?;
        }
        let dir = admin.join("kdamonds");
        write(&dir.join("nr_kdamonds"), "1")?;
        let mut s = DamonSession {
            admin: admin.to_path_buf(),
            kdamond: dir.join("0"),
            targets: 0,
            attrs,
            schemes: 1 + schemes.len(),
            stopped: true,
        };
        // from here on, Drop removes the kdamond again if anything fails
        s.configure(&ops, schemes)?;
        write(&s.kdamond.join("state"), "on")?;
        s.stopped = false;
        Ok(s)
    }

    fn configure(&mut self, ops: &DamonOps, schemes: &[Scheme]) -> Result<(), LiveError> {
        let k = self.kdamond.clone();
        write(&k.join("contexts/nr_contexts"), "1")?;
        let c = k.join("contexts/0");
        let name = match ops {
            DamonOps::Vaddr(_) => "vaddr",
            DamonOps::Paddr(_) => "paddr",
        };
        let avail = read(&c.join("avail_operations"), None).unwrap_or_default();
        if !avail.is_empty() && !avail.split_whitespace().any(|o| o == name) {
            return Err(LiveError::Unsupported {
                feature: "damon",
                why: format!("this kernel's DAMON has no {name} operations ({avail:?})"),
            });
        }
        write(&c.join("operations"), name)?;
        let a = self.attrs;
        let m = c.join("monitoring_attrs");
        write(&m.join("intervals/sample_us"), &a.sample_us.to_string())?;
        write(&m.join("intervals/aggr_us"), &a.aggr_us.to_string())?;
        write(&m.join("intervals/update_us"), &a.update_us.to_string())?;
        // max first: min above the old max is refused
        write(&m.join("nr_regions/max"), &a.max_regions.to_string())?;
        write(&m.join("nr_regions/min"), &a.min_regions.to_string())?;
        let t = c.join("targets");
        match ops {
            DamonOps::Vaddr(pids) => {
                write(&t.join("nr_targets"), &pids.len().to_string())?;
                for (i, pid) in pids.iter().enumerate() {
                    write(&t.join(format!("{i}/pid_target")), &pid.to_string())?;
                }
                self.targets = pids.len();
            }
            DamonOps::Paddr(ranges) => {
                write(&t.join("nr_targets"), "1")?;
                let r = t.join("0/regions");
                write(&r.join("nr_regions"), &ranges.len().to_string())?;
                for (i, (start, end)) in ranges.iter().enumerate() {
                    // end first: a start above the old end is refused
                    write(&r.join(format!("{i}/end")), &end.to_string())?;
                    write(&r.join(format!("{i}/start")), &start.to_string())?;
                }
                self.targets = 1;
            }
        }
        let sd = c.join("schemes");
        write(&sd.join("nr_schemes"), &self.schemes.to_string())?;
        let all = std::iter::once(Scheme::any("stat")).chain(schemes.iter().cloned());
        for (i, s) in all.enumerate() {
            write_scheme(&sd.join(i.to_string()), &s)?;
        }
        Ok(())
    }

    /// The attributes it runs with.
    pub fn attrs(&self) -> &DamonAttrs {
        &self.attrs
    }

    /// The kdamond's kernel thread, while it runs.
    pub fn kthread_pid(&self) -> Option<i32> {
        read(&self.kdamond.join("pid"), None)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .filter(|&p: &i32| p > 0)
    }

    /// Whether the kdamond still runs (a vaddr kdamond stops by itself when
    /// every target has exited).
    pub fn running(&self) -> bool {
        !self.stopped && read(&self.kdamond.join("state"), None).is_ok_and(|s| s.trim() == "on")
    }

    /// The regions DAMON has now, in target and address order (waits for
    /// the stat scheme's next application: up to one aggregation
    /// interval). A kdamond that stopped (its targets exited) gives
    /// `Exited` with pid 0.
    pub fn regions(&mut self) -> Result<Vec<DamonRegion>, LiveError> {
        self.command("update_schemes_tried_regions")?;
        let dir = self.kdamond.join("contexts/0/schemes/0/tried_regions");
        self.regions_read_only(&dir)
    }

    /// Reads `tried_regions/` as the last update left it.
    fn regions_read_only(&self, dir: &Path) -> Result<Vec<DamonRegion>, LiveError> {
        let mut out = Vec::new();
        let mut i = 0;
        loop {
            let r = dir.join(i.to_string());
            if !r.exists() {
                break;
            }
            let num = |f: &str| -> Result<u64, LiveError> {
                let p = r.join(f);
                read(&p, None)?
                    .trim()
                    .parse()
                    .map_err(|_| LiveError::Parse {
                        path: p.clone(),
                        line: 1,
                        why: "not a number".into(),
                    })
            };
            out.push(DamonRegion {
                // tried regions carry no target: they are listed target by
                // target in address order, so a step down in address starts
                // the next target
                target: 0,
                start: num("start")?,
                end: num("end")?,
                nr_accesses: num("nr_accesses")? as u32,
                age: num("age")? as u32,
            });
            i += 1;
        }
        let mut target = 0;
        for j in 1..out.len() {
            if out[j].start < out[j - 1].start && target + 1 < self.targets {
                target += 1;
            }
            out[j].target = target;
        }
        Ok(out)
    }

    /// What each scheme given to [`DamonSession::start`] did so far, in
    /// their order (the internal stat scheme left out).
    pub fn scheme_stats(&mut self) -> Result<Vec<SchemeStats>, LiveError> {
        self.command("update_schemes_stats")?;
        let sd = self.kdamond.join("contexts/0/schemes");
        (1..self.schemes)
            .map(|i| {
                let st = sd.join(format!("{i}/stats"));
                let num = |f: &str| -> u64 {
                    read(&st.join(f), None)
                        .ok()
                        .and_then(|s| s.trim().parse().ok())
                        .unwrap_or(0)
                };
                Ok(SchemeStats {
                    nr_tried: num("nr_tried"),
                    sz_tried: num("sz_tried"),
                    nr_applied: num("nr_applied"),
                    sz_applied: num("sz_applied"),
                    qt_exceeds: num("qt_exceeds"),
                })
            })
            .collect()
    }

    fn command(&mut self, cmd: &str) -> Result<(), LiveError> {
        if !self.running() {
            self.stopped = true;
            return Err(LiveError::Exited { pid: 0 });
        }
        write(&self.kdamond.join("state"), cmd)
    }

    /// Turns the kdamond off and removes it.
    pub fn stop(mut self) -> Result<(), LiveError> {
        self.teardown()
    }

    fn teardown(&mut self) -> Result<(), LiveError> {
        if read(&self.kdamond.join("state"), None).is_ok_and(|s| s.trim() == "on") {
            write(&self.kdamond.join("state"), "off")?;
        }
        self.stopped = true;
        // remove ours only if it is still the only one
        let dir = self.admin.join("kdamonds");
        if super::kdamonds_in(&self.admin).is_ok_and(|k| k.len() == 1) {
            write(&dir.join("nr_kdamonds"), "0")?;
        }
        Ok(())
    }
}

impl Drop for DamonSession {
    fn drop(&mut self) {
        let _ = self.teardown();
    }
}

fn write_scheme(dir: &Path, s: &Scheme) -> Result<(), LiveError> {
    write(&dir.join("action"), &s.action)?;
    let p = dir.join("access_pattern");
    for (name, r) in [
        ("sz", s.size),
        ("nr_accesses", s.nr_accesses),
        ("age", s.age),
    ] {
        // max first: a min above the old max is refused
        write(&p.join(format!("{name}/max")), &r.max.to_string())?;
        write(&p.join(format!("{name}/min")), &r.min.to_string())?;
    }
    let q = dir.join("quotas");
    write(&q.join("ms"), &s.quota_ms.to_string())?;
    write(&q.join("bytes"), &s.quota_bytes.to_string())?;
    write(&q.join("reset_interval_ms"), &s.quota_reset_ms.to_string())?;
    if let Some(nid) = s.target_nid {
        let f = dir.join("target_nid");
        if !f.exists() {
            return Err(LiveError::Unsupported {
                feature: "damon",
                why: format!(
                    "{} is missing (DAMOS migrate needs Linux 6.11)",
                    f.display()
                ),
            });
        }
        write(&f, &nid.to_string())?;
    }
    if !s.exclude_addr.is_empty() {
        let fd = dir.join("filters");
        if !fd.exists() {
            return Err(LiveError::Unsupported {
                feature: "damon",
                why: format!("{} is missing (DAMOS filters need Linux 6.3)", fd.display()),
            });
        }
        write(&fd.join("nr_filters"), &s.exclude_addr.len().to_string())?;
        for (i, (start, end)) in s.exclude_addr.iter().enumerate() {
            let f = fd.join(i.to_string());
            write(&f.join("type"), "addr")?;
            write(&f.join("matching"), "Y")?;
            write(&f.join("addr_start"), &start.to_string())?;
            write(&f.join("addr_end"), &end.to_string())?;
        }
    }
    Ok(())
}

/// Writes a DAMON sysfs file; EINVAL names the value refused.
fn write(path: &Path, value: &str) -> Result<(), LiveError> {
    std::fs::write(path, value).map_err(|e| match e.raw_os_error() {
        Some(libc::EPERM) | Some(libc::EACCES) => LiveError::Permission {
            what: path.display().to_string(),
            need: "root (DAMON's sysfs files are root's)",
        },
        _ => LiveError::Io {
            what: format!("writing {value:?} to {}", path.display()),
            source: e,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DAMON sysfs tree as the kernel would have made it after
    /// `nr_kdamonds` 1 (a fake cannot create directories on a write).
    fn fake_admin(nr_schemes: usize, tried: &[(u64, u64, u32, u32)]) -> PathBuf {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let root = std::env::temp_dir().join(format!(
            "thermocline-damon-session-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let k = root.join("kdamonds");
        let c = k.join("0/contexts/0");
        for d in [
            "monitoring_attrs/intervals",
            "monitoring_attrs/nr_regions",
            "targets/0/regions/0",
            "targets/1",
        ] {
            std::fs::create_dir_all(c.join(d)).unwrap();
        }
        for i in 0..nr_schemes {
            let s = c.join(format!("schemes/{i}"));
            for d in [
                "access_pattern/sz",
                "access_pattern/nr_accesses",
                "access_pattern/age",
                "quotas",
                "stats",
            ] {
                std::fs::create_dir_all(s.join(d)).unwrap();
            }
            std::fs::write(s.join("target_nid"), "-1\n").unwrap();
        }
        for (i, (start, end, nr, age)) in tried.iter().enumerate() {
            let r = c.join(format!("schemes/0/tried_regions/{i}"));
            std::fs::create_dir_all(&r).unwrap();
            for (f, v) in [
                ("start", *start),
                ("end", *end),
                ("nr_accesses", *nr as u64),
                ("age", *age as u64),
            ] {
                std::fs::write(r.join(f), format!("{v}\n")).unwrap();
            }
        }
        std::fs::write(k.join("nr_kdamonds"), "0\n").unwrap();
        std::fs::write(k.join("0/state"), "off\n").unwrap();
        std::fs::write(k.join("0/pid"), "-1\n").unwrap();
        std::fs::write(c.join("avail_operations"), "vaddr\nfvaddr\npaddr\n").unwrap();
        root
    }

    fn get(root: &Path, rel: &str) -> String {
        std::fs::read_to_string(root.join("kdamonds/0/contexts/0").join(rel))
            .unwrap()
            .trim()
            .to_string()
    }

    #[test]
    fn a_session_writes_its_targets_attributes_and_schemes() {
        let root = fake_admin(2, &[]);
        let mut cold = Scheme::any("migrate_cold");
        cold.nr_accesses = Range { min: 0, max: 0 };
        cold.target_nid = Some(1);
        let s = DamonSession::start_in(
            &root,
            DamonOps::Vaddr(vec![41, 42]),
            DamonAttrs::default(),
            &[cold],
        )
        .unwrap();
        assert_eq!(get(&root, "operations"), "vaddr");
        assert_eq!(get(&root, "monitoring_attrs/intervals/aggr_us"), "100000");
        assert_eq!(get(&root, "monitoring_attrs/nr_regions/min"), "10");
        assert_eq!(get(&root, "targets/nr_targets"), "2");
        assert_eq!(get(&root, "targets/1/pid_target"), "42");
        assert_eq!(get(&root, "schemes/nr_schemes"), "2");
        assert_eq!(get(&root, "schemes/0/action"), "stat");
        assert_eq!(get(&root, "schemes/1/action"), "migrate_cold");
        assert_eq!(get(&root, "schemes/1/access_pattern/nr_accesses/max"), "0");
        assert_eq!(get(&root, "schemes/1/target_nid"), "1");
        assert!(s.running());
        drop(s);
        let k = root.join("kdamonds");
        assert_eq!(std::fs::read_to_string(k.join("0/state")).unwrap(), "off");
        assert_eq!(std::fs::read_to_string(k.join("nr_kdamonds")).unwrap(), "0");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn tried_regions_split_into_targets_where_the_address_steps_down() {
        let root = fake_admin(
            1,
            &[
                (0x1000, 0x5000, 3, 7),
                (0x9000, 0xa000, 0, 2),
                (0x2000, 0x3000, 20, 1),
            ],
        );
        let s = DamonSession::start_in(
            &root,
            DamonOps::Vaddr(vec![41, 42]),
            DamonAttrs::default(),
            &[],
        )
        .unwrap();
        // the fake does not answer commands: read what is there
        let r = s
            .regions_read_only(&s.kdamond.join("contexts/0/schemes/0/tried_regions"))
            .unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(
            (r[0].target, r[0].len(), r[0].nr_accesses, r[0].age),
            (0, 0x4000, 3, 7)
        );
        assert_eq!(r[1].target, 0);
        assert_eq!((r[2].target, r[2].nr_accesses), (1, 20));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn bad_attributes_and_others_kdamonds_are_refused() {
        let root = fake_admin(1, &[]);
        let attrs = DamonAttrs {
            aggr_us: 1000,
            ..DamonAttrs::default()
        };
        let e = DamonSession::start_in(&root, DamonOps::Vaddr(vec![1]), attrs, &[])
            .err()
            .unwrap();
        assert!(e.to_string().contains("sample_us <= aggr_us"), "{e}");
        std::fs::write(root.join("kdamonds/nr_kdamonds"), "1\n").unwrap();
        std::fs::write(root.join("kdamonds/0/state"), "on\n").unwrap();
        std::fs::write(root.join("kdamonds/0/pid"), "99\n").unwrap();
        let e = DamonSession::start_in(&root, DamonOps::Vaddr(vec![1]), DamonAttrs::default(), &[])
            .err()
            .unwrap();
        assert!(e.to_string().contains("kdamond 0 (on, pid 99)"), "{e}");
        // and the other user's kdamond was left as it was
        assert_eq!(
            std::fs::read_to_string(root.join("kdamonds/0/state")).unwrap(),
            "on\n"
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
