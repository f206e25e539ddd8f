//! Named workloads, and the one function that turns a user's workload string
//! into a [`Workload`]: a MASIM config path, `lackey:PATH`, `trace:PATH`, or a
//! preset name.

use crate::synthetic::{Distribution, SyntheticSpec, SyntheticStream};
use crate::{
    lackey, lay_out, masim, trace, MemoryStream, PhaseMark, Stream, Workload, WorkloadError,
};

/// How to build a workload.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadOptions {
    /// Seed of the workload's random stream.
    pub seed: u64,
    /// Nominal accesses per second per thread (MASIM phases, synthetic presets).
    pub access_rate: f64,
    /// Core time per access (ns), excluding memory stalls; `None` derives it
    /// from `access_rate` (see [`crate::compute_ns_for_rate`]).
    pub compute_ns: Option<f64>,
    /// Back regions with transparent huge pages.
    pub thp: bool,
    /// The fast tier's read latency and the machine's MLP, to derive compute time.
    pub fast_read_ns: f64,
    /// Memory-level parallelism of the machine.
    pub mlp: f64,
}

/// The built-in multi-phase workload of the main job, as a MASIM config: four
/// 64 MiB regions; the hot set moves between them, then a full sequential
/// sweep, then a mixed phase. 8 s nominal.
pub const MULTIPHASE_CFG: &str = "\
# thermocline built-in multi-phase workload (MASIM format)
a, 67108864
b, 67108864
c, 67108864
d, 67108864

hot a
2000
a, 1, 64, 90, rw
b, 1, 64, 10, ro

hot c
2000
c, 1, 64, 90, rw
d, 1, 64, 10, ro

sweep
2000
a, 0, 64, 25, ro
b, 0, 64, 25, ro
c, 0, 64, 25, ro
d, 0, 64, 25, ro

hot b and d
2000
b, 1, 64, 50, wo
d, 1, 64, 50, ro
";

enum Kind {
    Masim(&'static str),
    Synthetic(fn(f64) -> SyntheticSpec),
}

/// A named workload.
pub struct Preset {
    /// Name.
    pub name: &'static str,
    /// One line for `thermocline list`.
    pub description: &'static str,
    kind: Kind,
}

const GIB: u64 = 1 << 30;

fn synth(
    distribution: Distribution,
    items: u64,
    item_bytes: u64,
    write_fraction: f64,
    seconds: f64,
    rate: f64,
) -> SyntheticSpec {
    SyntheticSpec {
        distribution,
        items,
        item_bytes,
        write_fraction,
        threads: 1,
        accesses: (seconds * rate) as u64,
    }
}

/// Every preset.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "multiphase",
        description: "built-in 4-phase MASIM-style workload, 256 MiB: hot set moves a -> c -> sweep -> b+d (8 s nominal)",
        kind: Kind::Masim(MULTIPHASE_CFG),
    },
    Preset {
        name: "uniform-1g",
        description: "uniform random accesses over 1 GiB of 4 KiB items, 20% stores (5 s nominal)",
        kind: Kind::Synthetic(|r| synth(Distribution::Uniform, GIB / 4096, 4096, 0.2, 5.0, r)),
    },
    Preset {
        name: "zipf-1g",
        description: "zipfian (s = 0.99) accesses over 1 GiB of 4 KiB items, 20% stores (5 s nominal)",
        kind: Kind::Synthetic(|r| synth(Distribution::Zipf { s: 0.99 }, GIB / 4096, 4096, 0.2, 5.0, r)),
    },
    Preset {
        name: "hotspot-1g",
        description: "10% of 1 GiB of 4 KiB items get 90% of accesses, 20% stores (5 s nominal)",
        kind: Kind::Synthetic(|r| {
            synth(Distribution::Hotspot { hot_fraction: 0.1, hot_share: 0.9 }, GIB / 4096, 4096, 0.2, 5.0, r)
        }),
    },
    Preset {
        name: "seq-1g",
        description: "sequential 64-byte-stride sweeps over 1 GiB, loads only (5 s nominal)",
        kind: Kind::Synthetic(|r| synth(Distribution::Sequential, GIB / 64, 64, 0.0, 5.0, r)),
    },
];

/// Looks a preset up.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// Builds the workload `spec` names.
pub fn load(spec: &str, o: &WorkloadOptions) -> Result<Workload, WorkloadError> {
    let compute = o
        .compute_ns
        .unwrap_or_else(|| crate::compute_ns_for_rate(o.access_rate, o.fast_read_ns, o.mlp));
    if !(o.access_rate.is_finite() && o.access_rate > 0.0) {
        return Err(WorkloadError::Invalid(
            "workload.access_rate must be positive".into(),
        ));
    }
    if let Some(path) = spec.strip_prefix("lackey:") {
        let accesses = lackey::load(path)?;
        let regions = trace::regions_of(&accesses);
        let n = accesses.len() as u64;
        return Ok(Workload {
            name: spec.to_string(),
            regions,
            threads: 1,
            compute_ns: compute,
            total_accesses: n,
            phases: vec![PhaseMark {
                name: "trace".into(),
                first_access: 0,
            }],
            stream: Stream::Memory(MemoryStream::new(accesses)),
        });
    }
    if let Some(path) = spec.strip_prefix("trace:") {
        let (reader, regions) = trace::TraceReader::open(path)?;
        return Ok(Workload {
            name: spec.to_string(),
            total_accesses: reader.records(),
            regions,
            threads: reader.threads(),
            compute_ns: compute,
            phases: vec![PhaseMark {
                name: "trace".into(),
                first_access: 0,
            }],
            stream: Stream::Trace(reader),
        });
    }
    if let Some(p) = preset(spec) {
        return Ok(match p.kind {
            Kind::Masim(text) => masim_workload(spec, masim::parse(text, spec)?, o, compute),
            Kind::Synthetic(f) => {
                let s = f(o.access_rate);
                s.validate().map_err(WorkloadError::Invalid)?;
                let regions = lay_out(&[("items".to_string(), s.bytes())], o.thp);
                Workload {
                    name: spec.to_string(),
                    threads: s.threads,
                    compute_ns: compute,
                    total_accesses: s.accesses,
                    phases: vec![PhaseMark {
                        name: p.name.into(),
                        first_access: 0,
                    }],
                    stream: Stream::Synthetic(SyntheticStream::new(s, regions[0].start, o.seed)),
                    regions,
                }
            }
        });
    }
    if std::path::Path::new(spec).exists() {
        let text = std::fs::read_to_string(spec).map_err(|e| WorkloadError::File {
            file: spec.to_string(),
            msg: format!("cannot read: {e}"),
        })?;
        return Ok(masim_workload(spec, masim::parse(&text, spec)?, o, compute));
    }
    Err(WorkloadError::Invalid(format!(
        "unknown workload {spec:?}: not a preset (see `thermocline list`), a MASIM config file, lackey:PATH or trace:PATH"
    )))
}

fn masim_workload(
    name: &str,
    cfg: masim::MasimConfig,
    o: &WorkloadOptions,
    compute: f64,
) -> Workload {
    let regions = lay_out(&cfg.regions, o.thp);
    let stream = masim::MasimStream::new(cfg, &regions, o.access_rate, o.seed);
    let (total, phases) = stream.plan();
    Workload {
        name: name.to_string(),
        regions,
        threads: 1,
        compute_ns: compute,
        total_accesses: total,
        phases,
        stream: Stream::Masim(stream),
    }
}
