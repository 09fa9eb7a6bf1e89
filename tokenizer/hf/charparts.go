package hf

import (
	"sync/atomic"

	"github.com/tessera-dev/tessera/tokenizer/internal/byteclass"
)

// Characters merged before the merge (byte-level models).
//
// A character of two to four bytes costs the merge up to three steps to
// build from its bytes, and text in most scripts is little else. As
// package tokenizer does for o200k_base (its chars.go gives the argument
// at length), the merge may start from the parts a character's bytes
// merge into on their own when no merge with a neighbour can come
// between: let R be the highest rank of the merges that build the
// character's parts from its bytes alone. The character is safe if
//
//   - every token built on the way that is not a part and holds the
//     character's first byte merges with nothing on its left, and one
//     that holds the last byte with nothing on its right, at a rank below
//     R; and
//   - the first part merges with nothing on its left, and the last part
//     with nothing on its right, at a rank below R.
//
// Then from the bytes, whatever stands beside the character, the next
// step of building its parts always ranks below any pair with a
// neighbour, so the parts are built before any of them meets one; and
// every merge with a neighbour ranks above every step of building them,
// so from the parts no merge comes earlier or in another order. This
// holds whatever the neighbours are, so it is decided once for each
// character. The lowest rank of a merge of each token with a left and a
// right neighbour comes from the merge list at load (the first listing
// of a pair, at or below its rank, which can only refuse a safe
// character); each character's entry is computed the first time it is
// met, for the first two planes, which hold every living script and the
// emoji. The reference tests check the ids on the whole corpus.

// Which tokens count as neighbours depends on the bytes beside the
// character, which the piece gives: the condition is kept for each class
// of the byte before it and of the byte after it (a continuation byte, a
// leading byte, an ASCII letter, other ASCII), and checked in the piece.
// A character at either end of its piece has no neighbour on that side.

// Byte classes for the neighbour conditions: package byteclass's, shared
// by package tokenizer (chars.go) and tokenizer/hf (charparts.go).
const byteClasses = byteclass.N

// A character's entry: zero until it is computed, then charKnown; if the
// merge may start from its parts with some neighbours, the parts' count
// (1 or 2) at charCount, their ids at bits 0 and 24, and the classes of
// byte that may stand before it (bit charLeft+class) and after it (bit
// charRight+class).
const (
	charKnown = 1 << 63
	charCount = 48
	charLeft  = 52
	charRight = charLeft + byteClasses

	charPoints = 0x20000

	// charAlone marks a character whose bytes merge with nothing when
	// alone (an entry without parts).
	charAlone = 1 << 60

	// charFirst marks a character of three bytes whose first merge
	// alone (of its first two bytes, or with charFirstRight of its last
	// two) may be made before the merge starts, beside any bytes: the
	// two symbols it leaves are where the merge may start when its
	// parts may not (see firstMerge).
	charFirst      = 1 << 50
	charFirstRight = 1 << 51
)

// charParts holds what starting from characters' parts needs.
type charParts struct {
	entries []atomic.Uint64 // by code point
	spaced  []atomic.Uint64 // the same for a space and the character at the start of a piece
	// row[id] is where rows holds the token's lowest ranks, -1 for a
	// token that is not part of a character (one to four bytes, none
	// ASCII).
	row  []int32
	rows []neighbourRanks
}

// neighbourRanks holds the lowest rank of a merge with the token on the
// right of a token whose last byte is of each class (before), and on the
// left of one whose first byte is (after).
type neighbourRanks struct {
	before, after [byteClasses]uint32
}

// newCharParts computes the lowest ranks of the merges of each token that
// may be part of a character. vocab holds the tokens' bytes.
func newCharParts(vocab []string, mergeIDs []uint64) *charParts {
	c := &charParts{entries: make([]atomic.Uint64, charPoints), spaced: make([]atomic.Uint64, charPoints), row: make([]int32, len(vocab))}
	for id, s := range vocab {
		c.row[id] = -1
		if len(s) > 1 && s[0] == ' ' {
			s = s[1:] // a space and part of a character
		}
		if len(s) == 0 || len(s) > 4 {
			continue
		}
		high := true
		for i := 0; i < len(s); i++ {
			high = high && s[i] >= 0x80
		}
		if high {
			c.row[id] = int32(len(c.rows))
			var r neighbourRanks
			for k := range byteClasses {
				r.before[k], r.after[k] = noRank, noRank
			}
			c.rows = append(c.rows, r)
		}
	}
	for r, k := range mergeIDs {
		a, b := uint32(k>>32), uint32(k)
		if int(a) >= len(vocab) || int(b) >= len(vocab) || vocab[a] == "" || vocab[b] == "" {
			continue
		}
		if i := c.row[a]; i >= 0 {
			m := &c.rows[i].after[byteclass.Of[vocab[b][0]]]
			*m = min(*m, uint32(r))
		}
		if i := c.row[b]; i >= 0 {
			m := &c.rows[i].before[byteclass.Of[vocab[a][len(vocab[a])-1]]]
			*m = min(*m, uint32(r))
		}
	}
	return c
}

const noRank = ^uint32(0)

// appendChar appends the parts of the character r (n bytes, n > 1, at
// s[i:]) to syms if the merge may start from them beside the bytes
// around it in s, and reports whether it did.
func (tk *Tokenizer) appendChar(syms []int32, r rune, s string, i, n int) ([]int32, bool) {
	c := tk.chars
	if c == nil || r >= charPoints {
		return syms, false
	}
	e := c.entries[r].Load()
	if e == 0 {
		e = tk.charEntry(s[i : i+n])
		c.entries[r].Store(e)
	}
	if i > 0 && e&(1<<(charLeft+byteclass.Of[s[i-1]])) == 0 ||
		i+n < len(s) && e&(1<<(charRight+byteclass.Of[s[i+n]])) == 0 || e>>charCount&3 == 0 {
		return syms, false
	}
	syms = append(syms, int32(e&0xFFFFFF))
	if e>>charCount&3 == 2 {
		syms = append(syms, int32(e>>24&0xFFFFFF))
	}
	return syms, true
}

// appendSpaced is appendChar for a piece that starts with a space and
// the character r (n bytes): the two are one unit, the argument holds
// for any run of bytes, and with nothing before the unit only its right
// side is checked. The pre-tokenizers start most words this way.
func (tk *Tokenizer) appendSpaced(syms []int32, r rune, s string, n int) ([]int32, bool) {
	c := tk.chars
	if c == nil || r >= charPoints {
		return syms, false
	}
	e := c.spaced[r].Load()
	if e == 0 {
		e = tk.charEntry(s[:1+n])
		c.spaced[r].Store(e)
	}
	if 1+n < len(s) && e&(1<<(charRight+byteclass.Of[s[1+n]])) == 0 || e>>charCount&3 == 0 {
		return syms, false
	}
	syms = append(syms, int32(e&0xFFFFFF))
	if e>>charCount&3 == 2 {
		syms = append(syms, int32(e>>24&0xFFFFFF))
	}
	return syms, true
}

// charEntry computes the entry of the run of bytes s (a character, or a
// space and a character) by merging its bytes alone.
func (tk *Tokenizer) charEntry(s string) uint64 {
	n := len(s)
	type tok struct {
		id     int32
		lo, hi int8
	}
	var cur, seen [10]tok // up to five bytes, and four merges
	m := n
	for i := range n {
		cur[i] = tok{tk.fallback[s[i]], int8(i), int8(i + 1)}
	}
	ns := copy(seen[:], cur[:m])
	top := int64(-1) // the highest rank merged
	for m > 1 {
		at, best := -1, ^uint64(0)
		for i := 0; i+1 < m; i++ {
			if v, ok := tk.merges.get(pairKey(cur[i].id, cur[i+1].id)); ok && v < best {
				at, best = i, v
			}
		}
		if at < 0 {
			break
		}
		top = max(top, int64(best>>32))
		cur[at] = tok{int32(uint32(best)), cur[at].lo, cur[at+1].hi}
		copy(cur[at+1:m-1], cur[at+2:m])
		m--
		seen[ns] = cur[at]
		ns++
	}
	if top < 0 {
		return charKnown | charAlone // nothing to gain
	}
	if m > 2 {
		return charKnown // too many parts to keep
	}
	c := tk.chars
	first, last := cur[0], cur[m-1]
	// The tokens whose left side must rank above top: the first part,
	// and the others that start with the first byte; on the right, the
	// last part and the others that end with the last byte.
	var left, right []int32
	left = append(left, first.id)
	right = append(right, last.id)
	for _, t := range seen[:ns] {
		if t == first || t == last {
			continue
		}
		if t.lo == 0 {
			left = append(left, t.id)
		}
		if int(t.hi) == n {
			right = append(right, t.id)
		}
	}
	e := uint64(charKnown) | uint64(m)<<charCount | uint64(uint32(first.id))
	if m == 2 {
		e |= uint64(uint32(last.id)) << 24
	}
	for k := range byteClasses {
		if c.above(left, top, func(r *neighbourRanks) uint32 { return r.before[k] }) {
			e |= 1 << (charLeft + k)
		}
		if c.above(right, top, func(r *neighbourRanks) uint32 { return r.after[k] }) {
			e |= 1 << (charRight + k)
		}
	}
	const every = (1<<byteClasses-1)<<charLeft | (1<<byteClasses-1)<<charRight
	if n == 3 && s[0] >= 0xE0 && e&every != every {
		e |= tk.firstEntry(s)
	}
	return e
}

// firstEntry returns the charFirst bits of the entry of the character s
// of three bytes: the argument above for the first merge of its bytes
// alone, whose rank is then top, with the tokens on each side of it (a
// byte's, and the token the merge makes when it holds the first or the
// last byte). Where it holds whatever the neighbours, and the parts do
// not, the merge may start from the token it makes and the third byte's
// (Devanagari, whose characters follow each other with tokens across
// them, most of whose parts may not start the merge beside another).
func (tk *Tokenizer) firstEntry(s string) uint64 {
	fb := &tk.fallback
	l, lok := tk.merges.get(pairKey(fb[s[0]], fb[s[1]]))
	r, rok := tk.merges.get(pairKey(fb[s[1]], fb[s[2]]))
	var left, right []int32
	var top int64
	var e uint64
	switch {
	case lok && (!rok || l <= r):
		top = int64(l >> 32)
		left = []int32{fb[s[0]], int32(uint32(l))}
		right = []int32{fb[s[2]]}
		e = charFirst
	case rok:
		top = int64(r >> 32)
		left = []int32{fb[s[0]]}
		right = []int32{fb[s[2]], int32(uint32(r))}
		e = charFirst | charFirstRight
	default:
		return 0
	}
	c := tk.chars
	for k := range byteClasses {
		if !c.above(left, top, func(r *neighbourRanks) uint32 { return r.before[k] }) ||
			!c.above(right, top, func(r *neighbourRanks) uint32 { return r.after[k] }) {
			return 0
		}
	}
	return e
}

// firstMerge appends the two symbols of the character r, s[i:i+3],
// after its first merge when appendChar could not append its parts and
// its entry allows it (see charFirst), and reports whether it did: the
// merge is looked up again, cheaper than keeping its token in the entry.
// A call of its own, so that appendChar, made for every character, calls
// nothing.
func (tk *Tokenizer) firstMerge(syms []int32, r rune, s string, i int) ([]int32, bool) {
	c := tk.chars
	if c == nil || r >= charPoints {
		return syms, false
	}
	e := c.entries[r].Load()
	if e&charFirst == 0 {
		return syms, false
	}
	fb := &tk.fallback
	a, b, d := fb[s[i]], fb[s[i+1]], fb[s[i+2]]
	if e&charFirstRight == 0 {
		if v, ok := tk.merges.get(pairKey(a, b)); ok {
			return append(syms, int32(uint32(v)), d), true
		}
	} else if v, ok := tk.merges.get(pairKey(b, d)); ok {
		return append(syms, a, int32(uint32(v))), true
	}
	return syms, false
}

// above reports whether rank(the ranks of each token) is above top.
func (c *charParts) above(ids []int32, top int64, rank func(*neighbourRanks) uint32) bool {
	for _, id := range ids {
		i := c.row[id]
		if i < 0 || int64(rank(&c.rows[i])) <= top {
			return false
		}
	}
	return true
}

// charPiece gives k the ids of piece if it is one character of the
// first two planes whose bytes merge alone into one or two tokens (its
// entry's parts: the whole merge of a piece with no neighbours), and
// reports whether it did. Without ignore_merges, a piece that is a token
// is merged like any other, so the entry answers for it too; a script
// whose marks the pattern cuts off (Devanagari with Qwen 3's \p{L}+)
// gives pieces of one character by the thousand, each found so without
// the vocabulary's lookup.
func (tk *Tokenizer) charPiece(piece string, k *sink) bool {
	c := tk.chars
	if c == nil || tk.ignoreMerges || len(piece) > 4 || piece[0] < 0xC2 {
		return false
	}
	r, n := decodeAt(piece, 0)
	if n != len(piece) || r >= charPoints {
		return false
	}
	e := c.entries[r].Load()
	if e == 0 {
		e = tk.charEntry(piece)
		c.entries[r].Store(e)
	}
	switch e >> charCount & 3 {
	case 1:
		k.one(int32(e & 0xFFFFFF))
		return true
	case 2:
		k.one(int32(e & 0xFFFFFF))
		k.one(int32(e >> 24 & 0xFFFFFF))
		return true
	}
	return false
}
