//! The one place where manager names become managers.

use crate::ambix::baselines::{AdmDefault, AutonumaTiering, MemoryMode, MemosPlacement};
use crate::ambix::{Ambix, AmbixParams};
use crate::baselines::{AllFast, AllSlow, FirstTouch, Interleave, Random};
use crate::heteroos::coordinated::{Coordinated, CoordinatedParams};
use crate::heteroos::guest::{GuestParams, HeteroOsGuest, Mechanism};
use crate::heteroos::vmm::{VmmExclusive, VmmParams};
use crate::heteroos::vms::{Vms, VmsParams};
use crate::kernel_tiering::{KernelTiering, KernelTieringParams};
use crate::memos::{Memos, MemosParams};
use crate::telescope::{
    Layout, LinearScan, LinearScanParams, Pebs, PebsParams, Pick, RegionSampler,
    RegionSamplerParams,
};
use crate::thermostat::kstaled::{Kstaled, KstaledParams};
use crate::thermostat::{Thermostat, ThermostatParams};
use crate::{Manager, ManagerError};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A manager as built, with the parameters it was built with: every
/// default filled in (`thermocline config show` prints them), so that
/// building it again from `params` gives the same manager.
pub struct Built {
    /// The manager.
    pub manager: Box<dyn Manager>,
    /// Its parameters, every default filled in.
    pub params: toml::Table,
}

/// Builds a manager from its registry name and parameter table.
/// Its arguments: the registry name, the parameter table, and the run's seed
/// (the default of a manager's own `seed`, so that one seed drives every stream).
type Builder = fn(&'static str, toml::Table, u64) -> Result<Built, ManagerError>;

/// `manager`, built with `params` (serialised as they are).
fn built<P: Serialize>(
    name: &'static str,
    params: &P,
    manager: Box<dyn Manager>,
) -> Result<Built, ManagerError> {
    let params = toml::Table::try_from(params).map_err(|e| ManagerError::BadParams {
        manager: name,
        msg: format!("cannot be written back as TOML: {e}"),
    })?;
    Ok(Built { manager, params })
}

/// A registered manager: its name, a one-line description, and a builder that
/// takes its parameters as a TOML table. An entry that shares its type with
/// others (the linear scans, DAMON and Telescope, PEBS) states its own
/// defaults in its builder, so each name's parameters are written once, here.
pub struct Entry {
    /// Name, as given to `--manager`.
    pub name: &'static str,
    /// One line for `thermocline list`.
    pub description: &'static str,
    /// What code outside the registry needs to know about it.
    pub traits: Traits,
    build: Builder,
}

/// What the rest of thermocline needs to know about a manager, declared
/// with its entry instead of matched on its name elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traits {
    /// It places every page once by a fixed rule and never moves one (the
    /// baselines): ending as first-touch needs no explanation.
    pub fixed_placement: bool,
    /// On a live host the daemon sets up the kernel's own tiering for it:
    /// host-wide settings, which `[kernel] allow_host_settings` must allow.
    pub host_tiering: bool,
    /// Its parameter for the cost of a slow access, which a live host
    /// measures (as the cost of a refault) when the config leaves it out.
    pub measured_slow_access: Option<&'static str>,
    /// It keeps a record per page it saw accessed: its host memory grows
    /// with the pages a workload accesses.
    pub per_page_records: bool,
    /// Its boolean parameter that starts every page in the slow tier (as
    /// Memos does), if it has one.
    pub start_slow: Option<&'static str>,
}

impl Traits {
    /// A manager with none of the traits.
    pub const NONE: Traits = Traits {
        fixed_placement: false,
        host_tiering: false,
        measured_slow_access: None,
        per_page_records: false,
        start_slow: None,
    };
    /// A fixed placement (a baseline).
    const FIXED: Traits = Traits {
        fixed_placement: true,
        ..Traits::NONE
    };
    /// A linear scan, keeping a record per page.
    const PER_PAGE: Traits = Traits {
        per_page_records: true,
        ..Traits::NONE
    };
    /// Thermostat: its slow-access cost measured on a live host.
    const THERMOSTAT: Traits = Traits {
        measured_slow_access: Some("slow_access_ns"),
        ..Traits::NONE
    };
}

/// The first number in `t` (or its sub-tables) that is negative, infinite or
/// NaN: every parameter is a count, a size, a period, a rate or a fraction.
fn bad_number(t: &toml::Table) -> Option<(String, String)> {
    t.iter().find_map(|(k, v)| match v {
        toml::Value::Float(f) if !(f.is_finite() && *f >= 0.0) => Some((k.clone(), f.to_string())),
        toml::Value::Integer(i) if *i < 0 => Some((k.clone(), i.to_string())),
        toml::Value::Table(sub) => bad_number(sub).map(|(sk, v)| (format!("{k}.{sk}"), v)),
        _ => None,
    })
}

fn parse<P: DeserializeOwned>(name: &'static str, params: toml::Table) -> Result<P, ManagerError> {
    if let Some((k, v)) = bad_number(&params) {
        return Err(ManagerError::BadParams {
            manager: name,
            msg: format!("{k} = {v}: must be a finite number, at least 0"),
        });
    }
    params.clone().try_into().map_err(|e: toml::de::Error| {
        // Name the parameter at fault: the first that fails on its own.
        let culprit = params.iter().find(|(k, v)| {
            let alone = toml::Table::from_iter([((*k).clone(), (*v).clone())]);
            alone.try_into::<P>().is_err()
        });
        let msg = e.message();
        ManagerError::BadParams {
            manager: name,
            msg: match culprit {
                Some((k, _)) if !msg.contains(&format!("`{k}`")) => format!("{k}: {msg}"),
                _ => msg.to_string(),
            },
        }
    })
}

fn with_params<M: Manager + DeserializeOwned + Serialize + 'static>(
    name: &'static str,
    params: toml::Table,
    _seed: u64,
) -> Result<Built, ManagerError> {
    let m = parse::<M>(name, params)?;
    let params = toml::Table::try_from(&m).map_err(|e| ManagerError::BadParams {
        manager: name,
        msg: format!("cannot be written back as TOML: {e}"),
    })?;
    Ok(Built {
        manager: Box::new(m),
        params,
    })
}

fn ambix(name: &'static str, params: toml::Table, _seed: u64) -> Result<Built, ManagerError> {
    let p = parse::<AmbixParams>(name, params)?;
    built(name, &p, Box::new(Ambix::new(p.clone())))
}

fn kernel_tiering(
    name: &'static str,
    params: toml::Table,
    _seed: u64,
) -> Result<Built, ManagerError> {
    let p = checked(name, parse::<KernelTieringParams>(name, params)?, |p| {
        crate::telemetry::check_monitoring_attrs(
            p.sample_ms,
            p.aggregate_ms,
            p.min_regions,
            p.max_regions,
        )
    })?;
    built(name, &p, Box::new(KernelTiering { p: p.clone() }))
}

fn memos(name: &'static str, params: toml::Table, seed: u64) -> Result<Built, ManagerError> {
    let defaults = MemosParams {
        seed,
        ..MemosParams::default()
    };
    let p = checked(
        name,
        parse_over(name, defaults, params)?,
        MemosParams::check,
    )?;
    let p = checked(name, p, |p| schemes_check(&p.schemes))?;
    built(name, &p, Box::new(Memos::new(p.clone())))
}

/// [`parse`], then the parameters' own `check` of what serde cannot say
/// (ranges, combinations).
fn parse_checked<P: DeserializeOwned>(
    name: &'static str,
    params: toml::Table,
    check: fn(&P) -> Result<(), String>,
) -> Result<P, ManagerError> {
    checked(name, parse::<P>(name, params)?, check)
}

/// `p` if its own `check` of what serde cannot say passes, else the
/// check's words as the manager's bad parameters.
fn checked<P, E: Into<String>>(
    name: &'static str,
    p: P,
    check: impl FnOnce(&P) -> Result<(), E>,
) -> Result<P, ManagerError> {
    check(&p).map_err(|why| ManagerError::BadParams {
        manager: name,
        msg: why.into(),
    })?;
    Ok(p)
}

fn heteroos_guest(
    name: &'static str,
    params: toml::Table,
    mechanism: Mechanism,
) -> Result<Built, ManagerError> {
    let p = parse_checked(name, params, GuestParams::check)?;
    built(name, &p, Box::new(HeteroOsGuest::new(mechanism, p.clone())))
}

fn heteroos_vmm(
    name: &'static str,
    params: toml::Table,
    _seed: u64,
) -> Result<Built, ManagerError> {
    let p = parse_checked(name, params, VmmParams::check)?;
    built(name, &p, Box::new(VmmExclusive::new(p.clone())))
}

fn heteroos_coordinated(
    name: &'static str,
    params: toml::Table,
    _seed: u64,
) -> Result<Built, ManagerError> {
    let p = parse_checked(name, params, CoordinatedParams::check)?;
    built(name, &p, Box::new(Coordinated::new(p.clone())))
}

fn heteroos_vms(name: &'static str, params: toml::Table, seed: u64) -> Result<Built, ManagerError> {
    let defaults = VmsParams {
        seed,
        ..VmsParams::default()
    };
    let p = checked(name, parse_over(name, defaults, params)?, VmsParams::check)?;
    built(name, &p, Box::new(Vms::new(p.clone())))
}

fn kstaled(name: &'static str, params: toml::Table, _seed: u64) -> Result<Built, ManagerError> {
    let p = parse::<KstaledParams>(name, params)?;
    built(name, &p, Box::new(Kstaled::new(p.clone())))
}

/// Thermostat, on BadgerTrap-emulated slow memory when `badgertrap`.
fn thermostat(
    name: &'static str,
    params: toml::Table,
    seed: u64,
    badgertrap: bool,
) -> Result<Built, ManagerError> {
    let defaults = ThermostatParams {
        seed,
        ..ThermostatParams::default()
    };
    let p = checked(
        name,
        parse_over(name, defaults, params)?,
        ThermostatParams::validate,
    )?;
    built(name, &p, Box::new(Thermostat::new(p.clone(), badgertrap)))
}

/// Parses `params` over `defaults`: the table's keys replace the defaults'.
fn parse_over<P: DeserializeOwned + serde::Serialize>(
    name: &'static str,
    defaults: P,
    params: toml::Table,
) -> Result<P, ManagerError> {
    let mut base = toml::Table::try_from(defaults).expect("parameters serialise");
    merge_tables(&mut base, params);
    parse(name, base)
}

fn merge_tables(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge_tables(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// A linear scan that sleeps `sleep_ms` after each batch.
fn linear_scan(
    name: &'static str,
    params: toml::Table,
    _seed: u64,
    sleep_ms: f64,
) -> Result<Built, ManagerError> {
    let p = parse_over(name, LinearScanParams::mode(sleep_ms), params)?;
    let p = checked(name, p, |p| schemes_check(&p.schemes))?;
    built(name, &p, Box::new(LinearScan::new(name, p.clone())))
}

/// DAMON-style region sampling that picks entries by `pick`, sampling every
/// `sample_ms`.
/// DAMON with the paddr operations (its entry's defaults on top of
/// damon-moderate's).
fn damon_paddr(name: &'static str, params: toml::Table, seed: u64) -> Result<Built, ManagerError> {
    let mut with_layout = toml::Table::new();
    with_layout.insert("layout".into(), toml::Value::String("paddr".into()));
    merge_tables(&mut with_layout, params);
    region_sampler(name, with_layout, seed, Pick::Leaf, 5.0)
}

/// DAMON run by the host's kernel (its regions through
/// `Backend::monitor_regions`), with damon-moderate's parameters and
/// Telescope's migration rules available on top.
fn damon_kernel(name: &'static str, params: toml::Table, seed: u64) -> Result<Built, ManagerError> {
    let mut with_source = toml::Table::new();
    with_source.insert("source".into(), toml::Value::String("kernel".into()));
    merge_tables(&mut with_source, params);
    region_sampler(name, with_source, seed, Pick::Leaf, 5.0)
}

fn region_sampler(
    name: &'static str,
    params: toml::Table,
    seed: u64,
    pick: Pick,
    sample_ms: f64,
) -> Result<Built, ManagerError> {
    let p = region_sampler_params_of(name, params, seed, pick, sample_ms)?;
    built(
        name,
        &p,
        Box::new(RegionSampler::new(name, pick, p.clone())),
    )
}

/// The parameters a DAMON or Telescope entry runs with: its defaults
/// overridden by `params`.
fn region_sampler_params_of(
    name: &'static str,
    params: toml::Table,
    seed: u64,
    pick: Pick,
    sample_ms: f64,
) -> Result<RegionSamplerParams, ManagerError> {
    let defaults = RegionSamplerParams {
        sample_ms,
        seed,
        // DAMON starts from vaddr's three regions over the process;
        // Telescope keeps the workload's span (its paper does not say how
        // it lays out its first regions).
        layout: if pick == Pick::Leaf {
            Layout::Process
        } else {
            Layout::Span
        },
        // Both merge as the kernel does (max_nr_accesses / 10): Telescope's
        // region management is DAMON's with its defaults (paper 002, 5.1).
        threshold_from_max: true,
        // A region is hot when more than 5 of its window's samples found
        // the bit set (paper 002, 6.3.2, the only hot test it states), for
        // DAMON as for Telescope: both report regions with counts, scored
        // the same way (6.2), and only this test gives Figure 9's DAMON
        // (fine at 1 GiB, recall down at 10, zero at 100).
        hot_min_accesses: 6.0,
        ..RegionSamplerParams::default()
    };
    let p = parse_over(name, defaults, params)?;
    let p = checked(name, p, |p| schemes_check(&p.schemes))?;
    checked(name, p, RegionSamplerParams::check)
}

/// What can be said of schemes before the machine is known (all but
/// whether a tier exists, which their start checks).
fn schemes_check(schemes: &[crate::schemes::SchemeParams]) -> Result<(), String> {
    for (i, s) in schemes.iter().enumerate() {
        s.build(usize::from(u8::MAX))
            .map_err(|why| format!("schemes[{i}]: {why}"))?;
    }
    Ok(())
}

/// The parameters of a DAMON entry on virtual addresses (`damon-moderate`,
/// `damon-aggressive`) as it would run with `params`: what the guest's own
/// kernel DAMON is set up with when it stands in for the entry (`reproduce
/// live-damon`). `None` for any other manager.
pub fn damon_vaddr_params(
    name: &str,
    params: toml::Table,
    seed: u64,
) -> Option<Result<RegionSamplerParams, ManagerError>> {
    let (name, sample_ms) = match name {
        "damon-moderate" => ("damon-moderate", 5.0),
        "damon-aggressive" => ("damon-aggressive", 1.0),
        _ => return None,
    };
    Some(region_sampler_params_of(
        name,
        params,
        seed,
        Pick::Leaf,
        sample_ms,
    ))
}

/// PEBS-like sampling at `freq_hz`.
fn pebs(
    name: &'static str,
    params: toml::Table,
    _seed: u64,
    freq_hz: f64,
) -> Result<Built, ManagerError> {
    let p = parse_over(name, PebsParams::at(freq_hz), params)?;
    let p = checked(name, p, |p| schemes_check(&p.schemes))?;
    built(name, &p, Box::new(Pebs::new(name, p.clone())))
}

/// A profiling technique built by `base` under `name`, with the kernel's
/// DAMON tiering sample as its default schemes
/// ([`crate::schemes::mtier_recipe`]); a `schemes` parameter replaces them.
fn tiering(
    name: &'static str,
    mut params: toml::Table,
    seed: u64,
    base: Builder,
) -> Result<Built, ManagerError> {
    if !params.contains_key("schemes") {
        let recipe =
            toml::Value::try_from(crate::schemes::mtier_recipe()).expect("the recipe serialises");
        params.insert("schemes".into(), recipe);
    }
    base(name, params, seed)
}

/// Every manager.
pub const MANAGERS: &[Entry] = &[
    Entry {
        name: "all-fast",
        description: "every page in the fast tier (sized to the footprint unless --fast-capacity is given): the slowdown reference",
        traits: Traits::FIXED,
        build: with_params::<AllFast>,
    },
    Entry {
        name: "all-slow",
        description: "every page in the slowest tier",
        traits: Traits::FIXED,
        build: with_params::<AllSlow>,
    },
    Entry {
        name: "first-touch",
        description: "fast tier until full, then slow; no migration (Linux preferred node)",
        traits: Traits::FIXED,
        build: with_params::<FirstTouch>,
    },
    Entry {
        name: "interleave",
        description: "pages alternate between tiers in touch order (MPOL_INTERLEAVE); no migration",
        traits: Traits::FIXED,
        build: with_params::<Interleave>,
    },
    Entry {
        name: "random",
        description: "each page to the fast tier with probability random.fast_probability (0.5); no migration",
        traits: Traits::FIXED,
        build: |n, p, _| {
            let r: Random = parse_checked(n, p, Random::check)?;
            let shown = Random {
                fast_probability: r.fast_probability,
            };
            built(n, &shown, Box::new(r))
        },
    },
    Entry {
        name: "thermostat",
        description: "Thermostat (ASPLOS'17): 5% of 2 MiB pages sampled per 30 s, poison-counted, cold pages to the slow tier under a 3% slowdown budget, with correction",
        traits: Traits::THERMOSTAT,
        build: |n, p, s| thermostat(n, p, s, false),
    },
    Entry {
        name: "thermostat-badgertrap",
        description: "Thermostat on slow memory emulated as in its paper (dram+badgertrap: 1 us fault per TLB miss to a slow page)",
        traits: Traits::THERMOSTAT,
        build: |n, p, s| thermostat(n, p, s, true),
    },
    Entry {
        name: "kstaled",
        description: "kstaled-like baseline: Accessed-bit scan every 1 s of 4 KiB pages (huge pages split); idle 10 s -> slow tier, accessed -> back; no slowdown target",
        traits: Traits {
            start_slow: Some("start_slow"),
            ..Traits::NONE
        },
        build: kstaled,
    },
    Entry {
        name: "ambix",
        description: "Ambix: every 2 s, DEMOTE / PROMOTE / PROMOTE_INT / SWITCH by DRAM usage (0.95) and DCPMM writes (50 MB/s); write-intensive pages kept in DRAM",
        traits: Traits::NONE,
        build: ambix,
    },
    Entry {
        name: "adm-default",
        description: "App Direct, node-local policy: DRAM until full, then DCPMM; no migration (Ambix's baseline)",
        traits: Traits::FIXED,
        build: with_params::<AdmDefault>,
    },
    Entry {
        name: "memory-mode",
        description: "Optane Memory Mode: DRAM as a direct-mapped 64 B-line write-back cache of DCPMM, caching on every access",
        traits: Traits::FIXED,
        build: with_params::<MemoryMode>,
    },
    Entry {
        name: "autonuma-tiering",
        description: "NUMA-balancing tiering (tiering-0.4/TPP-like): kswapd demotes inactive pages under a watermark; hint faults promote",
        traits: Traits::NONE,
        build: with_params::<AutonumaTiering>,
    },
    Entry {
        name: "kernel-tiering",
        description: "the live host kernel's own tiering, configured by the daemon and observed: NUMA balancing's tiering mode with demotion (mode = \"numa-balancing\") or DAMOS migrate_hot/migrate_cold on physical addresses (mode = \"damos\"); live only",
        traits: Traits {
            host_tiering: true,
            ..Traits::NONE
        },
        build: kernel_tiering,
    },
    Entry {
        name: "memos-placement",
        description: "Memos' placement as Ambix evaluated it: all pages start in NVM; hot, write-dominated first, up to 10 000 promoted per period",
        traits: Traits::NONE,
        build: with_params::<MemosPlacement>,
    },
    Entry {
        name: "memos",
        description: "Memos (IEEE TC): HyMM counts NVM pages' TLB misses (5 s, cap 200), samples Dirty bits of hot regions (8-record history, sub-region representatives), finds streams by IQR; up to 10 000 hot pages to DRAM per 41 s cycle, WD first, by bank and LLC slab where the machine has them (stream pages in slab 0); bandwidth back-off; idle DRAM pages back to NVM by lockless DMA",
        traits: Traits::NONE,
        build: memos,
    },
    Entry {
        name: "heteroos-heap-od",
        description: "HeteroOS Heap-OD (ISCA'17, Table 5): heap pages get FastMem on allocation, every other type SlowMem; per-type FastMem miss ratios every 100 ms",
        traits: Traits::NONE,
        build: |n, p, _| heteroos_guest(n, p, Mechanism::HeapOd),
    },
    Entry {
        name: "heteroos-heap-io-slab-od",
        description: "HeteroOS Heap-IO-Slab-OD: heap, page-cache, buffer-cache and slab pages get FastMem on allocation; page tables SlowMem",
        traits: Traits::NONE,
        build: |n, p, _| heteroos_guest(n, p, Mechanism::HeapIoSlabOd),
    },
    Entry {
        name: "heteroos-lru",
        description: "HeteroOS-LRU: Heap-IO-Slab-OD, I/O pages evicted from FastMem when their I/O completes, and under FastMem pressure inactive FastMem pages evicted at once (per-type thresholds)",
        traits: Traits::NONE,
        build: |n, p, _| heteroos_guest(n, p, Mechanism::Lru),
    },
    Entry {
        name: "heteroos-coordinated",
        description: "HeteroOS-coordinated: HeteroOS-LRU; once FastMem allocations miss, the VMM scans the guest's heap VMAs (16 K pages per epoch, Equation 1's 50 ms-1 s interval by LLC misses) keeping each page's Accessed bits over its last 8 scans, and the guest promotes the pages hot by that history, evicting the least recently used",
        traits: Traits::NONE,
        build: heteroos_coordinated,
    },
    Entry {
        name: "heteroos-vmm-exclusive",
        description: "HeteroOS's VMM-exclusive baseline (HeteroVisor-like): pages allocated in SlowMem; every 100 ms the VMM scans 16 K guest pages' Accessed bits (Table 6 walk cost), promotes the accessed ones, evicts idle FastMem pages",
        traits: Traits::NONE,
        build: heteroos_vmm,
    },
    Entry {
        name: "heteroos-vms",
        description: "HeteroOS's VMM over several guest VMs (section 4.2): each address space (each part of a mix:A+B) a VM; FastMem and SlowMem divided at boot by weighted DRF (FastMem 2, SlowMem 1) or max-min from each VM's reservations, as per-VM tier quotas, SlowMem then ballooned between them with a swap device (DRF keeps reservations, max-min lends idle ones); each VM runs HeteroOS-coordinated (or another guest mechanism) within its share",
        traits: Traits::NONE,
        build: heteroos_vms,
    },
    Entry {
        name: "linear-scan-aggressive",
        description: "Telescope 3.1: linear Accessed-bit scan of every leaf entry, 256 MB per batch, no sleep; profile = pages accessed between two passes",
        traits: Traits::PER_PAGE,
        build: |n, p, s| linear_scan(n, p, s, 0.0),
    },
    Entry {
        name: "linear-scan-moderate",
        description: "Telescope 3.1: linear Accessed-bit scan, 256 MB per batch, 10 ms sleep after each",
        traits: Traits::PER_PAGE,
        build: |n, p, s| linear_scan(n, p, s, 10.0),
    },
    Entry {
        name: "linear-scan-conservative",
        description: "Telescope 3.1: linear Accessed-bit scan, 256 MB per batch, 100 ms sleep after each",
        traits: Traits::PER_PAGE,
        build: |n, p, s| linear_scan(n, p, s, 100.0),
    },
    Entry {
        name: "damon-moderate",
        description: "DAMON vaddr region sampling: 5 ms sample, 200 ms aggregation, 10-1000 regions, random splits, merges of similar neighbours",
        traits: Traits::NONE,
        build: |n, p, s| region_sampler(n, p, s, Pick::Leaf, 5.0),
    },
    Entry {
        name: "damon-aggressive",
        description: "DAMON vaddr region sampling with a 1 ms sample interval (200 samples per 200 ms window)",
        traits: Traits::NONE,
        build: |n, p, s| region_sampler(n, p, s, Pick::Leaf, 1.0),
    },
    Entry {
        name: "damon-paddr",
        description: "DAMON paddr: physical-address region sampling over the biggest tier (5 ms / 200 ms, 10-1000 regions), each sampled frame's PTE found through the reverse map (the rate machine's frames are its pages in address order)",
        traits: Traits::NONE,
        build: |n, p, s| damon_paddr(n, p, s),
    },
    Entry {
        name: "damon-kernel",
        description: "the host kernel's DAMON (vaddr, live backend only) with damon-moderate's intervals and bounds: its regions profiled and, with migration.enabled, migrated by Telescope's rules (6.3.2)",
        traits: Traits::NONE,
        build: |n, p, s| damon_kernel(n, p, s),
    },
    Entry {
        name: "pebs-5khz",
        description: "PEBS-like sampling of retired loads and stores at 5 kHz (perf frequency mode, kernel throttling), 2 MiB units, 200 ms windows",
        traits: Traits::NONE,
        build: |n, p, s| pebs(n, p, s, 5_000.0),
    },
    Entry {
        name: "pebs-10khz",
        description: "PEBS-like sampling of retired loads and stores at 10 kHz",
        traits: Traits::NONE,
        build: |n, p, s| pebs(n, p, s, 10_000.0),
    },
    Entry {
        name: "telescope-bounded",
        description: "Telescope (bounded): DAMON-style regions; each 5 ms, per region, the Accessed bit of the highest page-table entry inside the region",
        traits: Traits::NONE,
        build: |n, p, s| region_sampler(n, p, s, Pick::Bounded, 5.0),
    },
    Entry {
        name: "telescope-flex",
        description: "Telescope (flex): as bounded, but an entry may overshoot its region by 15% (PGD, PUD) or 25% (PMD)",
        traits: Traits::NONE,
        build: |n, p, s| region_sampler(n, p, s, Pick::Flex, 5.0),
    },
    Entry {
        name: "damon-tiering",
        description: "damon-moderate acting by the kernel's DAMON tiering sample (samples/damon/mtier.c): accessed regions to the fast tier while it is under 99.7% used, idle ones out while it has under 0.5% free, 200 MiB/s each (schemes; the goal-tuned quota starts from 1 byte and grows at most 2x a second)",
        traits: Traits::NONE,
        build: |n, p, s| tiering(n, p, s, |n, p, s| region_sampler(n, p, s, Pick::Leaf, 5.0)),
    },
    Entry {
        name: "telescope-tiering",
        description: "telescope-bounded acting by the same schemes as damon-tiering",
        traits: Traits::NONE,
        build: |n, p, s| tiering(n, p, s, |n, p, s| region_sampler(n, p, s, Pick::Bounded, 5.0)),
    },
    Entry {
        name: "pebs-tiering",
        description: "pebs-5khz acting by the same schemes as damon-tiering",
        traits: Traits::NONE,
        build: |n, p, s| tiering(n, p, s, |n, p, s| pebs(n, p, s, 5_000.0)),
    },
    Entry {
        name: "linear-scan-tiering",
        description: "linear-scan-moderate acting by the same schemes as damon-tiering",
        traits: Traits::PER_PAGE,
        build: |n, p, s| tiering(n, p, s, |n, p, s| linear_scan(n, p, s, 10.0)),
    },
];

/// Builds manager `name` with `params` (its section of the configuration);
/// `seed` (the run's) is the default of any seed the manager has.
pub fn build(name: &str, params: toml::Table, seed: u64) -> Result<Box<dyn Manager>, ManagerError> {
    build_shown(name, params, seed).map(|b| b.manager)
}

/// [`build`], with the parameters the manager was built with, every
/// default filled in: building again from those gives the same manager.
pub fn build_shown(name: &str, params: toml::Table, seed: u64) -> Result<Built, ManagerError> {
    let e = MANAGERS
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| ManagerError::Unknown(name.to_string()))?;
    (e.build)(e.name, params, seed)
}

/// The managers that act only on a live host (the kernel's own tiering,
/// the kernel's DAMON): a simulated machine has nothing for them to drive.
pub const LIVE_ONLY: &[&str] = &["kernel-tiering", "damon-kernel"];

/// The traits of manager `name` ([`Traits::NONE`] for a name the registry
/// does not know).
pub fn traits(name: &str) -> Traits {
    MANAGERS
        .iter()
        .find(|e| e.name == name)
        .map_or(Traits::NONE, |e| e.traits)
}

/// `" (did you mean X?)"` with the registered manager closest to `name`,
/// or nothing.
pub fn hint(name: &str) -> String {
    thermocline_vocab::hint(name, MANAGERS.iter().map(|e| e.name))
}

/// Whether `name` is a registered manager.
pub fn exists(name: &str) -> bool {
    MANAGERS.iter().any(|e| e.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_live_only_managers_are_registered() {
        for name in LIVE_ONLY {
            assert!(exists(name), "{name}");
        }
    }

    #[test]
    fn the_parameters_traits_name_are_the_managers_own() {
        for e in MANAGERS {
            let params = build_shown(e.name, toml::Table::new(), 1).unwrap().params;
            for key in [e.traits.measured_slow_access, e.traits.start_slow]
                .into_iter()
                .flatten()
            {
                assert!(params.contains_key(key), "{}: {key}", e.name);
            }
        }
        assert_eq!(traits("no-such-manager"), Traits::NONE);
    }

    #[test]
    fn every_managers_shown_parameters_build_it_again_unchanged() {
        for e in MANAGERS {
            let shown = build_shown(e.name, toml::Table::new(), 7).unwrap().params;
            let again = build_shown(e.name, shown.clone(), 1).unwrap().params;
            assert_eq!(again, shown, "{}", e.name);
            // and through TOML text, as `config show` writes them
            let text = toml::to_string(&shown).unwrap();
            let read: toml::Table = text.parse().unwrap();
            assert_eq!(
                build_shown(e.name, read, 1).unwrap().params,
                shown,
                "{text}"
            );
        }
        let tiering = build_shown("damon-tiering", toml::Table::new(), 1).unwrap();
        assert_eq!(tiering.params["schemes"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn builds_every_manager_with_defaults_and_rejects_unknown_params() {
        for e in MANAGERS {
            let m = build(e.name, toml::Table::new(), 1).unwrap();
            assert_eq!(m.name(), e.name);
        }
        let mut t = toml::Table::new();
        t.insert("fast_probability".into(), toml::Value::Float(0.25));
        assert!(build("random", t, 1).is_ok());
        let mut t = toml::Table::new();
        t.insert("nonsense".into(), toml::Value::Integer(1));
        let err = build("random", t, 1).err().unwrap().to_string();
        assert!(err.contains("nonsense"), "{err}");
        assert!(build("thermostatt", toml::Table::new(), 1).is_err());
    }
}
