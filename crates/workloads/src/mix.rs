//! Multi-programmed mixes (`mix:A+B+...`): several workloads at once, each
//! in its own address space on its own cores, as Memos runs 4-8 SPEC CPU
//! applications together (../shared/papers/003_4ce7a4cbf1361ba3.txt,
//! section 4.4 and the appendix) and as tenants share a machine.
//!
//! Component `i` runs in address space `i`, its threads on the cores after
//! those of the components before it. The mix takes turns from each
//! component in order: [`TURN`] accesses per thread from the fastest
//! component (the highest nominal access rate per thread), and from each
//! other one in proportion to its rate, so every component advances at its
//! own nominal rate. The machine has one core time per access: the mix's is
//! the mean of its components' weighted by the accesses each issues per
//! turn, which gives the mix the sum of their core times. The mix ends when
//! its first component ends (*inferred*: the paper measures throughput
//! while all applications run; one that ended would leave its cores idle).
//! A component's phase marks are not kept (their access indices
//! interleave): the mix is one phase, `mix`. A component's memory events
//! (the HeteroOS-like models' releases and I/O completions) move into its
//! address space with its accesses, so several page-typed guests can run
//! side by side as VMs. Mixes of mixes are refused.

use crate::PhaseMark;
use crate::{Stream, Workload, WorkloadError};
use thermocline_vocab::{Access, Asid, MemEvent};

/// Accesses per thread the fastest component issues in one turn.
pub const TURN: usize = 256;

/// Most components a mix takes (address spaces are cheap, but each is a
/// page table and a TLB tag).
pub const MAX_COMPONENTS: usize = 16;

/// What a report needs to tell one component of a mix apart.
#[derive(Clone, Debug, PartialEq)]
pub struct Tenant {
    /// The component's workload name.
    pub name: String,
    /// Its address space.
    pub asid: Asid,
    /// Its threads.
    pub threads: usize,
    /// Its own core time per access (ns).
    pub compute_ns: f64,
    /// Bytes its regions map.
    pub footprint_bytes: u64,
}

/// One component of a mix.
struct Part {
    stream: Stream,
    asid: u16,
    first_core: u16,
    turn: usize,
}

/// The interleaved accesses of a mix's components.
pub struct MixStream {
    parts: Vec<Part>,
    tenants: Vec<Tenant>,
    /// The component whose turn it is, and what is left of its turn.
    current: usize,
    left: usize,
    ended: bool,
    /// One component's events, before they move into its address space.
    scratch: Vec<(usize, MemEvent)>,
    /// The events [`MixStream::fill`] does not hand on.
    dropped: Vec<(usize, MemEvent)>,
}

impl MixStream {
    /// The components, in address-space order.
    pub fn tenants(&self) -> &[Tenant] {
        &self.tenants
    }

    /// Writes up to `buf.len()` accesses; 0 once a component has ended.
    #[inline]
    pub fn fill(&mut self, buf: &mut [Access]) -> Result<usize, WorkloadError> {
        let mut dropped = std::mem::take(&mut self.dropped);
        let n = self.fill_with_events(buf, &mut dropped);
        dropped.clear();
        self.dropped = dropped;
        n
    }

    /// [`MixStream::fill`], and the components' memory events, each moved
    /// into its component's address space and indexed by the access of the
    /// mix it precedes (see [`crate::Stream::fill_with_events`]).
    pub fn fill_with_events(
        &mut self,
        buf: &mut [Access],
        events: &mut Vec<(usize, MemEvent)>,
    ) -> Result<usize, WorkloadError> {
        let mut n = 0;
        while n < buf.len() && !self.ended {
            let p = &mut self.parts[self.current];
            let want = self.left.min(buf.len() - n);
            let got = p
                .stream
                .fill_with_events(&mut buf[n..n + want], &mut self.scratch)?;
            let asid = Asid(p.asid);
            events.extend(
                self.scratch
                    .drain(..)
                    .map(|(i, ev)| (n + i, ev.with_asid(asid))),
            );
            if got == 0 {
                self.ended = true;
                break;
            }
            for a in &mut buf[n..n + got] {
                a.asid = p.asid;
                a.core += p.first_core;
            }
            n += got;
            self.left -= got;
            if self.left == 0 {
                self.current = (self.current + 1) % self.parts.len();
                self.left = self.parts[self.current].turn;
            }
        }
        Ok(n)
    }
}

/// The components of `spec` if it is a mix (`mix:A+B+...`).
pub fn components(spec: &str) -> Option<Vec<&str>> {
    Some(spec.strip_prefix("mix:")?.split('+').collect())
}

/// The mix `name` of the loaded `parts`, in order.
pub fn mix(name: &str, parts: Vec<Workload>) -> Result<Workload, WorkloadError> {
    let bad = |why: String| Err(WorkloadError::Invalid(format!("workload {name:?}: {why}")));
    // A mix of one is the workload alone, reported as a tenant (to compare
    // a VM alone with the same VM sharing a machine).
    if parts.is_empty() || parts.len() > MAX_COMPONENTS {
        return bad(format!(
            "a mix takes 1 to {MAX_COMPONENTS} workloads joined by '+', got {}",
            parts.len()
        ));
    }
    if let Some(w) = parts
        .iter()
        .find(|w| !(w.access_rate.is_finite() && w.access_rate > 0.0 && w.compute_ns >= 0.0))
    {
        return bad(format!(
            "{} runs at {} accesses/s per thread ({} ns of core time each): a mix needs positive rates",
            w.name, w.access_rate, w.compute_ns
        ));
    }
    let fastest = parts.iter().map(|w| w.access_rate).fold(0.0, f64::max);
    let mut regions = Vec::new();
    let mut tenants = Vec::new();
    let mut out = Vec::new();
    let mut threads = 0usize;
    // Turns until the first component ends, and core time over a turn.
    let mut turns = u64::MAX;
    let mut core_ns = 0.0;
    for (i, w) in parts.into_iter().enumerate() {
        if matches!(w.stream, Stream::Mix(_)) {
            return bad(format!("{} is a mix itself: mixes do not nest", w.name));
        }
        if w.regions.iter().any(|r| r.asid != Asid(0)) {
            return bad(format!("{} has more than one address space", w.name));
        }
        let asid = i as u16;
        tenants.push(Tenant {
            name: w.name.clone(),
            asid: Asid(asid),
            threads: w.threads.max(1),
            compute_ns: w.compute_ns,
            footprint_bytes: w.footprint_bytes(),
        });
        regions.extend(w.regions.into_iter().map(|mut r| {
            r.asid = Asid(asid);
            r.name = format!("{}:{}", w.name, r.name);
            r
        }));
        let t = w.threads.max(1);
        let per_thread = ((TURN as f64 * w.access_rate / fastest).round() as usize).max(1);
        let turn = per_thread * t;
        turns = turns.min(w.total_accesses / turn as u64);
        core_ns += turn as f64 * w.compute_ns;
        out.push(Part {
            stream: w.stream,
            asid,
            first_core: threads as u16,
            turn,
        });
        threads += t;
    }
    let turn_accesses: usize = out.iter().map(|p| p.turn).sum();
    let left = out[0].turn;
    Ok(Workload {
        name: name.to_string(),
        regions,
        threads,
        // Per thread, so that threads * rate is the mix's accesses per second.
        access_rate: turn_accesses as f64 / threads as f64 * fastest / TURN as f64,
        compute_ns: core_ns / turn_accesses as f64,
        // Until the first component ends (for progress; the stream itself
        // says when it ends).
        total_accesses: turns.saturating_mul(turn_accesses as u64),
        phases: vec![PhaseMark {
            name: "mix".into(),
            first_access: 0,
        }],
        stream: Stream::Mix(Box::new(MixStream {
            parts: out,
            tenants,
            current: 0,
            left,
            ended: false,
            scratch: Vec::new(),
            dropped: Vec::new(),
        })),
        rates: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStream;
    use thermocline_vocab::{PageType, RegionInfo};

    /// A one-region workload of `n` accesses by `threads` threads, its
    /// addresses numbered from `base`.
    fn part(name: &str, base: u64, n: u64, threads: usize) -> Workload {
        let accesses = (0..n)
            .map(|i| Access {
                va: base + i * 64,
                asid: 0,
                core: (i % threads as u64) as u16,
                write: false,
            })
            .collect();
        Workload {
            name: name.into(),
            regions: vec![RegionInfo {
                asid: Asid(0),
                name: "r".into(),
                start: base,
                len: 1 << 20,
                page_type: PageType::Anon,
                thp: false,
            }],
            threads,
            access_rate: 1e7,
            compute_ns: 50.0,
            total_accesses: n,
            phases: Vec::new(),
            stream: Stream::Memory(MemoryStream::new(accesses)),
            rates: None,
        }
    }

    fn drain(w: &mut Workload) -> Vec<Access> {
        let mut out = Vec::new();
        let mut buf = [Access::default(); 100];
        loop {
            let n = w.stream.fill(&mut buf).unwrap();
            if n == 0 {
                return out;
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    #[test]
    fn components_take_turns_in_their_own_spaces_and_cores() {
        let a = part("a", 0x10000000, 1000, 1);
        let b = part("b", 0x10000000, 5000, 2);
        let mut m = mix("mix:a+b", vec![a, b]).unwrap();
        assert_eq!(m.threads, 3);
        assert_eq!(
            m.regions
                .iter()
                .map(|r| (r.asid, r.name.as_str()))
                .collect::<Vec<_>>(),
            vec![(Asid(0), "a:r"), (Asid(1), "b:r")]
        );
        let got = drain(&mut m);
        // a's 256, then b's 512 (two threads), then a's next 256...
        assert!(got[..TURN].iter().all(|x| x.asid == 0 && x.core == 0));
        assert!(got[TURN..3 * TURN]
            .iter()
            .all(|x| x.asid == 1 && (1..=2).contains(&x.core)));
        assert_eq!(got[TURN].va, 0x10000000, "b starts at its own beginning");
        assert_eq!(got[3 * TURN].va, 0x10000000 + TURN as u64 * 64, "a goes on");
        // a (1000 accesses: three turns and 232) ends the mix in its fourth
        // turn, before b's fourth.
        let from_a = got.iter().filter(|x| x.asid == 0).count();
        assert_eq!(from_a, 1000);
        let from_b = got.iter().filter(|x| x.asid == 1).count();
        assert_eq!(from_b, 3 * 2 * TURN, "b ran one turn per full turn of a");
        // Three full turns of a before it ends, each of 3 * TURN accesses.
        assert_eq!(m.total_accesses, 3 * 3 * TURN as u64);
    }

    #[test]
    fn a_mix_refuses_nesting_and_bad_rates() {
        let err = |r: Result<Workload, WorkloadError>| match r {
            Err(WorkloadError::Invalid(s)) => s,
            Ok(_) => panic!("accepted"),
            Err(e) => panic!("{e}"),
        };
        let mut stopped = part("b", 0, 10, 1);
        stopped.access_rate = 0.0;
        assert!(err(mix("m", vec![part("a", 0, 10, 1), stopped])).contains("positive rates"));
        assert!(err(mix("m", vec![])).contains("1 to 16"));
        let one = std::iter::repeat_with(|| part("a", 0, 10, 1))
            .take(17)
            .collect();
        assert!(err(mix("m", one)).contains("1 to 16"));
        let inner = mix("mix:a+b", vec![part("a", 0, 10, 1), part("b", 0, 10, 1)]).unwrap();
        assert!(err(mix("m", vec![part("a", 0, 10, 1), inner])).contains("do not nest"));
    }

    #[test]
    fn components_advance_at_their_own_rates_and_core_times_add_up() {
        let a = part("a", 0, 100_000, 1);
        let mut b = part("b", 0, 100_000, 2);
        b.access_rate = a.access_rate / 4.0;
        b.compute_ns = 250.0;
        let mut m = mix("mix:a+b", vec![a, b]).unwrap();
        // a: 256 per turn; b: 64 per thread per turn, two threads.
        let got = drain(&mut m);
        assert!(got[..TURN].iter().all(|x| x.asid == 0));
        assert!(got[TURN..TURN + 128].iter().all(|x| x.asid == 1));
        assert_eq!(got[TURN + 128].asid, 0);
        // Core time over a turn: 256 * 50 + 128 * 250 ns over 384 accesses.
        assert_eq!(m.compute_ns, (256.0 * 50.0 + 128.0 * 250.0) / 384.0);
        // Accesses per second: a's 1e7 plus b's 2 * 2.5e6, over 3 threads.
        assert!((m.access_rate * 3.0 - 1.5e7).abs() < 1e-3);
    }

    #[test]
    fn events_move_into_their_components_spaces_in_order() {
        let mut a = part("a", 0x10000000, 600, 1);
        let mut b = part("b", 0x20000000, 600, 1);
        let release = |start| MemEvent::Release {
            asid: Asid(0),
            start,
            len: 4096,
        };
        // a frees before its 300th access, b before its 10th.
        let with = |w: &mut Workload, at, ev| {
            let stream = MemoryStream::with_events(drain(w), vec![(at, ev)]).unwrap();
            w.stream = Stream::Memory(stream);
        };
        with(&mut a, 300, release(0x10000000));
        with(&mut b, 10, release(0x20000000));
        let mut m = mix("mix:a+b", vec![a, b]).unwrap();
        let mut buf = vec![Access::default(); 2000];
        let mut events = Vec::new();
        let n = m.stream.fill_with_events(&mut buf, &mut events).unwrap();
        assert_eq!(n, 1112, "a's 256, b's 256, a's 256, b's 256, a's last 88");
        assert_eq!(
            events,
            vec![
                (256 + 10, release(0x20000000).with_asid(Asid(1))),
                (512 + 300 - 256, release(0x10000000)),
            ]
        );
        assert!(events.iter().all(|&(i, ev)| buf[i].asid == ev.range().0 .0));
    }
}
