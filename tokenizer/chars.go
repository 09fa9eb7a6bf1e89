package tokenizer

import "unicode/utf8"

// Characters merged before the merge.
//
// A character of two or three bytes that is one token costs the merge one
// or two steps to build from its bytes, and text in most scripts is
// little else: in Chinese, two thirds of the merges only rebuild
// characters. The tournament merge can start from such a character whole,
// with the same result as tiktoken's loop from the bytes, when the
// character is safe in its place. Let R be the largest rank among the
// merges that build the character c from its bytes alone, and q the rank
// of each of those merges in turn. c is safe in its place if
//
//   - at each step of building c, every token that ends with c's first
//     part and begins before c, and every token that begins with c's last
//     part and ends after c, has a rank above q; and
//   - every token that ends with the whole of c and begins before it, and
//     every token that begins with c and ends after it, has a rank above R.
//
// Then, from the bytes, c is always built before any of its parts can
// merge with a neighbour: the next step of building c ranks below every
// such pair. And a pair that involves the whole c ranks above every step
// of building it, so that starting from c whole, no merge is made earlier
// than from the bytes, nor any in another order: each merge from the bytes
// is the lowest of the same pairs from c whole. By induction over the
// merges the two end with the same tokens.
//
// Which tokens count as neighbours depends on the bytes beside c, which
// the piece gives; the condition is kept for each class of the byte before
// c and of the byte after it (a continuation byte, a leading byte, an
// ASCII letter, other ASCII), and checked in the piece. A character at
// either end of its piece has no neighbour on that side. The table is
// computed from the vocabulary when it is loaded, and the tests check the
// merge from characters against tiktoken's loop.

// Byte classes for the neighbour conditions.
const (
	byteCont   = iota // 0x80–0xBF
	byteLead          // 0xC0–0xFF
	byteLetter        // ASCII letters
	byteOther         // other ASCII
	byteClasses
)

var byteClass = func() (c [256]uint8) {
	for b := range c {
		switch {
		case b >= 0xC0:
			c[b] = byteLead
		case b >= 0x80:
			c[b] = byteCont
		case 'a' <= b|0x20 && b|0x20 <= 'z':
			c[b] = byteLetter
		default:
			c[b] = byteOther
		}
	}
	return
}()

// A charEntry describes a character of the basic multilingual plane that
// is one token: charValid, its rank in the low charRankBits, and which
// classes of byte may stand before it (bit charLeft+class) and after it
// (bit charRight+class) for it to start whole. Zero means none.
type charEntry = uint32

const (
	charRankBits = 20
	charLeft     = charRankBits
	charRight    = charLeft + byteClasses
	charValid    = 1 << 31
)

// neighbourRanks holds, for a string s of one to four bytes, the lowest
// rank of a token that is longer than s and ends with it (before) or
// begins with it (after), for each class of the byte next to s in that
// token.
type neighbourRanks struct {
	before, after [byteClasses]uint32
}

// charTable returns the table of characters the merge may start whole,
// building it on first use: text in ASCII alone never needs it.
func (t *rankTable) charTable() []charEntry {
	t.charsOnce.Do(func() { t.chars = t.buildChars(t.vocab) })
	return t.chars
}

// buildChars returns the table of characters the merge may start whole,
// indexed by code point (see above), or nil if ranks do not fit an entry.
func (t *rankTable) buildChars(vocab []string) []charEntry {
	if len(vocab) >= 1<<charRankBits {
		return nil // every piece merges from bytes
	}
	// The strings that matter: parts of a character of two or three
	// bytes, and the character itself. A part is a leading byte with the
	// continuation bytes after it (the first part) or continuation bytes
	// alone (the last).
	index := make(map[uint64]int32)
	var nbs []neighbourRanks
	get := func(s string) *neighbourRanks {
		k := packKey(s)
		i, ok := index[k]
		if !ok {
			i = int32(len(nbs))
			index[k] = i
			nbs = append(nbs, noNeighbours)
		}
		return &nbs[i]
	}
	for rank, tok := range vocab {
		if !hasHighByte(tok) {
			continue
		}
		r := uint32(rank)
		for l := 1; l <= 3 && l < len(tok); l++ {
			if s := tok[len(tok)-l:]; s[0] >= 0xC0 && allCont(s[1:]) {
				n := get(s)
				c := byteClass[tok[len(tok)-l-1]]
				n.before[c] = min(n.before[c], r)
			}
			if s := tok[:l]; allCont(s) || (s[0] >= 0xC0 && allCont(s[1:])) {
				n := get(s)
				c := byteClass[tok[l]]
				n.after[c] = min(n.after[c], r)
			}
		}
	}
	lookup := func(s string) *neighbourRanks {
		if i, ok := index[packKey(s)]; ok {
			return &nbs[i]
		}
		return &noNeighbours
	}
	chars := make([]charEntry, 1<<16)
	for rank, tok := range vocab {
		c, k := utf8.DecodeRuneInString(tok)
		if k != len(tok) || k < 2 || k > 3 || c == utf8.RuneError {
			continue
		}
		left, right := uint32(1<<byteClasses-1), uint32(1<<byteClasses-1)
		// Build c from its bytes, tiktoken's way, checking each step.
		var bounds [4]int
		parts := k
		for i := range bounds {
			bounds[i] = i
		}
		most := uint32(0)
		for parts > 1 {
			best, q := -1, uint32(noRank)
			for i := 0; i+1 < parts; i++ {
				if r := t.rank(tok[bounds[i]:bounds[i+2]]); r < q {
					best, q = i, r
				}
			}
			if best < 0 {
				break
			}
			first, last := lookup(tok[:bounds[1]]), lookup(tok[bounds[parts-1]:])
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
		if parts != 1 {
			continue // the bytes do not merge into c
		}
		whole := lookup(tok)
		for cl := range byteClasses {
			if whole.before[cl] <= most {
				left &^= 1 << cl
			}
			if whole.after[cl] <= most {
				right &^= 1 << cl
			}
		}
		chars[c] = charValid | uint32(rank) | left<<charLeft | right<<charRight
	}
	return chars
}

var noNeighbours = neighbourRanks{
	before: [byteClasses]uint32{noRank, noRank, noRank, noRank},
	after:  [byteClasses]uint32{noRank, noRank, noRank, noRank},
}

// packKey packs a string of one to four bytes into a map key.
func packKey(s string) uint64 {
	k := uint64(len(s)) << 32
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

// startChar returns the length of the part that starts at byte i of
// piece (held in buf, n bytes), whose first byte is 0xC2 to 0xEF: the
// character there, if chars says it is one token and safe in its place,
// or else one byte.
func startChar(chars []charEntry, buf []byte, n, i int) int {
	b0 := buf[i]
	b1 := buf[i+1] // buf has zeros past the piece, which fail the checks
	var c rune
	k := 2
	if b0 < 0xE0 {
		c = rune(b0&0x1F)<<6 | rune(b1&0x3F)
	} else {
		k = 3
		c = rune(b0&0x0F)<<12 | rune(b1&0x3F)<<6 | rune(buf[i+2]&0x3F)
		if buf[i+2]&0xC0 != 0x80 || c < 0x800 {
			return 1
		}
	}
	if b1&0xC0 != 0x80 || i+k > n {
		return 1
	}
	e := chars[c]
	if e == 0 {
		return 1
	}
	if i > 0 && e&(1<<(charLeft+uint32(byteClass[buf[i-1]]))) == 0 {
		return 1
	}
	if i+k < n && e&(1<<(charRight+uint32(byteClass[buf[i+k]]))) == 0 {
		return 1
	}
	return k
}
