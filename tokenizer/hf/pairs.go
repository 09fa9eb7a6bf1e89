package hf

import "math/bits"

// pairTable maps a pair of token ids to its merge (rank<<32 | merged id):
// open addressing with linear probing over one array, so a lookup is
// usually one cache line. It is built once and then only read. The array
// is larger than a core's cache (16 MB for Gemma 3's 514,906 merges), and
// most pairs a merge asks about have no merge, so a bit set small enough
// to stay in the second-level cache stands in front of it, as vocabtab's
// does for tokens: a clear bit at a pair's second hash means no merge,
// and the array is not read.
type pairTable struct {
	slots     []pairSlot
	shift     uint
	seen      []uint64
	seenShift uint
}

type pairSlot struct{ key, val uint64 }

// emptyKey marks a free slot; no pair of ids below 2^24 packs to it.
const emptyKey = ^uint64(0)

func newPairTable(n int) *pairTable {
	size := 1 << bits.Len(uint(n+n/2+1)) // load factor at most 2/3
	t := &pairTable{slots: make([]pairSlot, size), shift: uint(64 - bits.Len(uint(size-1)))}
	for i := range t.slots {
		t.slots[i].key = emptyKey
	}
	// About eight bits a merge, between 32 KiB and 512 KiB: one bit in
	// eight set, so seven misses in eight stop at the filter.
	seenBits := min(max(bits.Len(uint(8*n)), 18), 22)
	t.seen = make([]uint64, 1<<seenBits/64)
	t.seenShift = uint(64 - seenBits)
	return t
}

// seenBit returns the filter bit of key, from a hash other than index's.
func (t *pairTable) seenBit(key uint64) uint64 {
	return (key * 0xD6E8FEB86659FD93) >> t.seenShift
}

func (t *pairTable) index(key uint64) uint64 {
	return (key * 0x9E3779B97F4A7C15) >> t.shift
}

// put sets key's value, replacing an earlier one.
func (t *pairTable) put(key, val uint64) {
	b := t.seenBit(key)
	t.seen[b/64] |= 1 << (b % 64)
	mask := uint64(len(t.slots) - 1)
	for i := t.index(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == emptyKey || s.key == key {
			s.key, s.val = key, val
			return
		}
	}
}

// get returns key's value.
func (t *pairTable) get(key uint64) (uint64, bool) {
	if b := t.seenBit(key); t.seen[b/64]&(1<<(b%64)) == 0 {
		return 0, false
	}
	return t.probe(key)
}

// probe is get without the filter: for keys that are more often in the
// table than not, such as the pairs of a word's first symbols, whose
// filter bit would cost a second memory access for nothing.
func (t *pairTable) probe(key uint64) (uint64, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := t.index(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == key {
			return s.val, true
		}
		if s.key == emptyKey {
			return 0, false
		}
	}
}
