package hf

import (
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/tessera-dev/tessera/tokenizer/internal/vocabtab"
	"golang.org/x/text/unicode/norm"
)

// Character classes the pre-tokenizer patterns test, one bit each.
const (
	cL     = 1 << iota // \p{L}
	cN                 // \p{N}
	cWS                // \s: the Unicode White_Space property
	cP                 // \p{P}
	cSym               // \p{S}
	cM                 // \p{M}
	cNL                // \r or \n
	cCJK               // [一-龥぀-ゟ゠-ヿ], DeepSeek V3's second split
	cUpper             // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], Tekken's upper-case part of a word
	cLower             // [\p{Ll}\p{Lm}\p{Lo}\p{M}], Tekken's lower-case part of a word
)

// tableLimit is how far the class table reaches; characters above it
// (planes 3 to 16, nearly all unassigned or private) are looked up in
// hiTable, in blocks of 256.
const tableLimit = 0x30000

var (
	classOnce  sync.Once
	classTable []uint16
	jsTable    []uint16
	// blockOr holds, for each block of 64 code points, the classes any
	// of its characters has in either table (see blockSkip).
	blockOr []uint16
	// hiBlock[(r-tableLimit)>>8] is where the classes of r's block of
	// 256 characters start in hiTable; equal blocks are stored once.
	hiBlock []uint32
	hiTable []uint16
	// nfcInert has bit r set for each character of the Basic
	// Multilingual Plane that is in NFC alone and starts a segment: it
	// combines with nothing before it and needs no reordering (combining
	// class 0). A string of such characters is in NFC.
	nfcInert []uint64
	// nfcSupplCheck has bit b set for each block of 64 code points from
	// U+10000 + 64*b that may hold a character that is not inert: one
	// with a mark (unicode.M) or in one of the blocks of characters with
	// canonical decompositions. In the other blocks every character is
	// inert (TestNFCSupplementary checks each against the norm package).
	nfcSupplCheck []uint64
	// nfcInertBlock has bit b set if every character from 64*b to
	// 64*b+63 is inert (see inertSkip).
	nfcInertBlock []uint64
	// nfcQuick holds, for each character of the Basic Multilingual
	// Plane that is not inert (0 for the inert ones, which end a
	// segment), its canonical combining class (bits 0 to 7) and nfcYes if
	// its NFC_Quick_Check property is Yes (neither No nor Maybe), for
	// UAX #15's quick check of the segments that are not inert (see
	// nfcSegments).
	nfcQuick []uint16
	// nfcJoinsMark has bit r set for each character of the Basic
	// Multilingual Plane that a mark of nfcMaybeMark may join: each
	// character with a canonical decomposition, and the first character
	// of the decomposition of each that NFC keeps. Other characters
	// compose with no mark after them (TestNFCMaybeMarks checks each
	// pair against the norm package).
	nfcJoinsMark []uint64
)

// nfcYes marks a character whose NFC_Quick_Check is Yes in nfcQuick.
const nfcYes = 1 << 8

// nfcMaybeMark marks, in nfcQuick, a character of nonzero combining
// class whose NFC_Quick_Check is Maybe, which is in NFC alone and does
// not decompose: a mark that may compose with the character before it,
// such as the Devanagari nukta (U+093C), which composes with three
// letters and is left apart after the others. Right after a character
// that nfcJoinsMark does not hold, it composes with nothing, and
// quickStep passes it.
const nfcMaybeMark = 1 << 9

// maxQuickRun bounds the run of characters of nonzero combining class
// that quickStep passes. The norm package limits such runs to 30 (the
// Stream-Safe Text Format, counting the non-starters of decompositions
// too) and changes a text past that, so long runs are left to it, with a
// wide margin.
const maxQuickRun = 8

// nfcDecomposing are the ranges of characters above the Basic
// Multilingual Plane that are not marks and have a canonical
// decomposition, so are not inert: musical symbols and CJK
// compatibility ideographs.
var nfcDecomposing = [][2]rune{{0x1D100, 0x1D1FF}, {0x2F800, 0x2FA1F}}

// table returns the class table, built on first use from the unicode
// package's range tables (about a millisecond, once per process).
func table() []uint16 {
	classOnce.Do(func() {
		t := make([]uint16, utf8.MaxRune+1)
		set := func(rt *unicode.RangeTable, bit uint16) {
			for _, r := range rt.R16 {
				for c := uint32(r.Lo); c <= uint32(r.Hi); c += uint32(r.Stride) {
					t[c] |= bit
				}
			}
			for _, r := range rt.R32 {
				for c := r.Lo; c <= r.Hi; c += r.Stride {
					t[c] |= bit
				}
			}
		}
		set(unicode.L, cL)
		set(unicode.N, cN)
		set(unicode.White_Space, cWS)
		set(unicode.P, cP)
		set(unicode.S, cSym)
		set(unicode.M, cM)
		for _, rt := range []*unicode.RangeTable{unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M} {
			set(rt, cUpper)
		}
		for _, rt := range []*unicode.RangeTable{unicode.Ll, unicode.Lm, unicode.Lo, unicode.M} {
			set(rt, cLower)
		}
		t['\r'] |= cNL
		t['\n'] |= cNL
		for _, r := range [][2]rune{{0x4E00, 0x9FA5}, {0x3040, 0x309F}, {0x30A0, 0x30FF}} {
			for c := r[0]; c <= r[1]; c++ {
				t[c] |= cCJK
			}
		}
		nfcInert = make([]uint64, bmp/64)
		nfcQuick = make([]uint16, bmp)
		nfcJoinsMark = make([]uint64, bmp/64)
		joins := func(r rune) {
			if r >= 0 && r < bmp {
				nfcJoinsMark[r/64] |= 1 << (r % 64)
			}
		}
		var buf [4]byte
		var dbuf []byte // a character's decomposition
		for r := rune(0); r < bmp; r++ {
			if r >= 0xD800 && r < 0xE000 {
				continue
			}
			n := utf8.EncodeRune(buf[:], r)
			p := norm.NFC.Properties(buf[:n])
			normal := norm.NFC.IsNormal(buf[:n])
			if d := norm.NFD.Properties(buf[:n]).Decomposition(); d != nil {
				// A character that decomposes may be the first of a
				// pair that composes; if NFC keeps it, the first
				// character of its decomposition is the first of the
				// pair that makes it, or of one that makes its first.
				joins(r)
				if normal {
					first, _ := utf8.DecodeRune(d)
					joins(first)
				}
			}
			if p.BoundaryBefore() && normal {
				nfcInert[r/64] |= 1 << (r % 64)
				continue // ends a segment: quickStep never sees it
			}
			// A character alone passes norm's quick check if its
			// NFC_Quick_Check is Yes: norm stops before one that is
			// No or Maybe. Only characters that norm counts as one
			// starter or one non-starter, as their class says, are
			// marked (see quickStep): a character of nonzero class
			// must not decompose, and one of class 0 must decompose,
			// if at all, to a starter first.
			q := uint16(p.CCC())
			dbuf = norm.NFD.Append(dbuf[:0], buf[:n]...)
			_, fn := utf8.DecodeRune(dbuf)
			same := string(dbuf) == string(buf[:n])
			simple := same || q == 0 && norm.NFC.Properties(dbuf[:fn]).CCC() == 0
			if normal && simple && norm.NFC.QuickSpan(buf[:n]) == n {
				q |= nfcYes
			} else if normal && same && q != 0 {
				q |= nfcMaybeMark
			}
			nfcQuick[r] = q
		}
		nfcSupplCheck = make([]uint64, (utf8.MaxRune+1-bmp)/64/64)
		checkBlock := func(r rune) {
			if r >= bmp {
				b := (r - bmp) / 64
				nfcSupplCheck[b/64] |= 1 << (b % 64)
			}
		}
		for _, rg := range unicode.M.R32 {
			for c := rg.Lo; c <= rg.Hi; c += rg.Stride {
				checkBlock(rune(c))
			}
		}
		for _, rg := range nfcDecomposing {
			for c := rg[0]; c <= rg[1]; c += 64 {
				checkBlock(c)
			}
			checkBlock(rg[1])
		}
		nfcInertBlock = make([]uint64, (utf8.MaxRune+1)/64/64)
		for b := range rune((utf8.MaxRune + 1) / 64) {
			all := b < bmp/64 && nfcInert[b] == ^uint64(0) ||
				b >= bmp/64 && nfcSupplCheck[(b-bmp/64)/64]&(1<<((b-bmp/64)%64)) == 0
			if all {
				nfcInertBlock[b/64] |= 1 << (b % 64)
			}
		}
		blocks := map[[256]uint16]uint32{}
		for lo := tableLimit; lo <= utf8.MaxRune; lo += 256 {
			b := [256]uint16(t[lo : lo+256])
			at, ok := blocks[b]
			if !ok {
				at = uint32(len(hiTable))
				blocks[b] = at
				hiTable = append(hiTable, b[:]...)
			}
			hiBlock = append(hiBlock, at)
		}
		t = append([]uint16(nil), t[:tableLimit]...) // the rest is in hiTable
		classTable = t
		// JavaScript's \s, which the transformers.js reference uses:
		// U+FEFF is white space there and U+0085 is not.
		js := append([]uint16(nil), t...)
		js[0xFEFF] |= cWS
		js[0x85] &^= cWS
		jsTable = js
		blockOr = make([]uint16, (utf8.MaxRune+1)/64)
		for r := range rune(utf8.MaxRune + 1) {
			c := hiClassOrTable(t, r) | hiClassOrTable(js, r)
			blockOr[r/64] |= c
		}
	})
	return classTable
}

// hiClassOrTable returns the classes of r from t, or from hiTable above
// it.
func hiClassOrTable(t []uint16, r rune) uint16 {
	if r < tableLimit {
		return t[r]
	}
	return hiClass(r)
}

// blockSkip returns the width of the character at i of s (s[i] >= 0x80)
// when no character of its block of 64 code points, read from its first
// bytes without decoding it, has a class of first, so that no match that
// starts with one of those classes starts there; else 0. Bytes that are
// no valid character are each of no class, so a sequence of a leading
// byte and continuation bytes may be passed over whole whatever it
// decodes to.
func blockSkip(s string, i int, first uint16) int {
	b0 := s[i]
	var blk, w int
	switch {
	case b0 >= 0xC2 && b0 < 0xE0:
		if i+1 >= len(s) || s[i+1]&0xC0 != 0x80 {
			return 0
		}
		blk, w = int(b0&0x1F), 2
	case b0 >= 0xE0 && b0 < 0xF0:
		if i+2 >= len(s) || s[i+1]&0xC0 != 0x80 || s[i+2]&0xC0 != 0x80 {
			return 0
		}
		blk, w = int(b0&0x0F)<<6|int(s[i+1]&0x3F), 3
	case b0 >= 0xF0 && b0 < 0xF5:
		if i+3 >= len(s) || s[i+1]&0xC0 != 0x80 || s[i+2]&0xC0 != 0x80 || s[i+3]&0xC0 != 0x80 {
			return 0
		}
		blk, w = int(b0&0x07)<<12|int(s[i+1]&0x3F)<<6|int(s[i+2]&0x3F), 4
	default:
		return 0
	}
	if blk >= len(blockOr) || blockOr[blk]&first != 0 {
		return 0
	}
	return w
}

// referenceTable returns the class table with JavaScript's \s.
func referenceTable() []uint16 {
	table()
	return jsTable
}

// hiClass returns the class bits of a character above tableLimit.
func hiClass(r rune) uint16 {
	r -= tableLimit
	return hiTable[hiBlock[r>>8]+uint32(r&0xFF)]
}

// classAt returns the class bits and width of the character at i of s;
// an invalid byte is one byte wide with no class (like a control
// character). At the end of s it returns 0, 0.
func classAt(t []uint16, s string, i int) (uint16, int) {
	if i < len(s) && s[i] < utf8.RuneSelf {
		return t[s[i]], 1
	}
	return classAtSlow(t, s, i)
}

// classAtSlow is classAt past ASCII.
func classAtSlow(t []uint16, s string, i int) (uint16, int) {
	if i >= len(s) {
		return 0, 0
	}
	if b := s[i]; b >= 0xE0 && b < 0xF0 && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
		// Three bytes (most scripts of the Basic Multilingual
		// Plane), decoded here: a character unless overlong or a
		// surrogate.
		if r := rune(b&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F); r >= 0x800 && (r < 0xD800 || r >= 0xE000) {
			return t[r], 3
		}
	} else if b >= 0xF0 && b < 0xF5 && i+3 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 && s[i+3]&0xC0 == 0x80 {
		// Four bytes: a character unless overlong or above U+10FFFF.
		if r := rune(b&0x07)<<18 | rune(s[i+1]&0x3F)<<12 | rune(s[i+2]&0x3F)<<6 | rune(s[i+3]&0x3F); r >= 0x10000 && r <= utf8.MaxRune {
			if r < tableLimit {
				return t[r], 4
			}
			return hiClass(r), 4
		}
	}
	r, n := decodeAt(s, i)
	if r == utf8.RuneError && n <= 1 {
		return 0, 1
	}
	if r < tableLimit {
		return t[r], n
	}
	return hiClass(r), n
}

// widthAt returns the width of the character at i of s (i < len(s)),
// as classAt does: an invalid byte is one byte wide.
func widthAt(s string, i int) int {
	if s[i] < utf8.RuneSelf {
		return 1
	}
	_, n := decodeAt(s, i)
	return n
}

// runOf returns the end of the run of characters from i whose class has
// a bit of want.
func runOf(t []uint16, s string, i int, want uint16) int {
	ascii := (*[utf8.RuneSelf]uint16)(t)
	for i < len(s) {
		b := s[i]
		if b < utf8.RuneSelf {
			if ascii[b]&want == 0 {
				return i
			}
			i++
			continue
		}
		if b < 0xE0 && b >= 0xC2 && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			// A character of two bytes, decoded here.
			if t[rune(b&0x1F)<<6|rune(s[i+1]&0x3F)]&want == 0 {
				return i
			}
			i += 2
			continue
		}
		if b >= 0xE0 && b < 0xF0 && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
			// Three bytes: a character unless overlong or a surrogate.
			if r := rune(b&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F); r >= 0x800 && (r < 0xD800 || r >= 0xE000) {
				if t[r]&want == 0 {
					return i
				}
				i += 3
				continue
			}
		}
		c, n := classAtSlow(t, s, i)
		if c&want == 0 {
			break
		}
		i += n
	}
	return i
}

// inertSkip returns the width of the character at i of s (s[i] >= 0x80)
// if it is valid UTF-8 and inert: in the Basic Multilingual Plane, read
// from its bytes; above it, if every character of its block of 64 code
// points is inert, read from its first bytes. Else it returns 0.
func inertSkip(s string, i int) int {
	b0 := s[i]
	var blk, w int
	switch {
	case b0 >= 0xC2 && b0 < 0xE0:
		if i+1 >= len(s) || s[i+1]&0xC0 != 0x80 {
			return 0
		}
		r := int(b0&0x1F)<<6 | int(s[i+1]&0x3F)
		if nfcInert[r/64]&(1<<(r%64)) == 0 {
			return 0
		}
		return 2
	case b0 >= 0xE0 && b0 < 0xF0:
		if i+2 >= len(s) || s[i+1]&0xC0 != 0x80 || s[i+2]&0xC0 != 0x80 ||
			b0 == 0xE0 && s[i+1] < 0xA0 || b0 == 0xED && s[i+1] >= 0xA0 { // overlong, surrogate
			return 0
		}
		r := int(b0&0x0F)<<12 | int(s[i+1]&0x3F)<<6 | int(s[i+2]&0x3F)
		if nfcInert[r/64]&(1<<(r%64)) == 0 {
			return 0
		}
		return 3
	case b0 >= 0xF0 && b0 < 0xF5:
		if i+3 >= len(s) || s[i+1]&0xC0 != 0x80 || s[i+2]&0xC0 != 0x80 || s[i+3]&0xC0 != 0x80 ||
			b0 == 0xF0 && s[i+1] < 0x90 || b0 == 0xF4 && s[i+1] >= 0x90 { // overlong, above U+10FFFF
			return 0
		}
		blk, w = int(b0&0x07)<<12|int(s[i+1]&0x3F)<<6|int(s[i+2]&0x3F), 4
	default:
		return 0
	}
	if nfcInertBlock[blk/64]&(1<<(blk%64)) == 0 {
		return 0
	}
	return w
}

// isInert reports whether r, a character of two bytes or more, is
// inert (see nfcInert), or may not be (above the Basic Multilingual
// Plane, in a block nfcSupplCheck marks).
func isInert(r rune) bool {
	if r < bmp {
		return nfcInert[r/64]&(1<<(r%64)) != 0
	}
	b := (r - bmp) / 64
	return nfcSupplCheck[b/64]&(1<<(b%64)) == 0
}

// nfcScratch is the scratch space of the NFC check, kept by the caller
// (see mergeState): an iterator of the norm package, which normalizes
// without allocating as long as it is reused (norm's AppendString
// allocates on each call), and the bytes it gave.
type nfcScratch struct {
	it  norm.Iter
	buf []byte
	ctx []byte // a segment and what follows it (see normalizeBefore)
	out []byte // the text text returns, for texts up to maxNFCOut
}

// maxNFCOut is the length up to which text normalizes into the
// scratch space's own buffer: longer texts get one of their own, so
// that a scratch space kept in a pool holds no more than this.
const maxNFCOut = 64 << 10

// text returns s in NFC, as toNFC does, without allocating once the
// scratch space's buffer is large enough: a text that is not in NFC
// is normalized into sc.out, and the string returned shares its bytes,
// so it is only good until the next call of text on sc. The caller
// must not keep it, or any part of it, past that.
func (sc *nfcScratch) text(s string) string {
	at := nfcFirst(s, sc)
	if at < 0 {
		return s
	}
	if len(s) > maxNFCOut {
		out, _ := nfcSegments(s, sc, make([]byte, 0, len(s)+len(s)/8), at)
		return string(out)
	}
	if cap(sc.out) < len(s)+len(s)/8 {
		sc.out = make([]byte, 0, len(s)+len(s)/4) // never nil, which would only check
	}
	out, _ := nfcSegments(s, sc, sc.out[:0], at)
	sc.out = out
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// normalize returns w in NFC, in sc's buffer.
func (sc *nfcScratch) normalize(w string) []byte {
	sc.buf = sc.buf[:0]
	sc.it.InitString(norm.NFC, w)
	for !sc.it.Done() {
		sc.buf = append(sc.buf, sc.it.Next()...)
	}
	return sc.buf
}

// normalizeBefore returns w in NFC, in sc's buffer, where w is followed
// in the text by an inert character, not by the text's end: normalized
// with three ASCII bytes after it, which compose with nothing and are
// cut off again, so that a leading byte near w's end is not read as a
// character cut short by the end of the text.
func (sc *nfcScratch) normalizeBefore(w string) []byte {
	sc.ctx = append(append(sc.ctx[:0], w...), "000"...)
	sc.buf = sc.buf[:0]
	sc.it.Init(norm.NFC, sc.ctx)
	for !sc.it.Done() {
		sc.buf = append(sc.buf, sc.it.Next()...)
	}
	return sc.buf[:len(sc.buf)-3]
}

// isNFC reports whether s is in NFC. Text is cut into segments at the
// inert characters (see nfcInert), which combine with nothing before
// them; a segment of inert characters alone is in NFC, and only the
// others, each from the inert character before it, are checked with the
// norm package.
//
// A segment that the norm package's quick check cannot pass is
// normalized in sc (scratch space kept by the caller, nil for none) and
// compared, which, unlike norm's IsNormalString, allocates nothing once
// sc's buffer is large enough.
func isNFC(s string, sc *nfcScratch) bool {
	return nfcFirst(s, sc) < 0
}

// nfcFirst returns the start of the first segment of s (see isNFC) that
// is not in NFC, or -1 if s is in NFC.
func nfcFirst(s string, sc *nfcScratch) int {
	_, bad := nfcSegments(s, sc, nil, 0)
	return bad
}

// toNFC returns s in NFC: the segments (see isNFC) that are not are
// normalized each on its own, which gives what normalizing the whole
// text gives, since no character combines across the inert character
// that starts a segment; the rest is copied as it is.
func toNFC(s string, sc *nfcScratch) string {
	out, bad := nfcSegments(s, sc, make([]byte, 0, len(s)+len(s)/8), 0)
	if bad < 0 {
		return s
	}
	return string(out)
}

// nfcSegments checks the segments of s (see isNFC) from start, which is
// 0 or the start of a segment (as nfcFirst gives it). With out nil it
// stops at the first that is not in NFC; otherwise it appends s to out
// with each such segment normalized, and returns it. It returns too the
// start of the first segment not in NFC, or -1 if there is none.
func nfcSegments(s string, sc *nfcScratch, out []byte, start int) ([]byte, int) {
	if sc == nil {
		sc = new(nfcScratch)
	}
	table()
	bad := len(s) // the first segment not in NFC: len(s) for none yet
	copied := 0   // out holds s[:copied], normalized
	seg := start  // start of the current segment
	for i := start; i < len(s); {
		if i+8 <= len(s) && vocabtab.Load64(s, i)&0x8080808080808080 == 0 {
			seg = i + 7 // eight ASCII characters
			i += 8
			continue
		}
		b := s[i]
		if b < utf8.RuneSelf {
			seg = i
			i++
			continue
		}
		if b >= 0xE0 && b < 0xF0 && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
			// Three bytes, inertSkip's commonest case, without its
			// call: a character unless overlong or a surrogate.
			if r := int(b&0x0F)<<12 | int(s[i+1]&0x3F)<<6 | int(s[i+2]&0x3F); r >= 0x800 && (r < 0xD800 || r >= 0xE000) &&
				nfcInert[r/64]&(1<<(r%64)) != 0 {
				seg = i
				i += 3
				continue
			}
		}
		if w := inertSkip(s, i); w > 0 {
			seg = i
			i += w
			continue
		}
		r, n := decodeAt(s, i)
		if n > 1 && isInert(r) {
			seg = i
			i += n
			continue
		}
		// Up to the next inert character, or the end, with UAX #15's
		// quick check on the way: every character's NFC_Quick_Check
		// Yes, and the nonzero combining classes in order. The
		// segment's first character, inert or the text's first, has
		// nothing before it to order against. A mark that may compose
		// (nfcMaybeMark) passes when the character right before it is
		// known to compose with none (markAlone); prev is that
		// character, -1 if unknown.
		quick := r < bmp && n > 1
		last, run := uint16(0), 0
		if quick {
			prev := rune(-1)
			if seg < i {
				if b := s[seg]; b < utf8.RuneSelf {
					if seg+1 == i {
						prev = rune(b)
					}
				} else if p, pn := decodeAt(s, seg); pn > 1 && seg+pn == i {
					prev = p
				}
			}
			quick, last, run = quickStep(r, prev, 0, 0)
		}
		prev := r
		invalid := n == 1 // the segment holds a byte that is no character
		j := i + n
		for j < len(s) {
			if s[j] < utf8.RuneSelf {
				break
			}
			r, n := decodeAt(s, j)
			if n > 1 && isInert(r) {
				break
			}
			invalid = invalid || n == 1
			if quick {
				quick = r < bmp && n > 1
				if quick {
					quick, last, run = quickStep(r, prev, last, run)
				}
			}
			prev = r
			j += n
		}
		if w := s[seg:j]; invalid {
			// The norm package takes the bytes after a leading byte
			// that the text ends before the character's length as
			// they are, unchecked: a segment that ends inside the
			// text must not be read as the end (see normalizeBefore),
			// and one that ends the text is normalized as norm's
			// String does it, which its Iter does not.
			var nw []byte
			if j < len(s) {
				nw = sc.normalizeBefore(w)
			} else {
				nw = norm.NFC.AppendString(sc.buf[:0], w)
				sc.buf = nw
			}
			if string(nw) != w {
				if out == nil {
					return nil, seg
				}
				bad = min(bad, seg)
				out = append(append(out, s[copied:seg]...), nw...)
				copied = j
			}
		} else if !quick && norm.NFC.QuickSpanString(w) < len(w) {
			if nw := sc.normalize(w); string(nw) != w {
				if out == nil {
					return nil, seg
				}
				bad = min(bad, seg)
				out = append(append(out, s[copied:seg]...), nw...)
				copied = j
			}
		}
		seg, i = j, j
	}
	if bad == len(s) {
		return out, -1
	}
	out = append(out, s[copied:]...)
	return out, bad
}

// quickStep takes the character r (of the Basic Multilingual Plane, not
// inert) into UAX #15's quick check of a segment: prev is the character
// before it (-1 if unknown), last its combining class and run the number
// of characters of nonzero class before it in a row. It reports whether
// the segment may still be in NFC by the check, with the new last and
// run.
func quickStep(r, prev rune, last uint16, run int) (bool, uint16, int) {
	q := nfcQuick[r]
	ccc := q & 0xFF
	if q&nfcYes == 0 && (q&nfcMaybeMark == 0 || last != 0 || !markAlone(prev)) || ccc != 0 && ccc < last {
		return false, 0, 0
	}
	if ccc == 0 {
		return true, 0, 0
	}
	if run++; run > maxQuickRun {
		return false, 0, 0
	}
	return true, ccc, run
}

// markAlone reports whether a mark of nfcMaybeMark right after prev
// composes with nothing: prev is a character of the Basic Multilingual
// Plane that nfcJoinsMark does not hold (-1 for none known).
func markAlone(prev rune) bool {
	return prev >= 0 && prev < bmp && nfcJoinsMark[prev/64]&(1<<(prev%64)) == 0
}

// decodeAt decodes the character at i of s (s[i] >= 0x80) as
// utf8.DecodeRuneInString does, valid characters here and the rest by
// the utf8 package.
func decodeAt(s string, i int) (rune, int) {
	b0 := s[i]
	if b0 >= 0xC2 && b0 < 0xE0 && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
		return rune(b0&0x1F)<<6 | rune(s[i+1]&0x3F), 2
	}
	if b0 >= 0xE0 && b0 < 0xF0 && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
		r := rune(b0&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
		if r >= 0x800 && (r < 0xD800 || r >= 0xE000) { // not overlong, no surrogate
			return r, 3
		}
	}
	if b0 >= 0xF0 && b0 < 0xF5 && i+3 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 && s[i+3]&0xC0 == 0x80 {
		r := rune(b0&0x07)<<18 | rune(s[i+1]&0x3F)<<12 | rune(s[i+2]&0x3F)<<6 | rune(s[i+3]&0x3F)
		if r >= 0x10000 && r <= utf8.MaxRune { // not overlong, not too high
			return r, 4
		}
	}
	return utf8.DecodeRuneInString(s[i:])
}
