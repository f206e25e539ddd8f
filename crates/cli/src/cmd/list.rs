//! `thermocline list`.

use thermocline_reproductions::catalogue;

/// Workloads, managers, machines and reproductions, one line each.
pub fn list_cmd() {
    println!("workloads (also: a MASIM config path, lackey:PATH, trace:PATH):");
    for p in catalogue::workloads() {
        println!("  {:<24} {}", p.name, p.description);
    }
    println!("managers:");
    for m in catalogue::managers() {
        println!("  {:<24} {}", m.name, m.description);
    }
    println!("machines:");
    for (i, m) in catalogue::machines().iter().enumerate() {
        let d = if i == 0 { " (default)" } else { "" };
        println!("  {:<24} {}{d}", m.name, m.description);
    }
    println!("reproductions (thermocline reproduce NAME):");
    for r in catalogue::reproductions() {
        println!("  {:<24} {}", r.name, r.description);
    }
}
