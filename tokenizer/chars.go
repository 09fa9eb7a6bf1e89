package tokenizer

import (
	"sync"
	"sync/atomic"

	"github.com/tessera-dev/tessera/tokenizer/internal/byteclass"
)

// Characters merged before the merge.
//
// A character of two to four bytes costs the merge up to three steps to
// build from its bytes, and text in most scripts is little else: in
// Chinese, two thirds of the merges only rebuild characters. The
// tournament merge can start from the parts the character's bytes merge
// into on their own (the character whole, if it is one token), with the
// same result as tiktoken's loop from the bytes, when the character is
// safe in its place. Let the merges that build the character c's parts
// from its bytes alone have the ranks q1, q2, …, and R the largest. c is
// safe in its place if
//
//   - before each of those merges, every token that ends with c's first
//     part and begins before c, and every token that begins with c's last
//     part and ends after c, ranks above that merge; and
//   - once the parts are built, every token that ends with the first part
//     and begins before c, and every token that begins with the last part
//     and ends after c, ranks above R.
//
// Then, from the bytes, c's parts are always built before any of them can
// merge with a neighbour: the next step of building them ranks below
// every such pair. And a pair that involves a built part ranks above
// every step of building them, so that starting from the parts, no merge
// is made earlier than from the bytes, nor any in another order: each
// merge from the bytes is the lowest of the same pairs from the parts.
// Two of c's parts never merge with each other, since the merge from the
// bytes alone stopped with them. By induction over the merges the two
// end with the same tokens.
//
// Which tokens count as neighbours depends on the bytes beside c, which
// the piece gives; the condition is kept for each class of the byte before
// c and of the byte after it (a continuation byte, a leading byte, an
// ASCII letter, other ASCII), and checked in the piece. A character at
// either end of its piece has no neighbour on that side.
//
// Nothing in the argument needs c to be one character: it holds for any
// run of bytes. The pre-tokenizers start most words with a space (" при"),
// and a space before a character at the start of a piece is the other
// unit the merge starts from parts: with nothing before it, only its right
// side is checked.
//
// The lowest ranks of the tokens beside each part are computed from the
// vocabulary on the first piece that is not ASCII (about 8 ms for
// o200k_base), and each character's entry the first time it is met
// (under a microsecond), for the code points of the first two planes,
// which hold every living script and the emoji. The tests check the merge
// from parts against tiktoken's loop.

// Byte classes for the neighbour conditions: package byteclass's, shared
// by package tokenizer (chars.go) and tokenizer/hf (charparts.go).
const byteClasses = byteclass.N

// A character's entry: zero until it is computed, then charKnown, and if
// the merge may start from its parts, charUsable with the classes of byte
// that may stand before it (bit charLeft+class) and after it (bit
// charRight+class), and where its parts begin (bit charSplit+j: a part
// begins j+1 bytes in).
const (
	charLeft   = 0
	charRight  = charLeft + byteClasses
	charSplit  = charRight + byteClasses
	charUsable = 1 << 30
	charKnown  = 1 << 31

	// charPoints is how many code points have entries: the first two
	// planes.
	charPoints = 0x20000
)

// charTable holds the entries of characters, filled as they are met, and
// what computing one needs.
type charTable struct {
	// entries holds the characters' entries, and spaced those of a space
	// and the character, by code point.
	entries, spaced [charPoints]atomic.Uint32
	// beside holds, for each first or last part of a character (and each
	// character whole), by packKey, the lowest ranks of the tokens that
	// extend it, by the class of the byte next to it.
	beside map[uint64]*neighbourRanks
}

// neighbourRanks holds, for a string s of one to five bytes, the lowest
// rank of a token that is longer than s and ends with it (before) or
// begins with it (after), for each class of the byte next to s in that
// token.
type neighbourRanks struct {
	before, after [byteClasses]uint32
}

var noNeighbours = neighbourRanks{
	before: [byteClasses]uint32{noRank, noRank, noRank, noRank},
	after:  [byteClasses]uint32{noRank, noRank, noRank, noRank},
}

// lazyChars builds a rankTable's charTable on first use.
type lazyChars struct {
	once  sync.Once
	table *charTable
}

// charTable returns the table of characters, building what it needs on
// first use: text in ASCII alone never needs it.
func (t *rankTable) charTable() *charTable {
	t.chars.once.Do(func() { t.chars.table = newCharTable(t.vocab) })
	return t.chars.table
}

func newCharTable(vocab []string) *charTable {
	ct := &charTable{beside: make(map[uint64]*neighbourRanks)}
	get := func(s string) *neighbourRanks {
		k := packKey(s)
		r := ct.beside[k]
		if r == nil {
			r = new(neighbourRanks)
			*r = noNeighbours
			ct.beside[k] = r
		}
		return r
	}
	// The strings that matter are the first part of a character (a
	// leading byte and the continuation bytes after it), its last part
	// (continuation bytes, or a leading byte and those after it, after a
	// space or not), and the whole character.
	for rank, tok := range vocab {
		if !hasHighByte(tok) {
			continue
		}
		r := uint32(rank)
		for l := 1; l <= 5 && l < len(tok); l++ {
			if s := tok[len(tok)-l:]; l <= 4 && s[0] >= 0xC0 && allCont(s[1:]) {
				n := get(s)
				c := byteclass.Of[tok[len(tok)-l-1]]
				n.before[c] = min(n.before[c], r)
			}
			if s := tok[:l]; lastPart(s) {
				n := get(s)
				c := byteclass.Of[tok[l]]
				n.after[c] = min(n.after[c], r)
			}
		}
	}
	return ct
}

// lastPart reports whether s may be the last part of a unit: continuation
// bytes, or a leading byte and continuation bytes, after a space or not.
func lastPart(s string) bool {
	if s[0] == ' ' {
		s = s[1:]
	}
	return s != "" && (allCont(s) || s[0] >= 0xC0 && allCont(s[1:]))
}

func (ct *charTable) neighbours(s string) *neighbourRanks {
	if r := ct.beside[packKey(s)]; r != nil {
		return r
	}
	return &noNeighbours
}

// entry returns the entry of the unit enc, the character c or (in
// spaced) a space and c, computing it the first time.
func (ct *charTable) entry(t *rankTable, entries *[charPoints]atomic.Uint32, c rune, enc string) uint32 {
	if e := entries[c].Load(); e != 0 {
		return e
	}
	e := ct.compute(t, enc)
	entries[c].Store(e) // another goroutine may store the same value
	return e
}

// compute returns the entry of the unit whose bytes are enc (two to five):
// merge them alone, tiktoken's way, checking each step (see above).
func (ct *charTable) compute(t *rankTable, enc string) uint32 {
	k := len(enc)
	left, right := uint32(1<<byteClasses-1), uint32(1<<byteClasses-1)
	var bounds [6]int
	parts := k
	for i := range bounds {
		bounds[i] = i
	}
	most := uint32(0)
	for {
		best, q := -1, uint32(noRank)
		for i := 0; i+1 < parts; i++ {
			if r := t.rank(enc[bounds[i]:bounds[i+2]]); r < q {
				best, q = i, r
			}
		}
		if best < 0 {
			break
		}
		first, last := ct.neighbours(enc[:bounds[1]]), ct.neighbours(enc[bounds[parts-1]:])
		for cl := range byteClasses {
			if first.before[cl] <= q {
				left &^= 1 << cl
			}
			if last.after[cl] <= q {
				right &^= 1 << cl
			}
		}
		most = max(most, q)
		copy(bounds[best+1:], bounds[best+2:parts+1])
		parts--
	}
	if parts == k {
		return charKnown // nothing merges: starting from the bytes is the same
	}
	first, last := ct.neighbours(enc[:bounds[1]]), ct.neighbours(enc[bounds[parts-1]:])
	for cl := range byteClasses {
		if first.before[cl] <= most {
			left &^= 1 << cl
		}
		if last.after[cl] <= most {
			right &^= 1 << cl
		}
	}
	split := uint32(0)
	for _, b := range bounds[1:parts] {
		split |= 1 << (b - 1)
	}
	return charKnown | charUsable | left<<charLeft | right<<charRight | split<<charSplit
}

// packKey packs a string of one to seven bytes into a map key.
func packKey(s string) uint64 {
	k := uint64(len(s)) << 56
	for i := range len(s) {
		k |= uint64(s[i]) << (8 * i)
	}
	return k
}

func allCont(s string) bool {
	for i := range len(s) {
		if s[i]&0xC0 != 0x80 {
			return false
		}
	}
	return true
}

// hasHighByte reports whether s has a byte of 0x80 or more.
func hasHighByte(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if load64(s, i)&0x8080808080808080 != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	return false
}

// charAt returns the entry and length of the unit at byte i of piece
// (held in buf with eight zero bytes after its n), whose first byte is a
// space at the piece's start or is 0xC2 or more: the unit's entry if the
// merge may start from its parts there, or zero and one.
func (ct *charTable) charAt(t *rankTable, piece string, buf []byte, n, i int) (uint32, int) {
	entries, pre := &ct.entries, 0
	if buf[i] == ' ' {
		if i != 0 {
			return 0, 1
		}
		entries, pre = &ct.spaced, 1
	}
	j := i + pre
	b0, b1 := buf[j], buf[j+1] // the zeros past the piece fail the checks
	var c rune
	var k int
	switch {
	case b0 < 0xC2:
		return 0, 1
	case b0 < 0xE0:
		k, c = 2, rune(b0&0x1F)<<6|rune(b1&0x3F)
	case b0 < 0xF0:
		k, c = 3, rune(b0&0x0F)<<12|rune(b1&0x3F)<<6|rune(buf[j+2]&0x3F)
		if c < 0x800 || buf[j+2]&0xC0 != 0x80 {
			return 0, 1
		}
	case b0 == 0xF0 && b1 >= 0x90 && b1 <= 0x9F: // U+10000 to U+1FFFF
		k, c = 4, rune(b1&0x3F)<<12|rune(buf[j+2]&0x3F)<<6|rune(buf[j+3]&0x3F)|0x10000
		if buf[j+2]&0xC0 != 0x80 || buf[j+3]&0xC0 != 0x80 {
			return 0, 1
		}
	default:
		return 0, 1
	}
	k += pre
	if b1&0xC0 != 0x80 || i+k > n {
		return 0, 1
	}
	e := ct.entry(t, entries, c, piece[i:i+k])
	if e&charUsable == 0 ||
		i > 0 && e&(1<<(charLeft+uint32(byteclass.Of[buf[i-1]]))) == 0 ||
		i+k < n && e&(1<<(charRight+uint32(byteclass.Of[buf[i+k]]))) == 0 {
		return 0, 1
	}
	return e, k
}
