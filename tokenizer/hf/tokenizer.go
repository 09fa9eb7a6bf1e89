package hf

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/tessera-dev/tessera/tokenizer/internal/vocabtab"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Tokenizer is a BPE tokenizer read from a tokenizer.json or a GGUF file.
// It implements tokenizer.Counter and tokenizer.Truncator, and is safe
// for concurrent use.
type Tokenizer struct {
	name   string
	family string
	sum    [sha256.Size]byte

	byteLevel    bool
	vocab        []string        // id -> token as it decodes: raw bytes for byte-level models
	ids          *vocabtab.Table // token bytes -> id, for whole pieces and symbols
	merges       *pairTable
	ignoreMerges bool
	byteFallback bool
	fallback     [256]int32
	unk          int32
	fuseUnk      bool
	ascii        [128]int32 // initial symbol of an ASCII character, -1 if none
	bmpIDs       []int32    // the token of each character of the Basic Multilingual Plane, -1 if none (SentencePiece-style only)
	spaceRepl    string     // what a space decodes from, "▁" for SentencePiece-style models

	norms []normStep
	pre   []preStep

	// SentencePiece-style files whose normalizers only turn spaces into
	// the space mark (and may prepend one) are read with spaces standing
	// for the mark: ids holds each token with its marks as spaces, and
	// the text is not copied to replace them (see useSpaces).
	spaced       bool
	spacePrepend bool   // a space goes before each part
	spaceMark    string // the mark, "▁", which the text turns into spaces

	added       *trie
	addedFirsts []byte         // the bytes the added tokens start with, if there are at most maxAddedFirsts
	special     map[int32]bool // ids of added tokens marked special

	prefix, suffix []int32 // what the post-processor adds around a text

	chatTemplate string
	bosToken     string
	eosToken     string

	classes []uint16 // the character class table the patterns use
	cache   *wordCache
	whole   wholeTokens // which tokens a piece of the same bytes merges into
	chars   *charParts  // where the merge may start from characters' parts (byte-level models)

	// fallbackCuts holds the byte fallback tokens, a bit an id, when no
	// merge holds any of them (see merge); else nil.
	fallbackCuts []uint64
	// byteJoins holds the pairs of bytes some merge joins (byte-level
	// models; see mergeCut), nil if not known.
	byteJoins *[256][4]uint64
	// bytePairs holds the pairs of bytes whose own tokens some merge
	// joins, as byteJoins does (byte-level models), nil if not known.
	bytePairs *[256][4]uint64
	// asciiMerges holds the merges of pairs of ASCII characters
	// (SentencePiece-style models; see mergeASCII), else nil.
	asciiMerges *asciiMerges

	markText     string                   // the space mark as the text model cuts holds it: "▁", or " " when spaced
	spaceRune    rune                     // markText as a rune
	spaceJoins   runeSet                  // characters some token holds right before the space mark
	asciiJoins   [utf8.RuneSelf][2]uint64 // bit b of row a: some token holds the ASCII characters a and b side by side (SentencePiece-style only)
	marked       bool                     // ids marks the short ASCII tokens that merge into themselves (markWhole)
	wordBytes    [256]bool                // ASCII letters that start no added token: model makes no cut inside a run of them
	newlineJoins runeSet                  // characters some token holds right after a newline

	pool *sync.Pool // scratch space of merges, shared by copies

	slowSplits bool // tests: preTokenize makes each Split in a pass of its own (see twoSplits)
	slowWords  bool // tests: splitModel leaves ASCII words to match too (see fastWords), and tries every character (see deadRun)
}

// normStep is one normalizer.
type normStep struct {
	kind     string // "NFC", "Replace", "Prepend"
	old, new string
}

// preStep is one pre-tokenizer.
type preStep struct {
	kind        string // "Split", "SplitString", "Metaspace"
	pat         uint8  // the pattern of a Split (see match)
	first       uint16 // classes every match of pat starts with, 0 if any
	firstASCII  bool   // some ASCII character has a class of first
	firstDigits bool   // the ASCII characters with a class of first are the digits
	lit         string
	behavior    string
	repl        string
	prepend     string // Metaspace: "always", "first" or "never"
	split       bool
}

// Name says which counter made a count: "hf:" and the first 16 hex
// digits of the file's SHA-256, then "/" and the family detected from
// the file ("llama3", "qwen2", "deepseek-v3", "gemma", "mistral-tekken",
// "byte-level-bpe", "sentencepiece-bpe").
func (tk *Tokenizer) Name() string { return tk.name }

// Family returns the model family detected from the file.
func (tk *Tokenizer) Family() string { return tk.family }

// SHA256 returns the hex SHA-256 of the file the tokenizer was read from.
func (tk *Tokenizer) SHA256() string { return hex.EncodeToString(tk.sum[:]) }

// Exact reports true: counts are the model's own tokenizer's.
func (tk *Tokenizer) Exact() bool { return true }

// VocabSize returns the number of ids, added tokens included.
func (tk *Tokenizer) VocabSize() int { return len(tk.vocab) }

// ChatTemplate returns the chat template the file carries (GGUF's
// tokenizer.chat_template, or a tokenizer_config.json read with it), or
// "" if none.
func (tk *Tokenizer) ChatTemplate() string { return tk.chatTemplate }

// BOSToken and EOSToken return the text of the begin- and end-of-sequence
// tokens the file names, or "".
func (tk *Tokenizer) BOSToken() string { return tk.bosToken }

// EOSToken returns the text of the end-of-sequence token, or "".
func (tk *Tokenizer) EOSToken() string { return tk.eosToken }

// SpecialTokens returns the ids the post-processor adds before and after
// a text when special tokens are added (a BOS token for Gemma, for
// example). Count and Encode do not add them; EncodeSpecial does.
func (tk *Tokenizer) SpecialTokens() (prefix, suffix []int) {
	return toInts(tk.prefix), toInts(tk.suffix)
}

func toInts(a []int32) []int {
	out := make([]int, len(a))
	for i, v := range a {
		out[i] = int(v)
	}
	return out
}

func (tk *Tokenizer) state() *mergeState {
	if st, ok := tk.pool.Get().(*mergeState); ok {
		return st
	}
	return &mergeState{}
}

// sink receives the ids of a text's pieces: it counts them, and keeps
// them too when keep is set (Encode). A struct, not a callback, so that
// the count of a piece is an addition where it is found.
type sink struct {
	n    int
	keep bool
	out  []int

	pieces []string // tests: splitModel's pieces, if not nil
}

// add takes the ids of one piece.
func (k *sink) add(ids []int32) {
	k.n += len(ids)
	if k.keep {
		for _, v := range ids {
			k.out = append(k.out, int(v))
		}
	}
}

// one takes a piece of one token.
func (k *sink) one(id int32) {
	k.n++
	if k.keep {
		k.out = append(k.out, int(id))
	}
}

// Count returns the number of tokens of text, without the special tokens
// the post-processor would add (see SpecialTokens). Added tokens written
// in the text, such as "<|im_start|>", count as one token each.
func (tk *Tokenizer) Count(text string) int {
	st := tk.state()
	var k sink
	tk.encode(st, text, &k)
	tk.pool.Put(st)
	return k.n
}

// Encode returns the token ids of text, without the special tokens the
// post-processor would add.
func (tk *Tokenizer) Encode(text string) []int {
	st := tk.state()
	k := sink{keep: true}
	tk.encode(st, text, &k)
	tk.pool.Put(st)
	return k.out
}

// EncodeSpecial returns the token ids of text with the special tokens the
// post-processor adds (as transformers' add_special_tokens=True does).
func (tk *Tokenizer) EncodeSpecial(text string) []int {
	out := toInts(tk.prefix)
	out = append(out, tk.Encode(text)...)
	return append(out, toInts(tk.suffix)...)
}

// encode splits text at added tokens, normalizes, pre-tokenizes and
// merges each part, giving k the ids of each piece.
func (tk *Tokenizer) encode(st *mergeState, text string, k *sink) {
	if tk.spaced && !strings.Contains(text, tk.spaceMark) {
		// Nothing to normalize but the space mark before each part
		// (see spacesApply): the added tokens are found in the pass
		// that cuts the text (Gemma 3, Gemini, Llama 2).
		tk.model(st, text, k, tk.added, tk.spacePrepend)
		return
	}
	if tk.added == nil {
		if text != "" {
			tk.encodePart(st, text, 0, k)
		}
		return
	}
	section, start := 0, 0
	part := func(end int) {
		if start < end {
			tk.encodePart(st, text[start:end], section, k)
			section++
		}
	}
	if firsts := tk.addedFirsts; firsts != nil {
		// The added tokens start with a few bytes: the next of each is
		// found by IndexByte, not byte by byte.
		var next [maxAddedFirsts]int
		for j, b := range firsts {
			next[j] = indexFrom(text, 0, b)
		}
		for {
			i := len(text)
			for j := range firsts {
				i = min(i, next[j])
			}
			if i == len(text) {
				break
			}
			id, n := tk.added.longest(text[i:])
			if n > 0 {
				part(i)
				k.one(id)
				section++
				start = i + n
			}
			after := i + max(n, 1)
			for j, b := range firsts {
				if next[j] < after {
					next[j] = indexFrom(text, after, b)
				}
			}
		}
		part(len(text))
		return
	}
	for i := 0; i < len(text); {
		if !tk.added.first[text[i]] {
			i++
			continue
		}
		id, n := tk.added.longest(text[i:])
		if n == 0 {
			i++
			continue
		}
		part(i)
		k.one(id)
		section++
		i += n
		start = i
	}
	part(len(text))
}

// hasDigit reports whether the eight ASCII bytes of w hold a digit:
// a byte above '0'-1 and below '9'+1 (Sean Eron Anderson's hasbetween,
// exact for bytes below 0x80).
func hasDigit(w uint64) bool {
	const ones = 0x0101010101010101
	const lo, hi = '0' - 1, '9' + 1
	return (ones*(127+hi)-w&(ones*127))&^w&(w&(ones*127)+ones*(127-lo))&(ones*128) != 0
}

// indexFrom returns the index of the first b in s at or after from, or
// len(s).
func indexFrom(s string, from int, b byte) int {
	if j := strings.IndexByte(s[from:], b); j >= 0 {
		return from + j
	}
	return len(s)
}

// encodePart encodes text that holds no added token.
func (tk *Tokenizer) encodePart(st *mergeState, s string, section int, k *sink) {
	if tk.spaced {
		// SentencePiece-style text, where spaces stand for the space
		// mark (see spaced): a text holding the mark itself has it
		// turned into spaces, as the Replace normalizer turns spaces
		// into it.
		if strings.Contains(s, tk.spaceMark) {
			s = strings.ReplaceAll(s, tk.spaceMark, " ")
		}
		tk.model(st, s, k, nil, tk.spacePrepend)
		return
	}
	for _, n := range tk.norms {
		switch n.kind {
		case "NFC":
			// In st's buffer, if normalized: s is not kept past
			// this call (the word cache copies its pieces).
			s = st.nfc.text(s)
		case "Replace":
			if strings.Contains(s, n.old) {
				s = strings.ReplaceAll(s, n.old, n.new)
			}
		case "Prepend":
			s = n.new + s
		}
	}
	if s == "" {
		return
	}
	if len(tk.pre) == 1 && tk.pre[0].kind == "Split" && tk.pre[0].first == 0 {
		// The common case (Llama 3, Qwen, Tekken): one pattern, every
		// piece straight to the model.
		tk.splitModel(st, s, tk.pre[0].pat, k)
		return
	}
	tk.preTokenize(st, s, 0, section, k)
}

// fastWords says how a pattern matches an ASCII word, the commonest
// piece of all, so that splitModel matches it before calling match: an
// ASCII letter of class letter, or a space (or, if lead is not zero, an
// ASCII character of none of lead's classes) before one, and the
// characters of class want after it. The zero value matches nothing.
type fastWords struct{ want, letter, lead uint16 }

func fastWordsOf(p uint8) fastWords {
	switch p {
	case pLlama3, pQwen:
		return fastWords{want: cL, letter: cL}
	case pDeepSeek:
		return fastWords{want: cL | cM, letter: cL}
	case pTekken:
		return fastWords{want: cLower, letter: cLower, lead: cNL | cN | cUpper | cLower}
	}
	return fastWords{}
}

// splitModel splits s with pattern p, whose matches start at every
// character, and merges each piece: split and looked up in one loop, as
// package tokenizer's encoder does.
func (tk *Tokenizer) splitModel(st *mergeState, s string, p uint8, k *sink) {
	t := tk.classes
	ascii := (*[utf8.RuneSelf]uint16)(t)
	fw := fastWordsOf(p)
	if tk.slowWords {
		fw = fastWords{}
	}
	gap := 0
	for i := 0; i < len(s); {
		j := -1
		if b := s[i]; fw.want != 0 && b < utf8.RuneSelf {
			// An ASCII word (see fastWords), written out here: a call
			// would cost a tenth of the time on English prose.
			e := i + 1
			if ascii[b]&fw.letter == 0 {
				e = -1
				if i+1 < len(s) && s[i+1] < utf8.RuneSelf && ascii[s[i+1]]&fw.letter != 0 &&
					(fw.lead == 0 && b == ' ' || fw.lead != 0 && ascii[b]&fw.lead == 0) {
					e = i + 2
				}
			}
			if e > 0 {
				for e < len(s) && s[e] < utf8.RuneSelf && ascii[s[e]]&fw.letter != 0 {
					e++
				}
				if e < len(s) && s[e] >= utf8.RuneSelf {
					e = runOf(t, s, e, fw.want)
				}
				j = e
			}
		}
		if j < 0 {
			j = match(p, t, s, i)
		}
		if j <= i {
			i += widthAt(s, i)
			if p == pDeepSeek && !tk.slowWords {
				i = deadRun(t, s, i)
			}
			continue
		}
		if gap < i {
			tk.model(st, s[gap:i], k, nil, false)
		}
		piece := s[i:j]
		if k.pieces != nil {
			k.pieces = append(k.pieces, strings.Clone(piece)) // piece may be in st's buffer (see nfcScratch.text)
		}
		i, gap = j, j
		// A byte-level piece of one byte is that byte's token; a piece
		// that is a token is that token when the token merges into
		// itself (see modelPiece). This is modelID written out: called
		// here instead, prose counts about a tenth slower.
		if !tk.byteLevel {
			tk.model(st, piece, k, nil, false)
			continue
		}
		whole := uint32(vocabtab.None)
		if len(piece) > 1 {
			// A piece that starts with an ASCII character, mostly a
			// word and its space, is mostly a token: looked up without
			// the presence filter (see vocabtab.Likely).
			id := uint32(vocabtab.None)
			if piece[0] < utf8.RuneSelf {
				id = tk.ids.Likely(piece)
			} else {
				// A piece of one character, most often a mark cut
				// off its letters: its entry holds its ids.
				if len(piece) <= 4 && tk.charPiece(piece, k) {
					continue
				}
				id = tk.ids.ID(piece)
			}
			if id != vocabtab.None {
				if tk.ignoreMerges {
					k.one(int32(id))
					continue
				}
				switch tk.whole.get(id) {
				case wholeYes:
					k.one(int32(id))
					continue
				case wholeUnknown:
					whole = id
				}
			}
		} else {
			k.one(tk.fallback[piece[0]])
			continue
		}
		tk.mergePiece(st, piece, whole, k)
	}
	if gap < len(s) {
		tk.model(st, s[gap:], k, nil, false)
	}
}

// preTokenize applies the pre-tokenizers from step on, and the model to
// each piece.
func (tk *Tokenizer) preTokenize(st *mergeState, s string, step, section int, k *sink) {
	if step == len(tk.pre) {
		if s != "" {
			tk.model(st, s, k, nil, false)
		}
		return
	}
	p := &tk.pre[step]
	switch p.kind {
	case "Split":
		if step+1 == len(tk.pre) && p.first == 0 {
			tk.splitModel(st, s, p.pat, k) // the last step (DeepSeek V3's third)
			return
		}
		if step+1 < len(tk.pre) && !tk.slowSplits && runSplits(p, &tk.pre[step+1]) {
			tk.twoSplits(st, s, step, section, k) // DeepSeek V3's first two
			return
		}
		// The matches of the pattern and the text between them, in
		// order ("Isolated" behaviour). If p.first is not zero, every
		// match starts with a character of one of its classes, and
		// the others are passed over without trying the pattern.
		t := tk.classes
		ascii := (*[utf8.RuneSelf]uint16)(t)
		gap := 0
		for i := 0; i < len(s); {
			if p.first != 0 {
				for i < len(s) {
					if i+8 <= len(s) {
						// Eight ASCII characters, none of which a match
						// starts with.
						if w := vocabtab.Load64(s, i); w&0x8080808080808080 == 0 && (!p.firstASCII || p.firstDigits && !hasDigit(w)) {
							i += 8
							continue
						}
					}
					b := s[i]
					if b < utf8.RuneSelf {
						if ascii[b]&p.first != 0 {
							break
						}
						i++
						continue
					}
					if b < 0xE0 && b >= 0xC2 && i+1 < len(s) && s[i+1]&0xC0 == 0x80 && blockOr[b&0x1F]&p.first == 0 {
						// A character of two bytes, whose block of 64
						// its first byte gives (see blockSkip).
						i += 2
						continue
					}
					if b >= 0xE0 && b < 0xF0 && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 &&
						blockOr[int(b&0x0F)<<6|int(s[i+1]&0x3F)]&p.first == 0 {
						i += 3 // the same for three bytes
						continue
					}
					if b >= 0xF0 && b < 0xF5 && i+3 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 && s[i+3]&0xC0 == 0x80 {
						// The same for four bytes.
						if blk := int(b&0x07)<<12 | int(s[i+1]&0x3F)<<6 | int(s[i+2]&0x3F); blk < len(blockOr) && blockOr[blk]&p.first == 0 {
							i += 4
							continue
						}
					}
					if w := blockSkip(s, i, p.first); w > 0 {
						i += w
						continue
					}
					c, n := classAtSlow(t, s, i)
					if c&p.first != 0 {
						break
					}
					i += n
				}
				if i == len(s) {
					break
				}
			}
			if j := match(p.pat, t, s, i); j > i {
				if gap < i {
					tk.preTokenize(st, s[gap:i], step+1, section, k)
				}
				tk.preTokenize(st, s[i:j], step+1, section, k)
				i, gap = j, j
				continue
			}
			n := widthAt(s, i)
			i += n
		}
		if gap < len(s) {
			tk.preTokenize(st, s[gap:], step+1, section, k)
		}
	case "SplitString":
		splitString(s, p.lit, p.behavior, func(piece string) { tk.preTokenize(st, piece, step+1, section, k) })
	case "Metaspace":
		s = strings.ReplaceAll(s, " ", p.repl)
		if (p.prepend == "always" || p.prepend == "first" && section == 0) && !strings.HasPrefix(s, p.repl) {
			s = p.repl + s
		}
		if !p.split {
			tk.preTokenize(st, s, step+1, section, k)
			return
		}
		splitString(s, p.repl, "MergedWithNext", func(piece string) { tk.preTokenize(st, piece, step+1, section, k) })
	}
}

// runSplits reports whether the Split steps p and q may be made in one
// pass (twoSplits): each matches runs of characters of its first classes
// alone (the digits and CJK splits of DeepSeek V3), and no character
// has a class of both, so that q finds no match inside a match of p.
func runSplits(p, q *preStep) bool {
	runs := func(p *preStep) bool {
		return p.kind == "Split" && p.first != 0 && (p.pat == pDigits3 || p.pat == pCJK)
	}
	return runs(p) && runs(q) && p.first&q.first == 0
}

// twoSplits makes the Split steps step and step+1 (see runSplits) in one
// pass over s, and the steps after them on each piece: it passes over
// the characters of neither's first classes and matches the pattern of
// the class it stops at. The pieces are those of the two passes one
// after the other: the text between two matches of step holds no
// character of its first classes, so step+1's matches in it are the
// ones this pass finds, and a match of step holds none of step+1's.
func (tk *Tokenizer) twoSplits(st *mergeState, s string, step, section int, k *sink) {
	p, q := &tk.pre[step], &tk.pre[step+1]
	t := tk.classes
	first := p.first | q.first
	// Eight ASCII characters at a time, as preTokenize passes them.
	firstASCII := p.firstASCII || q.firstASCII
	firstDigits := (!p.firstASCII || p.firstDigits) && (!q.firstASCII || q.firstDigits)
	gap := 0
	for i := 0; i < len(s); {
		i = passOver(t, s, i, first, firstASCII, firstDigits)
		if i == len(s) {
			break
		}
		c, n := classAt(t, s, i)
		pat := q.pat
		if c&p.first != 0 {
			pat = p.pat
		}
		if j := match(pat, t, s, i); j > i {
			if gap < i {
				tk.preTokenize(st, s[gap:i], step+2, section, k)
			}
			tk.preTokenize(st, s[i:j], step+2, section, k)
			i, gap = j, j
			continue
		}
		i += n
	}
	if gap < len(s) {
		tk.preTokenize(st, s[gap:], step+2, section, k)
	}
}

// passOver returns the index of the first character from i of s that
// has a class of first, or len(s). firstASCII says whether an ASCII
// character may, and firstDigits that those are the digits (see
// preStep).
func passOver(t []uint16, s string, i int, first uint16, firstASCII, firstDigits bool) int {
	ascii := (*[utf8.RuneSelf]uint16)(t)
	for i < len(s) {
		if i+8 <= len(s) {
			if w := vocabtab.Load64(s, i); w&0x8080808080808080 == 0 && (!firstASCII || firstDigits && !hasDigit(w)) {
				i += 8
				continue
			}
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if ascii[b]&first != 0 {
				return i
			}
			i++
			continue
		}
		if b < 0xE0 && b >= 0xC2 && i+1 < len(s) && s[i+1]&0xC0 == 0x80 && blockOr[b&0x1F]&first == 0 {
			i += 2
			continue
		}
		if b >= 0xE0 && b < 0xF0 && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
			if blockOr[int(b&0x0F)<<6|int(s[i+1]&0x3F)]&first == 0 {
				i += 3
				continue
			}
			// A block that holds some: the character's own class,
			// decoded here (Devanagari's digits share the block of
			// its vowel signs).
			if r := rune(b&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F); r >= 0x800 && (r < 0xD800 || r >= 0xE000) {
				if t[r]&first != 0 {
					return i
				}
				i += 3
				continue
			}
		}
		if w := blockSkip(s, i, first); w > 0 {
			i += w
			continue
		}
		c, n := classAtSlow(t, s, i)
		if c&first != 0 {
			return i
		}
		i += n
	}
	return i
}

// splitString splits s at each occurrence of lit with the given
// behaviour ("Isolated", "Removed", "MergedWithPrevious",
// "MergedWithNext" or "Contiguous").
func splitString(s, lit, behavior string, emit func(string)) {
	if lit == "" || !strings.Contains(s, lit) {
		emit(s)
		return
	}
	start := 0 // start of the pending piece
	for i := 0; ; {
		k := strings.Index(s[i:], lit)
		if k < 0 {
			break
		}
		m, e := i+k, i+k+len(lit)
		switch behavior {
		case "Isolated":
			if start < m {
				emit(s[start:m])
			}
			emit(s[m:e])
			start = e
		case "Removed":
			if start < m {
				emit(s[start:m])
			}
			start = e
		case "MergedWithPrevious":
			emit(s[start:e])
			start = e
		case "MergedWithNext":
			if start < m {
				emit(s[start:m])
			}
			start = m
		case "Contiguous":
			if start < m {
				emit(s[start:m])
			}
			for strings.HasPrefix(s[e:], lit) {
				e += len(lit)
			}
			emit(s[m:e])
			start = e
		}
		i = e
	}
	if start < len(s) {
		emit(s[start:])
	}
}

// model runs BPE on one pre-tokenized piece. A SentencePiece-style
// piece (often a whole text, since those models do not pre-tokenize) is
// first cut where no token of the vocabulary spans the cut, which gives
// the same merges (no merge can join symbols across it: the token it
// made would hold the two characters beside the cut) and keeps each
// part short: between two ASCII characters that no token holds side by
// side (asciiJoins), but for two letters (see setWordBytes), after a
// newline that no token holds before the character after it
// (newlineJoins), and before a space mark that no token holds after the
// character before it (spaceJoins). In prose nearly every part is then
// a word and its space mark, a token.
//
// If added is not nil, piece is a whole text that needs no
// normalizing, and added tokens are found in the same pass (see encode).
// If lead is set, a space goes before piece, and before the text after
// each added token (the space mark a Prepend normalizer puts before each
// part; see spacesApply), without copying the text: the first cut part
// is copied with it.
func (tk *Tokenizer) model(st *mergeState, piece string, k *sink, added *trie, lead bool) {
	if tk.byteLevel || tk.spaceRepl == "" {
		tk.modelPiece(st, piece, k)
		return
	}
	// Non-ASCII bytes are passed over without decoding unless they
	// start a space mark.
	mark := tk.markText[0]
	start := 0
	asciiBefore := false // piece[i-1] is an ASCII character of the current part
	for i := 0; i < len(piece); i++ {
		b := piece[i]
		if added != nil && added.first[b] {
			if id, n := added.longest(piece[i:]); n > 0 {
				if start < i {
					tk.modelLead(st, piece[start:i], &lead, k)
				}
				k.one(id)
				i += n - 1
				start, asciiBefore, lead = i+1, false, tk.spacePrepend
				continue
			}
		}
		if b >= utf8.RuneSelf {
			asciiBefore = false
			if b == mark && i > start && strings.HasPrefix(piece[i:], tk.markText) {
				tk.cutBeforeMark(st, piece, &start, i, &lead, k)
			}
			continue
		}
		if asciiBefore {
			if tk.asciiJoins[piece[i-1]][b>>6]&(1<<(b&63)) == 0 {
				if part := piece[start:i]; !lead && len(part) > 1 {
					// Most often a word that is a token: looked up
					// here, without two calls in between, and
					// without the presence filter.
					if tk.marked {
						id := tk.ids.LikelyMarked(part)
						if id-vocabtab.Marked <= vocabtab.MaxID {
							// A token that merges into itself (markWhole).
							k.one(int32(id - vocabtab.Marked))
						} else if id != vocabtab.None && tk.whole.get(id) == wholeYes {
							k.one(int32(id))
						} else {
							tk.modelID(st, part, id, k)
						}
					} else if id := tk.ids.Likely(part); id != vocabtab.None && (tk.ignoreMerges || tk.whole.get(id) == wholeYes) {
						k.one(int32(id))
					} else {
						tk.modelID(st, part, id, k)
					}
				} else {
					tk.modelLead(st, part, &lead, k)
				}
				start = i
			}
		} else if b == mark && i > start {
			// A space standing for the mark, after a character that
			// is not ASCII.
			tk.cutBeforeMark(st, piece, &start, i, &lead, k)
		}
		asciiBefore = true
		if b == '\n' {
			if j := i + 1; j < len(piece) && piece[j] >= utf8.RuneSelf {
				r, _ := utf8.DecodeRuneInString(piece[j:])
				if !tk.newlineJoins.has(r) {
					tk.modelLead(st, piece[start:j], &lead, k)
					start = j
				}
			}
		}
		if !tk.wordBytes[b] {
			// A space (or another ASCII character) before a word
			// whose first letter a token holds after it: that
			// letter's own pass, which would cut nothing, is left
			// out, and the run goes on from it.
			if j := i + 1; j >= len(piece) || !tk.wordBytes[piece[j]] || tk.asciiJoins[b][piece[j]>>6]&(1<<(piece[j]&63)) == 0 {
				continue
			}
			i++
		}
		// The rest of a run of word bytes (a word's letters): not cut
		// inside (see setWordBytes), and none starts an added token.
		for i+1 < len(piece) && tk.wordBytes[piece[i+1]] {
			i++
		}
	}
	if start < len(piece) {
		tk.modelLead(st, piece[start:], &lead, k)
	}
}

// cutBeforeMark cuts piece before the space mark at i (i > *start) unless
// a token holds the character before it and the mark side by side.
func (tk *Tokenizer) cutBeforeMark(st *mergeState, piece string, start *int, i int, lead *bool, k *sink) {
	prev, _ := utf8.DecodeLastRuneInString(piece[:i])
	if prev != '\n' && prev != tk.spaceRune && !tk.spaceJoins.has(prev) {
		tk.modelLead(st, piece[*start:i], lead, k)
		*start = i
	}
}

// modelLead runs the model on part, with a space before it if *lead is
// set, which it then clears (see model).
func (tk *Tokenizer) modelLead(st *mergeState, part string, lead *bool, k *sink) {
	if !*lead {
		tk.modelPiece(st, part, k)
		return
	}
	*lead = false
	st.lead = append(append(st.lead[:0], ' '), part...)
	tk.modelPiece(st, string(st.lead), k)
}

// runeSet is a set of characters: a bit each in the Basic Multilingual
// Plane, a map above.
type runeSet struct {
	bits []uint64
	high map[rune]bool
}

func newRuneSet() runeSet { return runeSet{bits: make([]uint64, bmp/64), high: map[rune]bool{}} }

func (s runeSet) add(r rune) {
	if r >= 0 && r < bmp {
		s.bits[r/64] |= 1 << (r % 64)
	} else {
		s.high[r] = true
	}
}

func (s runeSet) has(r rune) bool {
	if r >= 0 && r < bmp {
		return s.bits[r/64]&(1<<(r%64)) != 0
	}
	return s.high[r]
}

// modelPiece runs BPE on one piece, through the word cache.
func (tk *Tokenizer) modelPiece(st *mergeState, piece string, k *sink) {
	if len(piece) == 1 && !tk.byteLevel && piece[0] < utf8.RuneSelf {
		if id := tk.ascii[piece[0]]; id >= 0 { // an ASCII character's token
			k.one(id)
			return
		}
		if id := tk.fallback[piece[0]]; tk.byteFallback && id >= 0 {
			// One that is no token (a newline for Llama 2): its
			// byte's token, which symbols and merge would give.
			k.one(id)
			return
		}
	}
	id := uint32(vocabtab.None)
	if len(piece) > 1 {
		id = tk.ids.ID(piece)
	}
	tk.modelID(st, piece, id, k)
}

// modelID runs BPE on one piece whose id is id, vocabtab.None if it is
// no token (or is one byte). A piece that is a token is, in most files,
// that token (most words are): looked up before the cache, and not
// cached. With ignore_merges that is the rule; otherwise it holds for
// the tokens whole records (see wholeTokens).
func (tk *Tokenizer) modelID(st *mergeState, piece string, id uint32, k *sink) {
	whole := uint32(vocabtab.None)
	if id != vocabtab.None {
		if tk.ignoreMerges {
			k.one(int32(id))
			return
		}
		switch tk.whole.get(id) {
		case wholeYes:
			k.one(int32(id))
			return
		case wholeUnknown:
			whole = id
		}
	}
	tk.mergePiece(st, piece, whole, k)
}

// mergePiece merges a piece that is not a token known to merge into
// itself; whole is the piece's id if it is a token whose wholeTokens
// entry is still unknown, else vocabtab.None.
func (tk *Tokenizer) mergePiece(st *mergeState, piece string, whole uint32, k *sink) {
	// Pieces of one or two bytes merge in one lookup: cheaper than the
	// cache.
	small := len(piece) <= cacheMaxPiece && len(piece) > 2
	var slot *cacheSlot // piece's slot, if a lookup missed in it
	var gen uint32
	if small && whole == vocabtab.None {
		slot, gen = st.wordSlots().slot(tk.cache, piece)
		if ids, ok := slot.get(gen, piece, st.out[:0]); ok {
			st.out = ids
			k.add(ids)
			return
		}
	}
	var out []int32
	if tk.byteJoins != nil && (len(piece) > cutPiece || len(piece) > 4 && (piece[0] >= 0xF0 || piece[1] >= 0xF0)) {
		out = tk.mergeCut(st, piece, st.out[:0])
	} else {
		ok := false
		if tk.asciiMerges != nil && len(piece) > 3 && len(piece) <= scanLimit &&
			uint(piece[0])-asciiLow < asciiSpan && uint(piece[1])-asciiLow < asciiSpan {
			// Its first two bytes are printable ASCII: most likely
			// a word of them (a text of another script has a space
			// and a letter of its own).
			out, ok = tk.mergeASCII(piece, st.out[:0])
		}
		if !ok {
			st.syms = tk.symbols(st.syms[:0], piece)
			out = tk.merge(st, st.out[:0])
		}
	}
	if tk.unk >= 0 && tk.fuseUnk {
		out = fuse(out, tk.unk)
	}
	st.out = out
	if whole != vocabtab.None {
		tk.whole.set(whole, len(out) == 1 && uint32(out[0]) == whole)
		if len(out) == 1 {
			k.add(out)
			return
		}
	}
	if slot != nil {
		slot.store(gen, piece, out)
	} else if small {
		st.wordSlots().put(tk.cache, piece, out)
	}
	k.add(out)
}

// cutPiece is the length above which a byte-level piece is cut where no
// merge joins two bytes (see mergeCut).
const cutPiece = scanLimit

// mergeCut merges a byte-level piece in parts, cut between each two
// bytes that no merge joins (byteJoins): no merge can join symbols across
// such a cut, so each part merges as it would inside the piece. The
// parts are merged as pieces of their own, whose ends have no neighbour.
// In text of rare characters (the random text) most bytes are then parts
// of a byte or a few, instead of a piece of thousands merged with a heap.
func (tk *Tokenizer) mergeCut(st *mergeState, piece string, dst []int32) []int32 {
	j := tk.byteJoins
	start := 0
	for i := 1; i < len(piece); i++ {
		a, b := piece[i-1], piece[i]
		if j[a][b>>6]&(1<<(b&63)) != 0 {
			continue
		}
		if i-start == 1 {
			dst = append(dst, tk.fallback[a])
		} else {
			dst = tk.mergePart(st, piece[start:i], dst)
		}
		start = i
	}
	if len(piece)-start == 1 {
		return append(dst, tk.fallback[piece[start]])
	}
	return tk.mergePart(st, piece[start:], dst)
}

// mergePart merges a part that mergeCut cut (two bytes or more), which
// has no neighbour on either side. A part that is one character of the
// first two planes (an emoji between others) merges into the parts its
// entry holds (see charParts), or into its bytes if they merge with
// nothing, without a lookup.
func (tk *Tokenizer) mergePart(st *mergeState, part string, dst []int32) []int32 {
	if c := tk.chars; c != nil && part[0] >= 0xC2 {
		if r, n := utf8.DecodeRuneInString(part); n == len(part) && r < charPoints {
			e := c.entries[r].Load()
			if e == 0 {
				e = tk.charEntry(part)
				c.entries[r].Store(e)
			}
			switch {
			case e>>charCount&3 == 1:
				return append(dst, int32(e&0xFFFFFF))
			case e>>charCount&3 == 2:
				return append(dst, int32(e&0xFFFFFF), int32(e>>24&0xFFFFFF))
			case e&charAlone != 0:
				for i := 0; i < n; i++ {
					dst = append(dst, tk.fallback[part[i]])
				}
				return dst
			}
		}
	}
	if len(part) <= 3 && tk.bytePairs != nil && part[0] < 0xC2 && part[1] < 0xC2 && part[len(part)-1] < 0xC2 {
		if out, ok := tk.mergeBytes(part, dst); ok {
			return out
		}
	}
	st.syms = tk.symbols(st.syms[:0], part)
	return tk.mergeRun(st, st.syms, dst)
}

// mergeBytes merges a part of two or three bytes none of which leads a
// character, whose symbols are its bytes' tokens, looking up only the
// pairs bytePairs holds: the continuation bytes of rare characters,
// which mostly merge with nothing. It reports false if both pairs of
// three bytes merge (then mergeRun decides).
func (tk *Tokenizer) mergeBytes(part string, dst []int32) ([]int32, bool) {
	p := tk.bytePairs
	fb := &tk.fallback
	a, b := part[0], part[1]
	l := p[a][b>>6]&(1<<(b&63)) != 0
	if len(part) == 2 {
		if l {
			if v, ok := tk.merges.get(pairKey(fb[a], fb[b])); ok {
				return append(dst, int32(uint32(v))), true
			}
		}
		return append(dst, fb[a], fb[b]), true
	}
	c := part[2]
	r := p[b][c>>6]&(1<<(c&63)) != 0
	switch {
	case l && r:
		return dst, false
	case l:
		v, ok := tk.merges.get(pairKey(fb[a], fb[b]))
		if !ok {
			return dst, false
		}
		m := int32(uint32(v))
		if v, ok := tk.merges.get(pairKey(m, fb[c])); ok {
			return append(dst, int32(uint32(v))), true
		}
		return append(dst, m, fb[c]), true
	case r:
		v, ok := tk.merges.get(pairKey(fb[b], fb[c]))
		if !ok {
			return dst, false
		}
		m := int32(uint32(v))
		if v, ok := tk.merges.get(pairKey(fb[a], m)); ok {
			return append(dst, int32(uint32(v))), true
		}
		return append(dst, fb[a], m), true
	}
	return append(dst, fb[a], fb[b], fb[c]), true
}

// markWholeMax is the largest vocabulary markWhole runs for at load.
const markWholeMax = 1 << 16

// markWhole finds at load what wholeTokens would record for each token
// of three to eight ASCII bytes, and marks in ids those a piece of the
// same bytes merges into: model takes such a word, most words of prose,
// in the one lookup, without waiting on it to read whole. It is run for
// SentencePiece-style vocabularies of at most markWholeMax tokens, where
// it costs a few milliseconds (it marks 21,060 of Llama 2's 32,000).
func (tk *Tokenizer) markWhole() {
	// The scratch space goes to the pool after: the word cache that
	// tokens merging into several store in it is the one the first
	// count would allocate.
	st := tk.state()
	defer tk.pool.Put(st)
	tk.marked = true
	var k sink
	tk.ids.MarkShort(func(id uint32, tok string) bool {
		for i := 0; i < len(tok); i++ {
			if tok[i] >= utf8.RuneSelf {
				return false
			}
		}
		if tk.whole.get(id) == wholeUnknown {
			tk.mergePiece(st, tok, id, &k)
		}
		return tk.whole.get(id) == wholeYes
	})
}

// wholeTokens records, two bits a token, whether a piece that holds
// exactly a token's bytes merges into that token: unknown until such a
// piece is first merged, then yes or no for good. It is a property of the
// vocabulary and its merges, not of any text (almost every token merges
// into itself: 99.98% of Qwen 3's, 97.5% of Gemma 3's), found as text
// meets each token instead of for all of them at load, which would take
// 30 to 250 ms. Its memory is bounded by the vocabulary: 64 KiB for
// 262,144 tokens.
type wholeTokens []atomic.Uint32

const (
	wholeUnknown = 0
	wholeYes     = 1
	wholeNo      = 2
)

func newWholeTokens(n int) wholeTokens { return make(wholeTokens, (n+15)/16) }

func (w wholeTokens) get(id uint32) uint32 {
	return w[id/16].Load() >> (id % 16 * 2) & 3
}

func (w wholeTokens) set(id uint32, yes bool) {
	v := uint32(wholeNo)
	if yes {
		v = wholeYes
	}
	w[id/16].Or(v << (id % 16 * 2))
}

// symbols appends the initial symbols of piece to syms: its bytes' tokens
// for a byte-level model, else its characters' tokens (or their byte
// fallbacks, or the unknown token).
func (tk *Tokenizer) symbols(syms []int32, piece string) []int32 {
	if tk.byteLevel {
		i := 0
		if len(piece) > 2 && piece[0] == ' ' && piece[1] >= utf8.RuneSelf {
			if r, n := utf8.DecodeRuneInString(piece[1:]); n > 1 {
				var ok bool
				if syms, ok = tk.appendSpaced(syms, r, piece, n); ok {
					i = 1 + n
				}
			}
		}
		for i < len(piece) {
			b := piece[i]
			// Only a leading byte may start a character: a
			// continuation byte (or 0xC0, 0xC1) is its own symbol
			// without decoding, as utf8 would give it.
			if b >= 0xC2 {
				var r rune
				var n int
				if b >= 0xE0 && b < 0xF0 && i+2 < len(piece) && piece[i+1]&0xC0 == 0x80 && piece[i+2]&0xC0 == 0x80 {
					// Three bytes (most scripts), decoded here: a
					// character unless overlong or a surrogate.
					r, n = rune(b&0x0F)<<12|rune(piece[i+1]&0x3F)<<6|rune(piece[i+2]&0x3F), 3
					if r < 0x800 || r >= 0xD800 && r < 0xE000 {
						r, n = utf8.RuneError, 1
					}
				} else {
					r, n = utf8.DecodeRuneInString(piece[i:])
				}
				if n > 1 {
					var ok bool
					if syms, ok = tk.appendChar(syms, r, piece, i, n); ok {
						i += n
						continue
					}
					if n == 3 {
						if syms, ok = tk.firstMerge(syms, r, piece, i); ok {
							i += n
							continue
						}
					}
					// Its bytes, each a symbol.
					for _, c := range []byte(piece[i : i+n]) {
						syms = append(syms, tk.fallback[c])
					}
					i += n
					continue
				}
			}
			syms = append(syms, tk.fallback[b])
			i++
		}
	} else {
		for i := 0; i < len(piece); {
			b := piece[i]
			if b < utf8.RuneSelf {
				if id := tk.ascii[b]; id >= 0 {
					syms = append(syms, id)
				} else {
					syms = tk.unknown(syms, piece[i:i+1])
				}
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(piece[i:])
			if r < bmp && n > 1 {
				if id := tk.bmpIDs[r]; id >= 0 {
					syms = append(syms, id)
				} else {
					syms = tk.unknown(syms, piece[i:i+n])
				}
			} else if id := tk.ids.ID(piece[i : i+n]); id != vocabtab.None {
				syms = append(syms, int32(id))
			} else {
				syms = tk.unknown(syms, piece[i:i+n])
			}
			i += n
		}
	}
	return syms
}

// bmp bounds the characters bmpIDs holds.
const bmp = 0x10000

// unknown appends the symbols of a character that is not in the
// vocabulary: its bytes' <0xNN> tokens, or the unknown token.
func (tk *Tokenizer) unknown(syms []int32, ch string) []int32 {
	if tk.byteFallback {
		all := true
		for i := 0; i < len(ch); i++ {
			all = all && tk.fallback[ch[i]] >= 0
		}
		if all {
			for i := 0; i < len(ch); i++ {
				syms = append(syms, tk.fallback[ch[i]])
			}
			return syms
		}
	}
	if tk.unk >= 0 {
		return append(syms, tk.unk)
	}
	return syms
}

// fuse merges runs of the unknown token into one.
func fuse(ids []int32, unk int32) []int32 {
	out := ids[:0]
	for i, v := range ids {
		if v == unk && i > 0 && ids[i-1] == unk {
			continue
		}
		out = append(out, v)
	}
	return out
}

// Decode returns the text of ids. Byte-level tokens give back their bytes,
// <0xNN> tokens their byte, and the SentencePiece space mark a space.
func (tk *Tokenizer) Decode(ids []int) ([]byte, error) {
	var out []byte
	for _, id := range ids {
		if id < 0 || id >= len(tk.vocab) {
			return nil, fmt.Errorf("token id %d is out of range: the vocabulary has %d ids", id, len(tk.vocab))
		}
		out = append(out, tk.decodeToken(int32(id))...)
	}
	return out, nil
}

func (tk *Tokenizer) decodeToken(id int32) string {
	s := tk.vocab[id]
	if tk.byteLevel || tk.special[id] {
		return s
	}
	if len(s) == 6 && strings.HasPrefix(s, "<0x") && s[5] == '>' && tk.byteFallback && tk.fallback[hexByte(s[3:5])] == id {
		return string([]byte{hexByte(s[3:5])})
	}
	if tk.spaceRepl != "" {
		return strings.ReplaceAll(s, tk.spaceRepl, " ")
	}
	return s
}

func hexByte(s string) byte {
	var b byte
	for i := 0; i < 2; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			b = b<<4 | (c - '0')
		case c >= 'A' && c <= 'F':
			b = b<<4 | (c - 'A' + 10)
		case c >= 'a' && c <= 'f':
			b = b<<4 | (c - 'a' + 10)
		}
	}
	return b
}

// Truncate returns the longest prefix of text that holds at most max
// tokens and ends on a character boundary, with its count. The prefix
// is found by binary search over character boundaries, counting each
// candidate, because a BPE merge can join tokens across the cut.
func (tk *Tokenizer) Truncate(text string, max int) (string, int) {
	if max <= 0 {
		return "", 0
	}
	if n := tk.Count(text); n <= max {
		return text, n
	}
	lo, hi := 0, len(text) // count(text[:lo]) <= max < count(text[:hi])
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		for mid > lo && !utf8.RuneStart(text[mid]) {
			mid--
		}
		if mid == lo {
			mid = (lo + hi) / 2
			for mid < hi && !utf8.RuneStart(text[mid]) {
				mid++
			}
			if mid == hi {
				break
			}
		}
		if tk.Count(text[:mid]) <= max {
			lo = mid
		} else {
			hi = mid
		}
	}
	return text[:lo], tk.Count(text[:lo])
}

// errUnsupported builds the error for a tokenizer.json feature Tessera
// does not read.
func errUnsupported(key, got, supported string) error {
	return fmt.Errorf("%s: %s is not supported (supported: %s)", key, got, supported)
}

var errNoModel = errors.New(`tokenizer.json has no "model": is this a Hugging Face tokenizer file?`)
