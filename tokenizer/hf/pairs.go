package hf

import "math/bits"

// pairTable maps a pair of token ids to its merge (rank<<32 | merged id):
// open addressing with linear probing over one array, so a lookup is
// usually one cache line. It is built once and then only read.
type pairTable struct {
	slots []pairSlot
	shift uint
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
	return t
}

func (t *pairTable) index(key uint64) uint64 {
	return (key * 0x9E3779B97F4A7C15) >> t.shift
}

// put sets key's value, replacing an earlier one.
func (t *pairTable) put(key, val uint64) {
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
