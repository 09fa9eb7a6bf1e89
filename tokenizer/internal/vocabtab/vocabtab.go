// Package vocabtab maps the bytes of a token to its id, for the BPE
// encoders of package tokenizer and its subpackages. Encoders look up
// every word and every pair of adjacent tokens, mostly short strings and
// often absent, so the table is built for that: one- and two-byte strings
// index arrays directly; strings of three to eight bytes are one 64-bit
// word, found by open addressing in slots that hold the word itself, so a
// lookup reads one cache line and compares no bytes; strings of nine to
// sixteen bytes likewise as two words; longer strings are found by a hash
// whose slots hold 32 more bits of it, so only a likely match reads the
// token's bytes. Both hash tables are larger than a
// core's second-level cache, and most lookups miss, so a bit set small
// enough to stay in that cache stands in front of them: a clear bit at a
// string's hash means no token, and the slots are not read. A table is
// filled once and then read without locks.
package vocabtab

import (
	"math"
	"math/bits"
)

// None is what a lookup returns for a string that is no token.
const None = math.MaxUint32

// MaxID bounds the ids a table holds: an id is below 1<<24.
const MaxID = 1<<24 - 1

// Table maps token bytes to ids.
type Table struct {
	One [256]uint32 // id of each byte, or None
	Two []uint32    // id of the two bytes b0 | b1<<8, or None

	short []shortSlot // three to eight bytes
	mid   []midSlot   // nine to sixteen bytes
	long  []longSlot  // seventeen bytes or more
	keys  []string    // id → token bytes, to confirm a long match
	seen  []uint64    // bit h>>seenShift is set if a token hashes to h

	shortShift, midShift, longShift, seenShift uint8
}

// seenBits is the size of the presence filter, 1<<seenBits bits (256 KiB).
// With 195,000 tokens of three bytes or more, about one bit in nine is
// set, so eight misses in nine stop at the filter.
const seenBits = 21

// shortSlot holds a token of three to eight bytes: its bytes in key (the
// first in the lowest byte, zeros after the last) and its id and length
// in val, id | length<<24, with Marked set if MarkShort marked it. An
// empty slot has val emptySlot, zero, which no token's val is (its length
// is at least three).
type shortSlot struct {
	key uint64
	val uint32
}

// midSlot holds a token of nine to sixteen bytes: its first and last
// eight bytes (which overlap below sixteen) and its id and length in
// val, as shortSlot does.
type midSlot struct {
	lo, hi uint64
	val    uint32
}

// longSlot holds a token of seventeen bytes or more: the low half of its hash
// (never zero, so zero marks an empty slot) and its id.
type longSlot struct {
	tag uint32
	id  uint32
}

const emptySlot = 0

// New returns a table of keys, where keys[id] is the token of that id;
// an empty string is no token (an id left unused). The table keeps keys,
// which must not change. It reports false if a token repeats an earlier
// one or keys has more than MaxID+1 entries.
func New(keys []string) (*Table, bool) {
	if len(keys) > MaxID+1 {
		return nil, false
	}
	t := &Table{keys: keys, Two: make([]uint32, 1<<16)}
	for i := range t.One {
		t.One[i] = None
	}
	for i := range t.Two {
		t.Two[i] = None
	}
	nShort, nMid, nLong := 0, 0, 0
	for _, tok := range keys {
		switch {
		case len(tok) > 16:
			nLong++
		case len(tok) > 8:
			nMid++
		case len(tok) > 2:
			nShort++
		}
	}
	// At most half full, so that a miss ends within a few slots.
	sb := max(bits.Len(uint(2*nShort)), 4)
	mb := max(bits.Len(uint(2*nMid)), 4)
	lb := max(bits.Len(uint(2*nLong)), 4)
	t.short = make([]shortSlot, 1<<sb)
	t.mid = make([]midSlot, 1<<mb)
	t.long = make([]longSlot, 1<<lb)
	t.shortShift, t.midShift, t.longShift = uint8(64-sb), uint8(64-mb), uint8(64-lb)
	t.seen = make([]uint64, 1<<seenBits/64)
	t.seenShift = 64 - seenBits
	for r, tok := range keys {
		if tok == "" {
			continue
		}
		if t.ID(tok) != None {
			return nil, false
		}
		switch id := uint32(r); {
		case len(tok) == 1:
			t.One[tok[0]] = id
		case len(tok) == 2:
			t.Two[uint16(tok[0])|uint16(tok[1])<<8] = id
		case len(tok) <= 8:
			k := ShortKey(tok)
			h := shortHash(k, len(tok))
			t.see(h)
			mask := len(t.short) - 1
			for i := int(h >> t.shortShift); ; i = (i + 1) & mask {
				if t.short[i].val == emptySlot {
					t.short[i] = shortSlot{key: k, val: id | uint32(len(tok))<<24}
					break
				}
			}
		case len(tok) <= 16:
			lo, hi := Load64(tok, 0), Load64(tok, len(tok)-8)
			h := midHash(lo, hi, len(tok))
			t.see(h)
			mask := len(t.mid) - 1
			for i := int(h >> t.midShift); ; i = (i + 1) & mask {
				if t.mid[i].val == emptySlot {
					t.mid[i] = midSlot{lo: lo, hi: hi, val: id | uint32(len(tok))<<24}
					break
				}
			}
		default:
			h := longHash(tok)
			t.see(h)
			mask := len(t.long) - 1
			for i := int(h >> t.longShift); ; i = (i + 1) & mask {
				if t.long[i].tag == 0 {
					t.long[i] = longSlot{tag: longTag(h), id: id}
					break
				}
			}
		}
	}
	return t, true
}

// ID returns the id of the token s, or None if s is not a token.
func (t *Table) ID(s string) uint32 {
	switch len(s) {
	case 0:
		return None
	case 1:
		return t.One[s[0]]
	case 2:
		return t.Two[uint16(s[0])|uint16(s[1])<<8]
	}
	if len(s) <= 8 {
		return t.Short(ShortKey(s), len(s))
	}
	if len(s) <= 16 {
		return t.midID(Load64(s, 0), Load64(s, len(s)-8), len(s))
	}
	return t.longID(s)
}

// Likely is ID for strings that are mostly tokens (words that
// pre-tokenizers cut): it reads the slots of three to sixteen bytes
// without the presence filter, whose bit costs a second memory access
// where the lookup mostly hits.
func (t *Table) Likely(s string) uint32 {
	n := len(s)
	switch {
	case n <= 2:
		return t.ID(s)
	case n <= 8:
		k := ShortKey(s)
		mask := len(t.short) - 1
		want := uint32(n) << 24
		for i := int(shortHash(k, n) >> t.shortShift); ; i = (i + 1) & mask {
			sl := &t.short[i]
			if sl.val == emptySlot {
				return None
			}
			if sl.key == k && sl.val&lenBits == want {
				return sl.val & 0xFFFFFF
			}
		}
	case n <= 16:
		lo, hi := Load64(s, 0), Load64(s, n-8)
		mask := len(t.mid) - 1
		want := uint32(n) << 24
		for i := int(midHash(lo, hi, n) >> t.midShift); ; i = (i + 1) & mask {
			sl := &t.mid[i]
			if sl.val == emptySlot {
				return None
			}
			if sl.lo == lo && sl.hi == hi && sl.val&0xFF000000 == want {
				return sl.val & 0xFFFFFF
			}
		}
	}
	return t.longID(s)
}

// Marked is added to the id LikelyMarked returns for a token MarkShort
// marked: such an id v is the token's id v-Marked, and v-Marked <= MaxID
// holds for no other answer.
const Marked = 1 << 30

// lenBits are the bits of a short slot's val that hold the token's
// length; the bit above them is MarkShort's.
const lenBits = 0x3F000000

// MarkShort calls mark with the id and bytes of each token of three to
// eight bytes, and marks each one for which it returns true (see
// LikelyMarked). It must be called before the table is shared.
func (t *Table) MarkShort(mark func(id uint32, tok string) bool) {
	for i := range t.short {
		sl := &t.short[i]
		if sl.val == emptySlot {
			continue
		}
		if id := sl.val & 0xFFFFFF; mark(id, t.keys[id]) {
			sl.val |= Marked
		}
	}
}

// Keys returns the tokens' bytes, indexed by id ("" for an unused id).
// The caller must not change them.
func (t *Table) Keys() []string { return t.keys }

// LikelyMarked is Likely, but the id of a token of three to eight bytes
// that MarkShort marked comes with Marked added. Its probe repeats
// Likely's on purpose: folded into one helper both calls, which every
// word of a count makes, ran 8 to 13 % slower on prose (Llama 2, DeepSeek
// V3; alternate runs against this form).
func (t *Table) LikelyMarked(s string) uint32 {
	n := len(s)
	switch {
	case n <= 2:
		return t.ID(s)
	case n <= 8:
		k := ShortKey(s)
		mask := len(t.short) - 1
		want := uint32(n) << 24
		for i := int(shortHash(k, n) >> t.shortShift); ; i = (i + 1) & mask {
			sl := &t.short[i]
			if sl.val == emptySlot {
				return None
			}
			if sl.key == k && sl.val&lenBits == want {
				return sl.val&0xFFFFFF + sl.val&Marked
			}
		}
	}
	return t.Likely(s)
}

// Span returns the id of piece[i:j], 2 <= j-i, where buf holds the bytes
// of piece followed by at least eight more. It is Short and the long
// lookup in one call, for merge loops.
func (t *Table) Span(buf []byte, piece string, i, j int) uint32 {
	n := j - i
	if n > 8 {
		if n <= 16 {
			return t.midID(Load64b(buf, i), Load64b(buf, j-8), n)
		}
		return t.longID(piece[i:j])
	}
	return t.Short(Load64b(buf, i)&(^uint64(0)>>(64-8*n)), n)
}

// Short returns the id of the token of n bytes (2 to 8) whose bytes are
// k, as ShortKey makes it.
func (t *Table) Short(k uint64, n int) uint32 {
	if n == 2 {
		return t.Two[uint16(k)]
	}
	h := shortHash(k, n)
	if !t.maybe(h) {
		return None
	}
	mask := len(t.short) - 1
	want := uint32(n) << 24
	for i := int(h >> t.shortShift); ; i = (i + 1) & mask {
		s := &t.short[i]
		if s.val == emptySlot {
			return None
		}
		if s.key == k && s.val&lenBits == want {
			return s.val & 0xFFFFFF
		}
	}
}

// midID returns the id of the token of n bytes (9 to 16) whose first
// and last eight bytes are lo and hi.
func (t *Table) midID(lo, hi uint64, n int) uint32 {
	h := midHash(lo, hi, n)
	if !t.maybe(h) {
		return None
	}
	mask := len(t.mid) - 1
	want := uint32(n) << 24
	for i := int(h >> t.midShift); ; i = (i + 1) & mask {
		s := &t.mid[i]
		if s.val == emptySlot {
			return None
		}
		if s.lo == lo && s.hi == hi && s.val&0xFF000000 == want {
			return s.val & 0xFFFFFF
		}
	}
}

func midHash(lo, hi uint64, n int) uint64 {
	h := (lo ^ uint64(n)) * 0xE7037ED1A0B428DB
	h ^= h >> 31
	return (h ^ hi) * 0x9E3779B97F4A7C15
}

func (t *Table) longID(s string) uint32 {
	h := longHash(s)
	if !t.maybe(h) {
		return None
	}
	tag := longTag(h)
	mask := len(t.long) - 1
	for i := int(h >> t.longShift); ; i = (i + 1) & mask {
		l := t.long[i]
		if l.tag == 0 {
			return None
		}
		if l.tag == tag && t.keys[l.id] == s {
			return l.id
		}
	}
}

// see marks hash h as a token's in the presence filter.
func (t *Table) see(h uint64) {
	b := h >> t.seenShift
	t.seen[b>>6] |= 1 << (b & 63)
}

// maybe reports whether a token may hash to h: false means none does.
func (t *Table) maybe(h uint64) bool {
	b := h >> t.seenShift
	return t.seen[b>>6]&(1<<(b&63)) != 0
}

// ShortKey returns the bytes of s (at most eight) as a little-endian
// word, zero above the last.
func ShortKey(s string) uint64 {
	switch n := len(s); {
	case n >= 4:
		lo := uint64(Load32(s, 0))
		hi := uint64(Load32(s, n-4))
		// The two words overlap unless n is 8; the overlapping bytes are
		// the same in both, so or-ing them keeps them.
		return lo | hi<<(8*(n-4))
	case n == 3:
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16
	case n == 2:
		return uint64(s[0]) | uint64(s[1])<<8
	case n == 1:
		return uint64(s[0])
	}
	return 0
}

func shortHash(k uint64, n int) uint64 {
	return (k + uint64(n)) * 0x9E3779B97F4A7C15
}

// longHash hashes a string of seventeen bytes or more, eight at a time.
func longHash(s string) uint64 {
	h := uint64(len(s)) * 0xA0761D6478BD642F
	i := 0
	for ; i+8 < len(s); i += 8 {
		h = (h ^ Load64(s, i)) * 0xE7037ED1A0B428DB
		h ^= h >> 31
	}
	h = (h ^ Load64(s, len(s)-8)) * 0x8EBC6AF09C88C6E3
	return h ^ h>>29
}

// longTag is the part of a long hash a slot keeps: the low 32 bits, which
// the slot index (the high bits) does not use, never zero.
func longTag(h uint64) uint32 {
	return uint32(h) | 1
}

// Load32 returns the four bytes of s at i as a little-endian word.
func Load32(s string, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// Load64 returns the eight bytes of s at i as a little-endian word.
func Load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Load64b is Load64 for a byte slice.
func Load64b(b []byte, i int) uint64 {
	b = b[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
