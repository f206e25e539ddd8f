//! DAMOS filters: which memory a scheme may touch beyond its access
//! pattern. Each filter names a kind of memory and whether the memory of
//! that kind is excluded or is the only memory included; address-range
//! filters split a region at their bounds, as the kernel does.

use thermocline_vocab::{Asid, PageType};

/// A kind of memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterKind {
    /// Addresses in `[start, end)`.
    Addr {
        /// First byte.
        start: u64,
        /// One past the last.
        end: u64,
    },
    /// One address space (the kernel's `target`).
    Target(Asid),
    /// Anonymous memory.
    Anon,
    /// Memory mapped by huge pages.
    Huge,
    /// A page type (HeteroOS's).
    PageType(PageType),
}

/// A filter: a kind, and whether to exclude it (else: include only it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filter {
    /// The kind.
    pub kind: FilterKind,
    /// Exclude matching memory; false: exclude what does not match.
    pub exclude: bool,
}

/// What a filter needs to know of a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traits {
    /// Address space.
    pub asid: Asid,
    /// Page type.
    pub page_type: PageType,
    /// Mapped by huge pages.
    pub huge: bool,
}

impl Filter {
    fn matches(&self, t: &Traits, start: u64, end: u64) -> bool {
        match self.kind {
            FilterKind::Addr { start: a, end: b } => start >= a && end <= b,
            FilterKind::Target(asid) => t.asid == asid,
            FilterKind::Anon => t.page_type == PageType::Anon,
            FilterKind::Huge => t.huge,
            FilterKind::PageType(p) => t.page_type == p,
        }
    }
}

/// The pieces of `[start, end)` that pass every filter, in address order:
/// the range is first cut at every address filter's bounds inside it.
pub fn passing(filters: &[Filter], t: &Traits, start: u64, end: u64) -> Vec<(u64, u64)> {
    let mut cuts = vec![start, end];
    for f in filters {
        if let FilterKind::Addr { start: a, end: b } = f.kind {
            cuts.extend([a, b].into_iter().filter(|&c| c > start && c < end));
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2)
        .map(|w| (w[0], w[1]))
        .filter(|&(s, e)| filters.iter().all(|f| f.matches(t, s, e) != f.exclude))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Traits = Traits {
        asid: Asid(1),
        page_type: PageType::Anon,
        huge: false,
    };

    /// Against a reference that decides byte by byte (in 1-byte units
    /// over a small range).
    #[test]
    fn pieces_are_exactly_the_bytes_every_filter_lets_through() {
        let sets: Vec<Vec<Filter>> = vec![
            vec![],
            vec![Filter {
                kind: FilterKind::Addr { start: 10, end: 20 },
                exclude: true,
            }],
            vec![Filter {
                kind: FilterKind::Addr { start: 10, end: 20 },
                exclude: false,
            }],
            vec![
                Filter {
                    kind: FilterKind::Addr { start: 5, end: 30 },
                    exclude: false,
                },
                Filter {
                    kind: FilterKind::Addr { start: 12, end: 14 },
                    exclude: true,
                },
            ],
            vec![Filter {
                kind: FilterKind::Target(Asid(1)),
                exclude: true,
            }],
            vec![Filter {
                kind: FilterKind::Huge,
                exclude: false,
            }],
            vec![Filter {
                kind: FilterKind::Anon,
                exclude: false,
            }],
        ];
        for filters in &sets {
            let pieces = passing(filters, &T, 0, 40);
            for byte in 0..40u64 {
                let reference = filters
                    .iter()
                    .all(|f| f.matches(&T, byte, byte + 1) != f.exclude);
                let got = pieces.iter().any(|&(s, e)| s <= byte && byte < e);
                assert_eq!(got, reference, "byte {byte} under {filters:?}");
            }
        }
    }
}
