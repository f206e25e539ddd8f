//! Multi-programmed mixes (`mix:A+B+...`): several workloads at once, each
//! in its own address space on its own cores, as Memos runs 4-8 SPEC CPU
//! applications together (../shared/papers/003_4ce7a4cbf1361ba3.txt,
//! section 4.4 and the appendix) and as tenants share a machine.
//!
//! Component `i` runs in address space `i`, its threads on the cores after
//! those of the components before it. The mix takes turns of [`TURN`]
//! accesses per thread from each component in order, so every thread
//! advances at the same nominal rate: the components must share one access
//! rate and core time per access (the machine has one of each). The mix
//! ends when its first component ends (*inferred*: the paper measures
//! throughput while all applications run; one that ended would leave its
//! cores idle). A component's phase marks are not kept (their access
//! indices interleave): the mix is one phase, `mix`. Components that issue
//! memory events (the HeteroOS-like models) are not mixed yet, nor are
//! mixes of mixes.

use crate::PhaseMark;
use crate::{Stream, Workload, WorkloadError};
use thermocline_vocab::{Access, Asid};

/// Accesses per thread a component issues in one turn.
pub const TURN: usize = 256;

/// Most components a mix takes (address spaces are cheap, but each is a
/// page table and a TLB tag).
pub const MAX_COMPONENTS: usize = 16;

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
    /// The component whose turn it is, and what is left of its turn.
    current: usize,
    left: usize,
    ended: bool,
}

impl MixStream {
    /// Writes up to `buf.len()` accesses; 0 once a component has ended.
    #[inline]
    pub fn fill(&mut self, buf: &mut [Access]) -> Result<usize, WorkloadError> {
        let mut n = 0;
        while n < buf.len() && !self.ended {
            let p = &mut self.parts[self.current];
            let want = self.left.min(buf.len() - n);
            let got = p.stream.fill(&mut buf[n..n + want])?;
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
    if parts.len() < 2 || parts.len() > MAX_COMPONENTS {
        return bad(format!(
            "a mix takes 2 to {MAX_COMPONENTS} workloads joined by '+', got {}",
            parts.len()
        ));
    }
    let (rate, compute) = (parts[0].access_rate, parts[0].compute_ns);
    let mut regions = Vec::new();
    let mut out = Vec::new();
    let mut threads = 0usize;
    let mut per_thread = u64::MAX;
    for (i, w) in parts.into_iter().enumerate() {
        if w.access_rate != rate || w.compute_ns != compute {
            return bad(format!(
                "{} runs at {} accesses/s per thread ({} ns of core time each), {} at {rate} ({compute} ns): a mix needs one rate",
                w.name, w.access_rate, w.compute_ns, "the first component"
            ));
        }
        if matches!(w.stream, Stream::Hetero(_) | Stream::Mix(_)) {
            return bad(format!(
                "{} issues memory events or is a mix itself: it cannot be mixed yet",
                w.name
            ));
        }
        if w.regions.iter().any(|r| r.asid != Asid(0)) {
            return bad(format!("{} has more than one address space", w.name));
        }
        let asid = i as u16;
        regions.extend(w.regions.into_iter().map(|mut r| {
            r.asid = Asid(asid);
            r.name = format!("{}:{}", w.name, r.name);
            r
        }));
        per_thread = per_thread.min(w.total_accesses / w.threads.max(1) as u64);
        out.push(Part {
            stream: w.stream,
            asid,
            first_core: threads as u16,
            turn: TURN * w.threads.max(1),
        });
        threads += w.threads.max(1);
    }
    let left = out[0].turn;
    Ok(Workload {
        name: name.to_string(),
        regions,
        threads,
        access_rate: rate,
        compute_ns: compute,
        // Until the first component ends: about its accesses per thread on
        // every thread (for progress; the stream itself says when it ends).
        total_accesses: per_thread.saturating_mul(threads as u64),
        phases: vec![PhaseMark {
            name: "mix".into(),
            first_access: 0,
        }],
        stream: Stream::Mix(Box::new(MixStream {
            parts: out,
            current: 0,
            left,
            ended: false,
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
        assert_eq!(m.total_accesses, 1000 * 3);
    }

    #[test]
    fn a_mix_needs_one_rate_and_plain_components() {
        let err = |r: Result<Workload, WorkloadError>| match r {
            Err(WorkloadError::Invalid(s)) => s,
            Ok(_) => panic!("accepted"),
            Err(e) => panic!("{e}"),
        };
        let mut slow = part("b", 0, 10, 1);
        slow.access_rate = 1e6;
        assert!(err(mix("m", vec![part("a", 0, 10, 1), slow])).contains("one rate"));
        assert!(err(mix("m", vec![part("a", 0, 10, 1)])).contains("2 to 16"));
        let inner = mix("mix:a+b", vec![part("a", 0, 10, 1), part("b", 0, 10, 1)]).unwrap();
        assert!(err(mix("m", vec![part("a", 0, 10, 1), inner])).contains("cannot be mixed"));
    }
}
