//! The table `run` and `compare` print: a row per report, its legend, and
//! the memory-system, tenant and note lines under it.

use thermocline_engine::report::Report;

/// Bytes as GiB with two decimals.
fn gib(b: f64) -> String {
    format!("{:.2}", b / (1u64 << 30) as f64)
}

/// What the table's columns mean, printed under it.
const LEGEND: &str = "(slowdown: simulated time over the same run with every page fast; fast GiB: time-weighted mean resident in the fast tier, GiB-s: that times the simulated time; mgr CPU: the manager's CPU time in % of one core; recall, precision: mean share of the truly hot pages its hot sets named, and of the named pages truly hot, - if it names none)";

/// The table, rows of managers in `marked` (run on another fast tier or
/// machine than the others) flagged with `*`.
pub fn print_table(reports: &[Report], marked: &[String]) {
    println!(
        "{:<24} {:>9} {:>10} {:>11} {:>10} {:>12} {:>12} {:>9} {:>7} {:>9}",
        "manager",
        "slowdown",
        "sim time",
        "fast GiB",
        "fast GiB-s",
        "slow acc %",
        "migrated MB",
        "mgr CPU",
        "recall",
        "precision"
    );
    let mut rows: Vec<&Report> = reports.iter().collect();
    if rows.len() > 1 {
        // least slowdown first; the sort is stable, so ties keep list order
        rows.sort_by(|a, b| a.slowdown.total_cmp(&b.slowdown));
    }
    for r in rows {
        let slow: u64 = r.tiers.iter().skip(1).map(|t| t.reads + t.writes).sum();
        let all: u64 = r.tiers.iter().map(|t| t.reads + t.writes).sum();
        let name = if marked.contains(&r.manager) {
            format!("{}*", r.manager)
        } else {
            r.manager.clone()
        };
        println!(
            "{:<24} {:>8.1}% {:>9.3}s {:>11} {:>10} {:>11.1}% {:>12.1} {:>8.3}% {:>7} {:>9}",
            name,
            r.slowdown * 100.0,
            r.sim_time_s,
            // a guest run that recorded the kernel's DAMON has no tiers
            r.tiers
                .first()
                .map_or("-".to_string(), |t| gib(t.avg_resident_bytes)),
            r.tiers.first().map_or("-".to_string(), |t| {
                format!(
                    "{:.2}",
                    t.avg_resident_bytes / (1u64 << 30) as f64 * r.sim_time_s
                )
            }),
            if all > 0 {
                slow as f64 * 100.0 / all as f64
            } else {
                0.0
            },
            r.migrations.bytes as f64 / 1e6,
            r.manager_cpu_util * 100.0,
            r.mean_recall.map_or("-".to_string(), |x| format!("{x:.2}")),
            r.mean_precision
                .map_or("-".to_string(), |x| format!("{x:.2}")),
        );
    }
    if reports.len() > 1 {
        println!("{}; rows by slowdown)", LEGEND.trim_end_matches(')'));
    } else {
        println!("{LEGEND}");
    }
    for r in reports {
        print_memory_system(r);
        print_tenants(r);
    }
    // beside other managers' rows, a note says whose it is
    let several = reports.len() > 1;
    for r in reports {
        for note in &r.notes {
            if several && !note.starts_with(&format!("{}:", r.manager)) {
                println!("note: {}: {note}", r.manager);
            } else {
                println!("note: {note}");
            }
        }
    }
}

/// One line per tenant of a shared machine (a mix's components).
fn print_tenants(r: &Report) {
    if r.tenants.is_empty() {
        return;
    }
    println!(
        "tenants ({}): {:<3} {:<28} {:>11} {:>10} {:>10} {:>11} {:>16}",
        r.manager,
        "vm",
        "workload",
        "footprint",
        "fast GiB",
        "slow GiB",
        "slow acc %",
        "est. slowdown"
    );
    let pad = "tenants ()".len() + r.manager.len();
    for t in &r.tenants {
        let held = |i: usize| t.resident_bytes.get(i).copied().unwrap_or(0) as f64;
        let slow: f64 = (1..t.resident_bytes.len()).map(held).sum();
        println!(
            "{:pad$}  {:<3} {:<28} {:>11} {:>10} {:>10} {:>10.1}% {:>15.1}%",
            "",
            t.asid,
            t.workload,
            gib(t.footprint_bytes as f64),
            gib(held(0)),
            gib(slow),
            t.slow_access_share * 100.0,
            t.memory_bound_slowdown * 100.0,
        );
    }
}

/// The memory-system lines of a report that has one.
fn print_memory_system(r: &Report) {
    let Some(m) = &r.memory_system else {
        return;
    };
    println!(
        "memory system ({}): LLC misses per slab max/mean {:.2}",
        r.manager, m.llc_slab_imbalance
    );
    for c in &m.channels {
        let served = c.row_hits + c.row_empty + c.row_conflicts;
        let conflicts = if served > 0 {
            c.row_conflicts as f64 * 100.0 / served as f64
        } else {
            0.0
        };
        let mut line = format!(
            "  {:<6} {:>11} accesses, banks max/mean {:.2}, row hits {:.1}% conflicts {:.1}%, energy {:.3} J (read {:.3}, write {:.3}, standby {:.3})",
            c.tier,
            c.bank_accesses.iter().sum::<u64>(),
            c.bank_imbalance,
            c.row_hit_rate * 100.0,
            conflicts,
            c.read_energy_j + c.write_energy_j + c.standby_energy_j,
            c.read_energy_j,
            c.write_energy_j,
            c.standby_energy_j
        );
        if let Some(w) = &c.wear {
            let years = |y: Option<f64>| y.map_or("-".to_string(), |y| format!("{y:.1}"));
            line += &format!(
                ", lifetime {} years with Start-Gap per bank ({} unlevelled)",
                years(w.lifetime_years_start_gap),
                years(w.lifetime_years_unlevelled)
            );
        }
        println!("{line}");
    }
}
