//! Tags with true LRU replacement and a payload per way: the state the TLBs
//! and the paging-structure caches share. Each operation (a lookup, a fill,
//! an invalidation) picks the set's representation once and finds the tag,
//! its recency and its payload together.
//!
//! A set of up to 16 ways keeps its ways in recency order as the 16 nibbles of
//! one word, so a hit, a fill or an invalidation is a few shifts. Larger sets
//! keep a circular doubly linked list (in fixed-size arrays for a single set
//! of up to 64 ways, the usual PDE cache). A lookup first compares one byte of a
//! hash of the tag (its signature) for 8 or 16 ways at once and the full tag
//! only where the signature matches; a large single set (a 32-entry
//! paging-structure cache) also counts its signatures, so most misses cost
//! one load.

/// The tag of an empty way.
pub(crate) const INVALID: u64 = u64::MAX;

/// One byte of a hash of `tag`, compared before the tag itself.
#[inline]
pub(crate) fn signature(tag: u64) -> u8 {
    (tag.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as u8
}

/// Ten bits of the same hash as [`signature`] (its top eight are the
/// signature): the bucket of `tag` in [`Assoc`]'s filter.
#[inline]
fn bucket(tag: u64) -> usize {
    (tag.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 54) as usize
}

/// Buckets of [`bucket`].
const BUCKETS: usize = 1 << 10;

const BYTES_LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const BYTES_ONE: u64 = 0x0101_0101_0101_0101;
const NIBBLES_LOW3: u64 = 0x7777_7777_7777_7777;
const NIBBLES_ONE: u64 = 0x1111_1111_1111_1111;

/// The high bit of every zero byte of `x` (exact: no carry crosses a byte).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    !((((x & BYTES_LOW7) + BYTES_LOW7) | x) | BYTES_LOW7)
}

/// The nibbles below position `p` (p <= 16).
#[inline]
fn nibbles_below(p: u32) -> u64 {
    if p >= 16 {
        !0
    } else {
        (1u64 << (4 * p)) - 1
    }
}

/// A set of at most 16 ways, aligned to a host cache line with the
/// signatures and the order first: a lookup that misses reads one line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct Small<P> {
    /// `signature(tags[w])` per way.
    sigs: [u8; 16],
    /// Nibble `i`: the way at recency position `i` (0: most recent).
    /// Positions beyond the set's size hold 0.
    order: u64,
    /// Per way, its tag; ways beyond the set's size stay `INVALID`.
    tags: [u64; 16],
    /// Per way, its payload.
    payloads: [P; 16],
}

impl<P: Copy + Default> Small<P> {
    fn new(ways: usize) -> Self {
        Small {
            tags: [INVALID; 16],
            sigs: [signature(INVALID); 16],
            order: (0..ways as u64).fold(0, |o, w| o | (w << (4 * w))),
            payloads: [P::default(); 16],
        }
    }

    /// The way holding `tag`; with `recent_first`, the most recent way is
    /// checked before the signatures.
    #[inline(always)]
    fn find(&self, tag: u64, ways: usize, recent_first: bool) -> Option<usize> {
        self.find_signed(tag, signature(tag), ways, recent_first)
    }

    /// [`Small::find`] with the tag's signature already computed.
    #[inline(always)]
    fn find_signed(&self, tag: u64, sig: u8, ways: usize, recent_first: bool) -> Option<usize> {
        if recent_first {
            let mru = (self.order & 15) as usize;
            if self.tags[mru] == tag {
                return Some(mru);
            }
        }
        let want = u64::from(sig) * BYTES_ONE;
        for half in 0..2 {
            let sigs = u64::from_le_bytes(
                self.sigs[half * 8..half * 8 + 8]
                    .try_into()
                    .expect("8 bytes"),
            );
            let mut m = zero_bytes(sigs ^ want);
            while m != 0 {
                let way = half * 8 + (m.trailing_zeros() / 8) as usize;
                if self.tags[way & 15] == tag {
                    return Some(way);
                }
                m &= m - 1;
            }
            if ways <= 8 {
                break;
            }
        }
        None
    }

    /// The recency position of `way` (which the set holds).
    #[inline(always)]
    fn position(&self, way: usize) -> u32 {
        let x = self.order ^ (way as u64 * NIBBLES_ONE);
        // Bit 3 of every zero nibble; the lowest is the way's position, as
        // unused positions (zeros) come after every used one.
        let z = !((((x & NIBBLES_LOW3) + NIBBLES_LOW3) | x) | NIBBLES_LOW3);
        (z.trailing_zeros() / 4).min(15)
    }

    #[inline(always)]
    fn touch(&mut self, way: usize) {
        if (self.order & 15) as usize == way {
            return;
        }
        let p = self.position(way);
        let below = nibbles_below(p);
        let above = !nibbles_below(p + 1);
        self.order = (self.order & above) | ((self.order & below) << 4) | way as u64;
    }

    #[inline(always)]
    fn lru(&self, ways: usize) -> usize {
        ((self.order >> (4 * (ways - 1))) & 15) as usize
    }

    /// Puts `tag` in the least recently used way, which becomes the most
    /// recent; returns that way. `used` is `nibbles_below(ways)`.
    #[inline(always)]
    fn fill_lru(&mut self, ways: usize, used: u64, tag: u64) -> usize {
        self.fill_lru_signed(4 * (ways as u32 - 1), used, tag, signature(tag))
    }

    /// [`Small::fill_lru`] with the tag's signature already computed and
    /// the least recent position's shift (`4 * (ways - 1)`).
    #[inline(always)]
    fn fill_lru_signed(&mut self, lru_shift: u32, used: u64, tag: u64, sig: u8) -> usize {
        let way = ((self.order >> lru_shift) & 15) as usize;
        self.tags[way & 15] = tag;
        self.sigs[way & 15] = sig;
        self.order = ((self.order << 4) | way as u64) & used;
        way
    }

    #[inline(always)]
    fn set_tag(&mut self, way: usize, tag: u64) {
        self.tags[way & 15] = tag;
        self.sigs[way & 15] = signature(tag);
    }

    fn clear(&mut self, way: usize, ways: usize) {
        self.set_tag(way, INVALID);
        let p = self.position(way);
        let below = nibbles_below(p);
        let last = 4 * (ways as u32 - 1);
        self.order = (self.order & below)
            | ((self.order >> 4) & !below & nibbles_below(ways as u32 - 1))
            | ((way as u64) << last);
    }
}

/// Sets of more than 16 ways: a circular list per set.
#[derive(Clone, Debug)]
pub(crate) struct Large<P> {
    ways: usize,
    /// Signature bytes per set: `ways` rounded up to 8.
    sig_stride: usize,
    /// Per way, its tag (`INVALID` when empty).
    tags: Vec<u64>,
    /// Per way, `signature(tag)`; padding bytes up to `sig_stride` per set.
    sigs: Vec<u8>,
    /// Per way, the next less recently used way of its set (circular: the
    /// least recent one points at the most recent).
    older: Vec<u32>,
    /// Per way, the next more recently used way (circular).
    newer: Vec<u32>,
    /// Per set, its most recently used way.
    mru: Vec<u32>,
    /// With a single set: how many ways hold each signature.
    sig_count: Option<Box<[u32; 256]>>,
    /// Per way, its payload.
    payloads: Vec<P>,
}

impl<P: Copy + Default> Large<P> {
    fn new(sets: usize, ways: usize) -> Self {
        let sig_stride = ways.div_ceil(8) * 8;
        let n = sets * ways;
        let (mut older, mut newer) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..sets {
            for w in 0..ways {
                older.push(((w + 1) % ways) as u32);
                newer.push(((w + ways - 1) % ways) as u32);
            }
        }
        let sig_count = (sets == 1).then(|| {
            let mut c = Box::new([0; 256]);
            c[signature(INVALID) as usize] = ways as u32;
            c
        });
        Large {
            ways,
            sig_stride,
            tags: vec![INVALID; n],
            sigs: vec![signature(INVALID); sets * sig_stride],
            older,
            newer,
            mru: vec![0; sets],
            sig_count,
            payloads: vec![P::default(); n],
        }
    }

    #[inline(always)]
    fn find(&self, set: usize, tag: u64) -> Option<usize> {
        let sig = signature(tag);
        if self
            .sig_count
            .as_ref()
            .is_some_and(|c| c[sig as usize] == 0)
        {
            return None;
        }
        let base = set * self.ways;
        let tags = &self.tags[base..base + self.ways];
        let mru = self.mru[set] as usize;
        if tags.get(mru) == Some(&tag) {
            return Some(mru);
        }
        let want = u64::from(sig) * BYTES_ONE;
        let sigs = &self.sigs[set * self.sig_stride..(set + 1) * self.sig_stride];
        for (k, word) in sigs.chunks_exact(8).enumerate() {
            let mut m = zero_bytes(u64::from_le_bytes(word.try_into().expect("8 bytes")) ^ want);
            while m != 0 {
                let way = k * 8 + (m.trailing_zeros() / 8) as usize;
                if tags.get(way) == Some(&tag) {
                    return Some(way);
                }
                m &= m - 1;
            }
        }
        None
    }

    #[inline(always)]
    fn lru(&self, set: usize) -> usize {
        self.newer[set * self.ways + self.mru[set] as usize] as usize
    }

    /// [`Ways::lookup`]; out of line, as these sizes are rare, to keep
    /// the translation path of the usual ones small.
    #[inline(never)]
    fn lookup(&mut self, set: usize, tag: u64) -> Option<P> {
        let way = self.find(set, tag)?;
        self.relink(set, way, true);
        Some(self.payloads[set * self.ways + way])
    }

    /// [`Ways::insert_absent`]; out of line as [`Large::lookup`].
    #[inline(never)]
    fn insert_absent(&mut self, set: usize, tag: u64, payload: P) {
        debug_assert!(self.find(set, tag).is_none());
        let way = self.fill_lru(set, tag);
        self.payloads[set * self.ways + way] = payload;
    }

    /// Puts `tag` in the least recently used way of `set`, which becomes the
    /// most recent (the list turns by one); returns that way.
    #[inline(always)]
    fn fill_lru(&mut self, set: usize, tag: u64) -> usize {
        let way = self.lru(set);
        self.set_tag(set, way, tag);
        self.mru[set] = way as u32;
        way
    }

    /// Moves `way` of `set` between the least and the most recent ways: it
    /// becomes most recent if `mru`, else least recent.
    #[inline(always)]
    fn relink(&mut self, set: usize, way: usize, mru: bool) {
        let base = set * self.ways;
        let head = self.mru[set] as usize;
        let tail = self.newer[base + head] as usize;
        if way == head {
            if !mru {
                self.mru[set] = self.older[base + way];
            }
            return;
        }
        if way != tail {
            let (o, n) = (self.older[base + way], self.newer[base + way]);
            self.newer[base + o as usize] = n;
            self.older[base + n as usize] = o;
            self.older[base + way] = head as u32;
            self.newer[base + way] = tail as u32;
            self.newer[base + head] = way as u32;
            self.older[base + tail] = way as u32;
        }
        if mru {
            self.mru[set] = way as u32;
        }
    }

    #[inline(always)]
    fn set_tag(&mut self, set: usize, way: usize, tag: u64) {
        self.tags[set * self.ways + way] = tag;
        let sig = signature(tag);
        let old = std::mem::replace(&mut self.sigs[set * self.sig_stride + way], sig);
        if let Some(c) = self.sig_count.as_mut() {
            c[old as usize] -= 1;
            c[sig as usize] += 1;
        }
    }
}

/// The most ways of an [`Assoc`] set.
const ASSOC_WAYS: usize = 64;

/// A single set of 17 to 64 ways (a paging-structure cache of the usual
/// size) in fixed-size arrays, so that no access needs a bounds check: a
/// circular list for the recency order and counts of its tags' hash
/// buckets, so most misses cost one load. (1024 buckets, not the 256
/// signatures: with 32 ways, 3% of missing tags share a bucket with one
/// held, rather than 12%, and take the search and its mispredicted branch.)
#[derive(Clone, Debug)]
pub(crate) struct Assoc<P> {
    ways: usize,
    /// Its most recently used way.
    mru: u8,
    /// How many of the `ways` ways hold a tag of each [`bucket`].
    bucket_count: [u8; BUCKETS],
    /// Per way, `signature(tags[w])`; `signature(INVALID)` beyond `ways`.
    sigs: [u8; ASSOC_WAYS],
    /// Per way, the next less recently used way (circular: the least recent
    /// one points at the most recent).
    older: [u8; ASSOC_WAYS],
    /// Per way, the next more recently used way (circular).
    newer: [u8; ASSOC_WAYS],
    /// Per way, its tag (`INVALID` when empty or beyond `ways`).
    tags: [u64; ASSOC_WAYS],
    /// Per way, its payload.
    payloads: [P; ASSOC_WAYS],
}

impl<P: Copy + Default> Assoc<P> {
    fn new(ways: usize) -> Self {
        assert!((1..=ASSOC_WAYS).contains(&ways));
        let mut bucket_count = [0; BUCKETS];
        bucket_count[bucket(INVALID)] = ways as u8;
        Assoc {
            ways,
            mru: 0,
            bucket_count,
            sigs: [signature(INVALID); ASSOC_WAYS],
            older: std::array::from_fn(|w| ((w + 1) % ways) as u8),
            newer: std::array::from_fn(|w| ((w + ways - 1) % ways) as u8),
            tags: [INVALID; ASSOC_WAYS],
            payloads: [P::default(); ASSOC_WAYS],
        }
    }

    #[inline(always)]
    fn find(&self, tag: u64) -> Option<usize> {
        let b = bucket(tag);
        if self.bucket_count[b & (BUCKETS - 1)] == 0 {
            return None;
        }
        let sig = (b >> 2) as u8;
        let mru = self.mru as usize & (ASSOC_WAYS - 1);
        if self.tags[mru] == tag {
            return Some(mru);
        }
        let want = u64::from(sig) * BYTES_ONE;
        for (k, word) in self
            .sigs
            .chunks_exact(8)
            .take(self.ways.div_ceil(8))
            .enumerate()
        {
            let mut m = zero_bytes(u64::from_le_bytes(word.try_into().expect("8 bytes")) ^ want);
            while m != 0 {
                let way = (k * 8 + (m.trailing_zeros() / 8) as usize) & (ASSOC_WAYS - 1);
                if self.tags[way] == tag {
                    return Some(way);
                }
                m &= m - 1;
            }
        }
        None
    }

    #[inline(always)]
    fn lru(&self) -> usize {
        self.newer[self.mru as usize & (ASSOC_WAYS - 1)] as usize & (ASSOC_WAYS - 1)
    }

    /// Puts `tag` in the least recently used way, which becomes the most
    /// recent (the list turns by one); returns that way.
    #[inline(always)]
    fn fill_lru(&mut self, tag: u64) -> usize {
        let way = self.lru();
        self.set_tag(way, tag);
        self.mru = way as u8;
        way
    }

    /// Moves `way` between the least and the most recent ways: it becomes
    /// most recent if `mru`, else least recent.
    #[inline(always)]
    fn relink(&mut self, way: usize, mru: bool) {
        const M: usize = ASSOC_WAYS - 1;
        let way = way & M;
        let head = self.mru as usize & M;
        let tail = self.newer[head] as usize & M;
        if way == head {
            if !mru {
                self.mru = self.older[way];
            }
            return;
        }
        if way != tail {
            let (o, n) = (self.older[way] as usize & M, self.newer[way] as usize & M);
            self.newer[o] = n as u8;
            self.older[n] = o as u8;
            self.older[way] = head as u8;
            self.newer[way] = tail as u8;
            self.newer[head] = way as u8;
            self.older[tail] = way as u8;
        }
        if mru {
            self.mru = way as u8;
        }
    }

    #[inline(always)]
    fn set_tag(&mut self, way: usize, tag: u64) {
        let way = way & (ASSOC_WAYS - 1);
        let old = std::mem::replace(&mut self.tags[way], tag);
        let (old, new) = (bucket(old), bucket(tag));
        self.sigs[way] = (new >> 2) as u8;
        self.bucket_count[old & (BUCKETS - 1)] -= 1;
        self.bucket_count[new & (BUCKETS - 1)] += 1;
    }
}

/// The sets of a [`Ways`] of at most 16 ways per set, borrowed: lookups and
/// fills on them need no match on the representation, and take the tag's
/// signature from the caller, which computes it once for several of them.
pub(crate) struct SmallSets<'a, P> {
    ways: usize,
    /// `4 * (ways - 1)`: the shift of the least recent position (a fill
    /// computes it once per translation, not at every fill).
    lru_shift: u32,
    used: u64,
    sets: &'a mut [Small<P>],
}

impl<P: Copy + Default> SmallSets<'_, P> {
    /// [`Ways::lookup`] (without `recent_first`) of `tag`, whose signature
    /// is `sig`.
    #[inline(always)]
    pub(crate) fn lookup(&mut self, set: usize, tag: u64, sig: u8) -> Option<P> {
        let s = &mut self.sets[set];
        let way = s.find_signed(tag, sig, self.ways, false)?;
        s.touch(way);
        Some(s.payloads[way & 15])
    }

    /// [`Ways::insert_absent`] of `tag`, whose signature is `sig`.
    #[inline(always)]
    pub(crate) fn insert_absent(&mut self, set: usize, tag: u64, sig: u8, payload: P) {
        let s = &mut self.sets[set];
        debug_assert!(s.find(tag, self.ways, false).is_none());
        let way = s.fill_lru_signed(self.lru_shift, self.used, tag, sig);
        s.payloads[way & 15] = payload;
    }
}

/// Sets of ways with true LRU order, each way with a payload.
// A tag byte of its own: telling the representations apart is one compare
// (a niche in a Vec's capacity costs several instructions per operation).
#[derive(Clone, Debug)]
#[repr(u8)]
pub(crate) enum Ways<P> {
    /// At most 16 ways per set.
    Small {
        /// Ways per set.
        ways: usize,
        /// `nibbles_below(ways)`: the recency positions in use.
        used: u64,
        /// The sets.
        sets: Vec<Small<P>>,
    },
    /// One set of 17 to 64 ways.
    Assoc(Box<Assoc<P>>),
    /// More.
    Large(Large<P>),
}

impl<P: Copy + Default> Ways<P> {
    /// `sets` sets of `ways` empty ways each.
    pub(crate) fn new(sets: usize, ways: usize) -> Self {
        if ways <= 16 {
            Ways::Small {
                ways,
                used: nibbles_below(ways as u32),
                sets: vec![Small::new(ways); sets],
            }
        } else if sets == 1 && ways <= ASSOC_WAYS {
            Ways::Assoc(Box::new(Assoc::new(ways)))
        } else {
            Ways::Large(Large::new(sets, ways))
        }
    }

    /// The sets, if they have at most 16 ways each.
    #[inline(always)]
    pub(crate) fn small_sets(&mut self) -> Option<SmallSets<'_, P>> {
        match self {
            Ways::Small { ways, used, sets } => Some(SmallSets {
                ways: *ways,
                // Only TLBs, of at least one way per set, are borrowed so.
                lru_shift: 4 * (*ways as u32 - 1),
                used: *used,
                sets,
            }),
            _ => None,
        }
    }

    /// Ways per set.
    pub(crate) fn ways(&self) -> usize {
        match self {
            Ways::Small { ways, .. } => *ways,
            Ways::Assoc(a) => a.ways,
            Ways::Large(l) => l.ways,
        }
    }

    /// Number of sets.
    pub(crate) fn sets(&self) -> usize {
        match self {
            Ways::Small { sets, .. } => sets.len(),
            Ways::Assoc(_) => 1,
            Ways::Large(l) => l.mru.len(),
        }
    }

    /// The payload of `tag` in `set`, which becomes the most recently used.
    /// With `recent_first` the most recent way is compared before the
    /// signatures (for caches whose hits mostly repeat it). `tag` must not
    /// be `INVALID`.
    #[inline(always)]
    pub(crate) fn lookup(&mut self, set: usize, tag: u64, recent_first: bool) -> Option<P> {
        match self {
            Ways::Small { ways, sets, .. } => {
                let s = &mut sets[set];
                let way = s.find(tag, *ways, recent_first)?;
                s.touch(way);
                Some(s.payloads[way & 15])
            }
            Ways::Assoc(a) => {
                let way = a.find(tag)?;
                a.relink(way, true);
                Some(a.payloads[way & (ASSOC_WAYS - 1)])
            }
            Ways::Large(l) => l.lookup(set, tag),
        }
    }

    /// Puts `tag`, which `set` does not hold (a lookup just missed), with
    /// `payload` in the least recently used way (an empty one if the set has
    /// any), which becomes the most recent.
    #[inline(always)]
    pub(crate) fn insert_absent(&mut self, set: usize, tag: u64, payload: P) {
        match self {
            Ways::Small { ways, used, sets } => {
                let s = &mut sets[set];
                debug_assert!(s.find(tag, *ways, false).is_none());
                let way = s.fill_lru(*ways, *used, tag);
                s.payloads[way & 15] = payload;
            }
            Ways::Assoc(a) => {
                debug_assert!(a.find(tag).is_none());
                let way = a.fill_lru(tag);
                a.payloads[way & (ASSOC_WAYS - 1)] = payload;
            }
            Ways::Large(l) => l.insert_absent(set, tag, payload),
        }
    }

    /// Puts `tag` with `payload` in `set` as most recently used: in place if
    /// the set holds `tag`, else in the least recently used way. Returns the
    /// valid entry with another tag that this evicted.
    pub(crate) fn insert(&mut self, set: usize, tag: u64, payload: P) -> Option<(u64, P)> {
        if let Some(way) = self.find(set, tag) {
            self.touch(set, way);
            *self.payload_mut(set, way) = payload;
            return None;
        }
        let way = self.lru(set);
        let old_tag = self.tag(set, way);
        let old = std::mem::replace(self.payload_mut(set, way), payload);
        let filled = match self {
            Ways::Small { ways, used, sets } => sets[set].fill_lru(*ways, *used, tag),
            Ways::Assoc(a) => a.fill_lru(tag),
            Ways::Large(l) => l.fill_lru(set, tag),
        };
        debug_assert_eq!(filled, way);
        (old_tag != INVALID).then_some((old_tag, old))
    }

    /// Changes the payload of `tag` in `set`, if held, without touching the
    /// recency order.
    pub(crate) fn update(&mut self, set: usize, tag: u64, f: impl FnOnce(&mut P)) {
        match self {
            Ways::Small { ways, sets, .. } => {
                let s = &mut sets[set];
                if let Some(way) = s.find(tag, *ways, false) {
                    f(&mut s.payloads[way & 15]);
                }
            }
            Ways::Assoc(a) => {
                if let Some(way) = a.find(tag) {
                    f(&mut a.payloads[way & (ASSOC_WAYS - 1)]);
                }
            }
            Ways::Large(l) => {
                if let Some(way) = l.find(set, tag) {
                    f(&mut l.payloads[set * l.ways + way]);
                }
            }
        }
    }

    /// Empties the way of `set` that holds `tag`, if any; it becomes the
    /// least recently used, so the valid ways keep their order.
    pub(crate) fn invalidate(&mut self, set: usize, tag: u64) {
        if let Some(way) = self.find(set, tag) {
            self.clear(set, way);
        }
    }

    /// Empties every way whose tag `drop` selects.
    pub(crate) fn invalidate_where(&mut self, drop: impl Fn(u64) -> bool) {
        for set in 0..self.sets() {
            for way in 0..self.ways() {
                let t = self.tag(set, way);
                if t != INVALID && drop(t) {
                    self.clear(set, way);
                }
            }
        }
    }

    /// The way of `set` holding `tag`, if any. `tag` must not be `INVALID`.
    fn find(&self, set: usize, tag: u64) -> Option<usize> {
        match self {
            Ways::Small { ways, sets, .. } => sets[set].find(tag, *ways, false),
            Ways::Assoc(a) => a.find(tag),
            Ways::Large(l) => l.find(set, tag),
        }
    }

    /// Empties `way` of `set`; it becomes the least recently used.
    fn clear(&mut self, set: usize, way: usize) {
        match self {
            Ways::Small { ways, sets, .. } => sets[set].clear(way, *ways),
            Ways::Assoc(a) => {
                a.set_tag(way, INVALID);
                a.relink(way, false);
            }
            Ways::Large(l) => {
                l.set_tag(set, way, INVALID);
                l.relink(set, way, false);
            }
        }
    }

    /// The tag of `way` of `set` (`INVALID` if empty).
    fn tag(&self, set: usize, way: usize) -> u64 {
        match self {
            Ways::Small { sets, .. } => sets[set].tags[way & 15],
            Ways::Assoc(a) => a.tags[way & (ASSOC_WAYS - 1)],
            Ways::Large(l) => l.tags[set * l.ways + way],
        }
    }

    /// The least recently used way of `set` (an empty one if the set has
    /// any: empty ways always come last).
    fn lru(&self, set: usize) -> usize {
        match self {
            Ways::Small { ways, sets, .. } => sets[set].lru(*ways),
            Ways::Assoc(a) => a.lru(),
            Ways::Large(l) => l.lru(set),
        }
    }

    /// Makes `way` of `set` the most recently used.
    fn touch(&mut self, set: usize, way: usize) {
        match self {
            Ways::Small { sets, .. } => sets[set].touch(way),
            Ways::Assoc(a) => a.relink(way, true),
            Ways::Large(l) => l.relink(set, way, true),
        }
    }

    fn payload_mut(&mut self, set: usize, way: usize) -> &mut P {
        match self {
            Ways::Small { sets, .. } => &mut sets[set].payloads[way & 15],
            Ways::Assoc(a) => &mut a.payloads[way & (ASSOC_WAYS - 1)],
            Ways::Large(l) => &mut l.payloads[set * l.ways + way],
        }
    }

    /// Number of valid ways.
    pub(crate) fn len(&self) -> usize {
        let valid = |t: &u64| *t != INVALID;
        match self {
            Ways::Small { sets, .. } => sets
                .iter()
                .map(|s| s.tags.iter().filter(|t| valid(t)).count())
                .sum(),
            Ways::Assoc(a) => a.tags.iter().filter(|t| valid(t)).count(),
            Ways::Large(l) => l.tags.iter().filter(|t| valid(t)).count(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Reads back the recency order of every set (valid tags, most recent
    /// first, each with its payload) and checks that empty ways come last.
    fn check(w: &Ways<u32>, m: &[Vec<(u64, u32)>]) -> Result<(), TestCaseError> {
        for (set, want) in m.iter().enumerate() {
            // Repeatedly take the least recent way of a clone and refresh it.
            let mut c = w.clone();
            let mut seen = Vec::new();
            for _ in 0..c.ways() {
                let way = c.lru(set);
                seen.push((c.tag(set, way), *c.payload_mut(set, way)));
                c.touch(set, way);
            }
            seen.reverse();
            let first_empty = seen
                .iter()
                .position(|&(t, _)| t == INVALID)
                .unwrap_or(seen.len());
            prop_assert!(
                seen[first_empty..].iter().all(|&(t, _)| t == INVALID),
                "empty ways last"
            );
            let valid: Vec<(u64, u32)> = seen.into_iter().filter(|&(t, _)| t != INVALID).collect();
            prop_assert_eq!(&valid, want);
        }
        Ok(())
    }

    proptest! {
        /// Lookups, fills (of absent and present tags), updates and
        /// invalidations keep exactly the recency order and the payloads of
        /// a list per set.
        #[test]
        fn ways_keep_lru_order(
            ways in 1usize..80,
            sets in 1usize..3,
            ops in proptest::collection::vec((0u8..6, 0usize..2, 0u64..100, any::<u32>()), 1..300),
        ) {
            let mut w: Ways<u32> = Ways::new(sets, ways);
            let mut m: Vec<Vec<(u64, u32)>> = vec![Vec::new(); sets];
            for (op, set, tag, payload) in ops {
                let set = set % sets;
                let pos = m[set].iter().position(|&(t, _)| t == tag);
                match op {
                    0 | 1 => {
                        let got = w.lookup(set, tag, op == 1);
                        prop_assert_eq!(got, pos.map(|p| m[set][p].1));
                        if let Some(p) = pos {
                            let e = m[set].remove(p);
                            m[set].insert(0, e);
                        }
                    }
                    2 => {
                        let victim = w.insert(set, tag, payload);
                        let expect = match pos {
                            Some(p) => {
                                m[set].remove(p);
                                None
                            }
                            None if m[set].len() == ways => m[set].pop(),
                            None => None,
                        };
                        m[set].insert(0, (tag, payload));
                        prop_assert_eq!(victim, expect);
                    }
                    3 => if pos.is_none() {
                        w.insert_absent(set, tag, payload);
                        m[set].insert(0, (tag, payload));
                        m[set].truncate(ways);
                    },
                    4 => {
                        w.update(set, tag, |p| *p = payload);
                        if let Some(p) = pos {
                            m[set][p].1 = payload;
                        }
                    }
                    _ => {
                        if tag % 7 == 0 {
                            w.invalidate_where(|t| t % 2 == tag % 2);
                            for s in m.iter_mut() {
                                s.retain(|&(t, _)| t % 2 != tag % 2);
                            }
                        } else {
                            w.invalidate(set, tag);
                            m[set].retain(|&(t, _)| t != tag);
                        }
                    }
                }
                prop_assert_eq!(w.len(), m.iter().map(|s| s.len()).sum::<usize>());
                check(&w, &m)?;
            }
        }
    }
}
