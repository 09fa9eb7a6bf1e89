package hf

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/tessera-dev/tessera/tokenizer/internal/vocabtab"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"
)

// rawString reads a JSON string and returns its bytes: a slice of the
// input when the string has no escape, else a decoded copy.
func (r *jsonReader) rawString() ([]byte, error) {
	r.space()
	if r.pos >= len(r.data) || r.data[r.pos] != '"' {
		return nil, r.errorf("expected a string")
	}
	start := r.pos + 1
	for i := start; i < len(r.data); i++ {
		switch c := r.data[i]; {
		case c == '"':
			r.pos = i + 1
			return r.data[start:i], nil
		case c == '\\':
			s, err := r.str()
			return []byte(s), err
		case c < 0x20:
			r.pos = i
			return nil, r.errorf("control character in a string")
		}
	}
	return nil, r.errorf("unterminated string")
}

// rawFile holds what the JSON reader pulls out of tokenizer.json.
type rawFile struct {
	// model.vocab, in file order: each token as the file spells it (a
	// slice of the document where it has no escape) and its id. No map
	// is built: the table of token bytes (vocabtab) is the only index.
	vocabTok [][]byte
	vocabIDs []int32
	hasVocab bool
	merges   [][2]string // merges given as strings (GGUF)
	mergeIDs []uint64    // (a, b) pairs in file order
	mergeTo  []int32     // the id of a+b for each pair in mergeIDs
	rawPairs [][2][]byte // merges as read from tokenizer.json
	rest     map[string]any
}

// parseJSON reads a tokenizer.json document.
func parseJSON(data []byte) (*rawFile, error) {
	f := &rawFile{}
	r := &jsonReader{data: data}
	r.hook = func(r *jsonReader, path []string) (bool, error) {
		if len(path) != 2 || path[0] != "model" {
			return false, nil
		}
		switch path[1] {
		case "vocab":
			if r.pos < len(r.data) && r.data[r.pos] != '{' {
				return false, nil // a Unigram vocabulary (an array): refused later
			}
			// Sized from the document (a vocabulary entry and its
			// merges take about a hundred bytes of it).
			n := min(max(len(r.data)/100, 1<<10), 1<<19)
			f.vocabTok, f.vocabIDs, f.hasVocab = make([][]byte, 0, n), make([]int32, 0, n), true
			if err := r.expect('{'); err != nil {
				return false, err
			}
			if r.empty('}') {
				return true, nil
			}
			for {
				k, err := r.rawString()
				if err != nil {
					return false, err
				}
				if err := r.expect(':'); err != nil {
					return false, err
				}
				id, err := r.integer()
				if err != nil {
					return false, fmt.Errorf("model.vocab[%q]: %w", k, err)
				}
				f.vocabTok = append(f.vocabTok, k)
				f.vocabIDs = append(f.vocabIDs, id)
				more, err := r.more('}')
				if err != nil {
					return false, err
				}
				if !more {
					return true, nil
				}
				r.space()
			}
		case "merges":
			if err := r.expect('['); err != nil {
				return false, err
			}
			if r.empty(']') {
				return true, nil
			}
			for {
				var a, b []byte
				r.space()
				if r.pos < len(r.data) && r.data[r.pos] == '[' {
					r.pos++
					var err error
					if a, err = r.rawString(); err != nil {
						return false, err
					}
					if err := r.expect(','); err != nil {
						return false, err
					}
					if b, err = r.rawString(); err != nil {
						return false, err
					}
					if err := r.expect(']'); err != nil {
						return false, err
					}
				} else {
					s, err := r.rawString()
					if err != nil {
						return false, err
					}
					i := strings.IndexByte(string(s), ' ')
					if i < 0 {
						return false, r.errorf("model.merges: %q is not two tokens separated by a space", s)
					}
					a, b = s[:i], s[i+1:]
				}
				if f.rawPairs == nil {
					f.rawPairs = make([][2][]byte, 0, 2*len(f.vocabTok)) // merges are about one or two per token
				}
				f.rawPairs = append(f.rawPairs, [2][]byte{a, b})
				more, err := r.more(']')
				if err != nil {
					return false, err
				}
				if !more {
					return true, nil
				}
			}
		}
		return false, nil
	}
	v, err := r.value(0)
	if err != nil {
		return nil, err
	}
	r.space()
	if r.pos != len(data) {
		return nil, r.errorf("unexpected data after the document")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("tokenizer.json: the document is not a JSON object")
	}
	f.rest = m
	return f, nil
}

// resolveMerges looks up the ids of each merge's parts and result in the
// table of token bytes, in parallel (the lookups are most of a large
// file's load time), and reports the first merge, in file order, that the
// vocabulary lacks. kr turns a token as the file spells it into the bytes
// the table holds; odd holds the tokens it cannot turn (see buildVocab).
func resolveMerges[T string | []byte](f *rawFile, pairs [][2]T, kr keyer, ids *vocabtab.Table, odd map[string]int32) error {
	n := len(pairs)
	f.mergeIDs, f.mergeTo = make([]uint64, n), make([]int32, n)
	workers := max(1, min(runtime.GOMAXPROCS(0), 8, n/50_000))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Go(func() {
			var buf []byte
			for i := lo; i < hi; i++ {
				a, b := pairs[i][0], pairs[i][1]
				var oka, okb bool
				buf, oka = appendKey(kr, buf[:0], a)
				la := len(buf)
				buf, okb = appendKey(kr, buf, b)
				var ia, ib, to int32
				if oka && okb {
					ia, oka = lookupKey(ids, buf[:la])
					ib, okb = lookupKey(ids, buf[la:])
					to, ok := lookupKey(ids, buf)
					if oka && okb && ok {
						f.mergeIDs[i], f.mergeTo[i] = pairKey(ia, ib), to
						continue
					}
				}
				// A part the table does not hold may be a token the
				// key cannot be made of (odd).
				ia, oka = lookupOdd(kr, ids, odd, string(a))
				ib, okb = lookupOdd(kr, ids, odd, string(b))
				if !oka || !okb {
					errs[w] = fmt.Errorf("model.merges[%d]: %q + %q: a part is not in model.vocab", i, a, b)
					return
				}
				to, ok := lookupOdd(kr, ids, odd, string(a)+string(b))
				if !ok {
					errs[w] = fmt.Errorf("model.merges[%d]: the merged token %q is not in model.vocab", i, string(a)+string(b))
					return
				}
				f.mergeIDs[i], f.mergeTo[i] = pairKey(ia, ib), to
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// lookupKey returns the id of the token whose bytes are key.
func lookupKey(ids *vocabtab.Table, key []byte) (int32, bool) {
	id := ids.ID(string(key))
	return int32(id), id != vocabtab.None
}

// lookupOdd returns the id of a token as the file spells it: through the
// table, or for a token whose key cannot be made, through odd.
func lookupOdd(kr keyer, ids *vocabtab.Table, odd map[string]int32, name string) (int32, bool) {
	if id, ok := odd[name]; ok {
		return id, true
	}
	key, ok := appendKey(kr, nil, name)
	if !ok {
		return 0, false
	}
	return lookupKey(ids, key)
}

// keyer says how a token as the file spells it becomes the bytes a piece
// of text holds for it: GPT-2's stand-in characters turned back into
// bytes (byte-level models), the space mark turned into a space (a
// SentencePiece-style tokenizer that reads spaces for marks, see
// useSpaces), or as it is.
type keyer struct {
	byteLevel, spaced bool
}

// appendKey appends the key of token s to dst; false if s is a
// byte-level token with a character that is none of GPT-2's 256
// stand-ins.
func appendKey[T string | []byte](kr keyer, dst []byte, s T) ([]byte, bool) {
	switch {
	case kr.byteLevel:
		for i := 0; i < len(s); {
			b0 := s[i]
			if b0 < 0x80 {
				if gpt2Byte[b0] < 0 {
					return dst, false
				}
				dst = append(dst, byte(gpt2Byte[b0]))
				i++
				continue
			}
			// Every stand-in is below U+0144: two bytes, C2 to C5 first.
			if b0 < 0xC2 || b0 > 0xC5 || i+1 >= len(s) || s[i+1]&0xC0 != 0x80 {
				return dst, false
			}
			r := rune(b0&0x1F)<<6 | rune(s[i+1]&0x3F)
			if r >= rune(len(gpt2Byte)) || gpt2Byte[r] < 0 {
				return dst, false
			}
			dst = append(dst, byte(gpt2Byte[r]))
			i += 2
		}
		return dst, true
	case kr.spaced:
		for i := 0; i < len(s); i++ {
			if s[i] == 0xE2 && i+2 < len(s) && s[i+1] == 0x96 && s[i+2] == 0x81 { // ▁
				dst = append(dst, ' ')
				i += 2
				continue
			}
			dst = append(dst, s[i])
		}
		return dst, true
	}
	return append(dst, s...), true
}

// gpt2Byte[r] is the byte GPT-2's stand-in character r means, -1 if r
// stands for none.
var gpt2Byte = func() (t [0x144]int16) {
	for i := range t {
		t[i] = -1
	}
	for r, b := range byteDecoder() {
		t[r] = int16(b)
	}
	return t
}()

// Parse reads a Hugging Face tokenizer.json. It refuses, naming the key,
// any part of the file it does not support; see the package
// documentation for what is supported.
func Parse(data []byte) (*Tokenizer, error) {
	return parse(data, true)
}

// parse is Parse; spaces false keeps a SentencePiece-style tokenizer
// from reading spaces for the space mark (see useSpaces), which tests
// compare against.
func parse(data []byte, spaces bool) (*Tokenizer, error) {
	f, err := parseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	tk, err := build(f, spaces)
	if err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	tk.sum = sha256.Sum256(data)
	tk.name = "hf:" + hex.EncodeToString(tk.sum[:8]) + "/" + tk.family
	return tk, nil
}

func getString(m map[string]any, key string) (string, bool) {
	s, ok := m[key].(string)
	return s, ok
}

func getBool(m map[string]any, key string) bool {
	b, _ := m[key].(bool)
	return b
}

// build interprets a parsed tokenizer.json; spaces is parse's.
func build(f *rawFile, spaces bool) (*Tokenizer, error) {
	model, ok := f.rest["model"].(map[string]any)
	if !ok {
		return nil, errNoModel
	}
	if t, _ := getString(model, "type"); t != "BPE" {
		if t == "" {
			t = "a model with no type"
		}
		return nil, errUnsupported("model.type", fmt.Sprintf("%q", t), `"BPE"`)
	}
	if !f.hasVocab {
		return nil, fmt.Errorf(`model.vocab: missing, or not an object of token to id`)
	}
	if d, ok := model["dropout"]; ok && d != nil {
		if v, _ := d.(float64); v != 0 {
			return nil, errUnsupported("model.dropout", fmt.Sprint(d), "null or 0: counting must be deterministic")
		}
	}
	for _, k := range []string{"continuing_subword_prefix", "end_of_word_suffix"} {
		if s, _ := getString(model, k); s != "" {
			return nil, errUnsupported("model."+k, fmt.Sprintf("%q", s), `null or ""`)
		}
	}
	tk := &Tokenizer{unk: -1, classes: table(), cache: newWordCache(), pool: &sync.Pool{}}
	tk.ignoreMerges = getBool(model, "ignore_merges")
	tk.byteFallback = getBool(model, "byte_fallback")
	tk.fuseUnk = getBool(model, "fuse_unk")

	// Normalizer.
	if err := tk.readNormalizer(f.rest["normalizer"], "normalizer"); err != nil {
		return nil, err
	}
	// Pre-tokenizer.
	if err := tk.readPre(f.rest["pre_tokenizer"], "pre_tokenizer"); err != nil {
		return nil, err
	}
	if dec, ok := f.rest["decoder"].(map[string]any); ok {
		if t, _ := getString(dec, "type"); t == "ByteLevel" {
			tk.byteLevel = true
		}
	}

	// Vocabulary.
	size := int32(0)
	for _, id := range f.vocabIDs {
		if id < 0 {
			return nil, fmt.Errorf("model.vocab: negative id %d", id)
		}
		size = max(size, id+1)
	}
	var adds []addedToken
	if a, ok := f.rest["added_tokens"].([]any); ok {
		for i, v := range a {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("added_tokens[%d]: not an object", i)
			}
			c, _ := getString(m, "content")
			idf, ok := m["id"].(float64)
			if !ok || idf < 0 || idf >= 1<<31 || c == "" {
				return nil, fmt.Errorf("added_tokens[%d]: needs a content and a non-negative id", i)
			}
			ad := addedToken{content: c, id: int32(idf), special: getBool(m, "special"), lstrip: getBool(m, "lstrip"), rstrip: getBool(m, "rstrip"), single_word: getBool(m, "single_word")}
			if ad.lstrip || ad.rstrip || ad.single_word {
				return nil, errUnsupported(fmt.Sprintf("added_tokens[%d] (%q)", i, c), "lstrip, rstrip or single_word set to true", "false, as in the Llama 3, Qwen, Gemma, Mistral and DeepSeek files")
			}
			adds = append(adds, ad)
			size = max(size, ad.id+1)
		}
	}
	if size > 1<<24 {
		return nil, fmt.Errorf("model.vocab: ids up to %d: at most 16,777,216 are supported", size)
	}
	for i := range tk.ascii {
		tk.ascii[i] = -1
	}
	for i := range tk.fallback {
		tk.fallback[i] = -1
	}
	kr := keyer{byteLevel: tk.byteLevel, spaced: !tk.byteLevel && spaces && tk.spacesApply(f)}
	keys, odd := tk.buildVocab(f, size, kr)
	var ok2 bool
	if tk.ids, ok2 = vocabtab.New(keys); !ok2 {
		return nil, fmt.Errorf("model.vocab: two tokens hold the same bytes")
	}
	find := func(name string) (int32, bool) { return lookupOdd(kr, tk.ids, odd, name) }
	if tk.byteLevel {
		for b, id := range tk.fallback {
			if id < 0 {
				return nil, fmt.Errorf("model.vocab: byte 0x%02X has no token: a byte-level vocabulary needs all 256", b)
			}
		}
	} else {
		if tk.byteFallback {
			for b := range 256 {
				// A byte without its <0xNN> token makes the character
				// fall back to the unknown token (see unknown).
				if id, ok := find(fmt.Sprintf("<0x%02X>", b)); ok {
					tk.fallback[b] = id
				}
			}
		}
		if kr.spaced {
			mark, _ := find("▁")
			tk.useSpaces(mark)
		}
	}
	tk.whole = newWholeTokens(int(size))
	if u, ok := getString(model, "unk_token"); ok {
		if id, ok := find(u); ok {
			tk.unk = id
		}
	}

	// Merges: a later duplicate of a pair overrides an earlier one, as
	// in both reference implementations.
	var err error
	if f.merges != nil {
		err = resolveMerges(f, f.merges, kr, tk.ids, odd)
	} else {
		err = resolveMerges(f, f.rawPairs, kr, tk.ids, odd)
	}
	if err != nil {
		return nil, err
	}
	tk.merges = newPairTable(len(f.mergeIDs))
	for i, k := range f.mergeIDs {
		tk.merges.put(k, uint64(i)<<32|uint64(uint32(f.mergeTo[i])))
	}
	if tk.byteLevel {
		tk.chars = newCharParts(tk.vocab, f.mergeIDs)
		tk.byteJoins, tk.bytePairs = byteJoins(tk.vocab, &tk.fallback, f.mergeIDs)
	} else {
		tk.fallbackCuts = fallbackCuts(tk.fallback, tk.byteFallback, len(tk.vocab), f.mergeIDs)
		tk.asciiMerges = newASCIIMerges(&tk.ascii, tk.merges, tk.fallbackCuts)
	}

	// Added tokens: matched literally before anything else.
	if len(adds) > 0 {
		tk.added = newTrie()
		tk.special = map[int32]bool{}
		for _, a := range adds {
			tk.added.add(a.content, a.id)
			tk.vocab[a.id] = a.content
			if a.special {
				tk.special[a.id] = true
			}
		}
	}
	if tk.added != nil {
		tk.addedFirsts = tk.added.firsts(maxAddedFirsts)
	}
	if !tk.byteLevel {
		tk.setWordBytes()
	}
	for id, s := range tk.vocab {
		if s == "" && (tk.added == nil || !tk.added.isAdded(int32(id))) {
			tk.vocab[id] = "" // an id the file leaves unused
		}
	}

	// Post-processor.
	if err := tk.readPost(f.rest["post_processor"], "post_processor", tokenIDs(adds, find)); err != nil {
		return nil, err
	}
	tk.family = detectFamily(tk, f)
	if !tk.byteLevel && !tk.ignoreMerges && len(tk.vocab) <= markWholeMax {
		tk.markWhole()
	}
	return tk, nil
}

// spacesApply reports whether a SentencePiece-style tokenizer can read
// text with spaces standing for the space mark: when its normalizers do
// no more than turn every space into the mark (Replace), with the mark
// put before the text or not (Prepend), its pre-tokenizers only split at
// spaces, which the Replace left none of, the mark is a token, and no
// token holds a space (Gemma, Gemini, Llama 2). Its table of token bytes
// then holds spaces for marks (see keyer), and counting reads the text as
// given, instead of a copy with every space replaced; a text holding the
// mark itself is still copied, with its marks turned into spaces (see
// encodePart).
func (tk *Tokenizer) spacesApply(f *rawFile) bool {
	const mark = "▁"
	switch {
	case len(tk.norms) == 1 && tk.norms[0] == normStep{kind: "Replace", old: " ", new: mark}:
	case len(tk.norms) == 2 && tk.norms[0] == normStep{kind: "Prepend", new: mark} && tk.norms[1] == normStep{kind: "Replace", old: " ", new: mark}:
		tk.spacePrepend = true
	default:
		return false
	}
	for _, p := range tk.pre {
		if p.kind != "SplitString" || p.lit != " " {
			return false
		}
	}
	hasMark := false
	for _, t := range f.vocabTok {
		if bytes.IndexByte(t, ' ') >= 0 {
			return false
		}
		hasMark = hasMark || string(t) == mark
	}
	return hasMark
}

// useSpaces sets a tokenizer whose spacesApply holds to read spaces for
// the space mark, whose id is mark.
func (tk *Tokenizer) useSpaces(mark int32) {
	tk.ascii[' '] = mark
	if tk.newlineJoins.has('▁') {
		tk.newlineJoins.add(' ')
	}
	tk.spaced, tk.spaceMark = true, "▁"
	tk.markText, tk.spaceRune = " ", ' '
}

// buildVocab fills the tokenizer's vocabulary from model.vocab and
// returns each id's key, the bytes a piece of text holds for it (see
// keyer), for the table of token bytes. The tokens' strings are cut from
// one block of memory each for the texts and, where they differ, the
// keys. A byte-level token whose key cannot be made (a character that is
// none of GPT-2's stand-ins: an added token's text written in the
// vocabulary) has no key, and is kept in odd for lookups by name.
func (tk *Tokenizer) buildVocab(f *rawFile, size int32, kr keyer) (keys []string, odd map[string]int32) {
	tk.vocab = make([]string, size)
	total := 0
	for _, t := range f.vocabTok {
		total += len(t)
	}
	// The texts the vocabulary decodes to: the keys of a byte-level
	// model, the file's own spelling otherwise.
	texts := make([]byte, 0, total)
	ends := make([]int, len(f.vocabTok)) // end of each text in texts, -1 if none
	textKeyer := keyer{byteLevel: kr.byteLevel}
	for i, t := range f.vocabTok {
		before := len(texts)
		var ok bool
		if texts, ok = appendKey(textKeyer, texts, t); !ok {
			texts, ends[i] = texts[:before], -1
			continue
		}
		ends[i] = len(texts)
	}
	all := string(texts)
	keys = make([]string, size)
	start := 0
	for i, id := range f.vocabIDs {
		if ends[i] < 0 {
			if odd == nil {
				odd = map[string]int32{}
			}
			s := string(f.vocabTok[i])
			tk.vocab[id], odd[s] = s, id
			continue
		}
		t := all[start:ends[i]]
		start = ends[i]
		tk.vocab[id], keys[id] = t, t
	}
	if tk.byteLevel {
		for id, t := range keys {
			if len(t) == 1 {
				tk.fallback[t[0]] = int32(id)
			}
		}
		return keys, odd
	}
	tk.bmpIDs = make([]int32, bmp)
	for i := range tk.bmpIDs {
		tk.bmpIDs[i] = -1
	}
	tk.spaceRepl = "▁"
	tk.markText = "▁"
	tk.spaceRune = '▁'
	tk.spaceJoins, tk.newlineJoins = newRuneSet(), newRuneSet()
	for id, s := range keys {
		if s == "" {
			continue
		}
		if len(s) == 1 && s[0] < 0x80 {
			tk.ascii[s[0]] = int32(id)
		}
		if r, n := utf8.DecodeRuneInString(s); n == len(s) && n > 1 && r < bmp {
			tk.bmpIDs[r] = int32(id)
		}
		prev := rune(-1)
		for _, r := range s {
			if r == tk.spaceRune && prev >= 0 && prev != tk.spaceRune {
				tk.spaceJoins.add(prev)
			}
			if prev == '\n' && r != '\n' {
				tk.newlineJoins.add(r)
			}
			prev = r
		}
	}
	if kr.spaced {
		// The keys with spaces for marks, in a block of their own.
		spaced := make([]byte, 0, total)
		ends := make([]int32, len(keys)) // a vocabulary's bytes are far below 2 GiB
		for id, t := range keys {
			spaced, _ = appendKey(kr, spaced, t)
			ends[id] = int32(len(spaced))
		}
		all := string(spaced)
		start := int32(0)
		for id := range keys {
			keys[id] = all[start:ends[id]]
			start = ends[id]
		}
	}
	for _, key := range keys {
		for i := 1; i < len(key); i++ {
			if a, b := key[i-1], key[i]; a < utf8.RuneSelf && b < utf8.RuneSelf {
				tk.asciiJoins[a][b>>6] |= 1 << (b & 63)
			}
		}
	}
	return keys, odd
}

// setWordBytes fills wordBytes: the ASCII letters, but for the first
// byte of an added token. model passes over a run of them without
// looking at pairs, so it makes no cut inside a word: such a cut only
// ever shortened what merges (no merge crosses it, see model), and the
// merge of the uncut word gives the same tokens. In English prose
// nearly every pair of letters a word holds is in some token anyway.
func (tk *Tokenizer) setWordBytes() {
	for _, b := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		if tk.added == nil || !tk.added.first[b] {
			tk.wordBytes[b] = true
		}
	}
}

// tokenIDs returns the ids of the added tokens, then of the vocabulary
// (through find), by text: what a post-processor's special tokens name.
func tokenIDs(adds []addedToken, find func(string) (int32, bool)) func(string) (int32, bool) {
	return func(name string) (int32, bool) {
		for _, a := range adds {
			if a.content == name {
				return a.id, true
			}
		}
		return find(name)
	}
}

// addedToken is one entry of added_tokens.
type addedToken struct {
	content             string
	id                  int32
	special, lstrip     bool
	rstrip, single_word bool
}

// component returns the object v at key (a normalizer, pre-tokenizer or
// post-processor) and its "type"; nil for an absent one, an error for
// one that is not an object.
func component(v any, key string) (map[string]any, string, error) {
	if v == nil {
		return nil, "", nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("%s: not an object", key)
	}
	t, _ := getString(m, "type")
	return m, t, nil
}

// readNormalizer reads the normalizer at key.
func (tk *Tokenizer) readNormalizer(v any, key string) error {
	m, t, err := component(v, key)
	if m == nil || err != nil {
		return err
	}
	switch t {
	case "Sequence":
		list, _ := m["normalizers"].([]any)
		for i, n := range list {
			if err := tk.readNormalizer(n, fmt.Sprintf("%s.normalizers[%d]", key, i)); err != nil {
				return err
			}
		}
		return nil
	case "NFC":
		tk.norms = append(tk.norms, normStep{kind: "NFC"})
		return nil
	case "Replace":
		p, _ := m["pattern"].(map[string]any)
		old, ok := getString(p, "String")
		if !ok {
			return errUnsupported(key+".pattern", "a Regex pattern", `{"String": ...}`)
		}
		content, _ := getString(m, "content")
		tk.norms = append(tk.norms, normStep{kind: "Replace", old: old, new: content})
		return nil
	case "Prepend":
		p, _ := getString(m, "prepend")
		tk.norms = append(tk.norms, normStep{kind: "Prepend", new: p})
		return nil
	}
	return errUnsupported(key+".type", fmt.Sprintf("%q", t), "Sequence, NFC, Replace (String pattern), Prepend")
}

// readPre reads the pre-tokenizer at key.
func (tk *Tokenizer) readPre(v any, key string) error {
	m, t, err := component(v, key)
	if m == nil || err != nil {
		return err
	}
	switch t {
	case "Sequence":
		list, _ := m["pretokenizers"].([]any)
		for i, n := range list {
			if err := tk.readPre(n, fmt.Sprintf("%s.pretokenizers[%d]", key, i)); err != nil {
				return err
			}
		}
		return nil
	case "ByteLevel":
		if getBool(m, "use_regex") {
			return errUnsupported(key+".use_regex", "true (the GPT-2 pattern)", "false, with the pattern in a Split before it")
		}
		if getBool(m, "add_prefix_space") {
			return errUnsupported(key+".add_prefix_space", "true", "false")
		}
		tk.byteLevel = true
		return nil
	case "Split":
		if getBool(m, "invert") {
			return errUnsupported(key+".invert", "true", "false")
		}
		behavior, _ := getString(m, "behavior")
		p, _ := m["pattern"].(map[string]any)
		if re, ok := getString(p, "Regex"); ok {
			mt, ok := knownPatterns[re]
			if !ok {
				return errUnsupported(key+".pattern.Regex", fmt.Sprintf("%q", re), "the patterns of Llama 3, Qwen 2/2.5/3, DeepSeek V3 and Mistral Tekken (see docs/TOKENIZERS.md)")
			}
			if behavior != "Isolated" {
				return errUnsupported(key+".behavior", fmt.Sprintf("%q with a Regex pattern", behavior), `"Isolated"`)
			}
			first := patternFirst[re]
			firstASCII, firstDigits := false, first != 0
			for b := range utf8.RuneSelf {
				in := tk.classes[b]&first != 0
				firstASCII = firstASCII || in
				firstDigits = firstDigits && in == (b >= '0' && b <= '9')
			}
			tk.pre = append(tk.pre, preStep{kind: "Split", pat: mt, first: first, firstASCII: firstASCII, firstDigits: firstDigits})
			return nil
		}
		lit, ok := getString(p, "String")
		if !ok {
			return fmt.Errorf("%s.pattern: needs a String or a Regex", key)
		}
		switch behavior {
		case "Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous":
		default:
			return errUnsupported(key+".behavior", fmt.Sprintf("%q", behavior), "Isolated, Removed, MergedWithPrevious, MergedWithNext, Contiguous")
		}
		tk.pre = append(tk.pre, preStep{kind: "SplitString", lit: lit, behavior: behavior})
		return nil
	case "Metaspace":
		repl, _ := getString(m, "replacement")
		if repl == "" {
			repl = "▁"
		}
		scheme, ok := getString(m, "prepend_scheme")
		if !ok {
			scheme = "always"
			if ap, ok := m["add_prefix_space"].(bool); ok && !ap {
				scheme = "never"
			}
		}
		if scheme != "always" && scheme != "first" && scheme != "never" {
			return errUnsupported(key+".prepend_scheme", fmt.Sprintf("%q", scheme), "always, first, never")
		}
		split := true
		if s, ok := m["split"].(bool); ok {
			split = s
		}
		tk.pre = append(tk.pre, preStep{kind: "Metaspace", repl: repl, prepend: scheme, split: split})
		return nil
	}
	return errUnsupported(key+".type", fmt.Sprintf("%q", t), "Sequence, Split, ByteLevel (use_regex false), Metaspace")
}

// readPost reads the post-processor: the special tokens it adds around a
// single text.
func (tk *Tokenizer) readPost(v any, key string, tokens func(string) (int32, bool)) error {
	m, t, err := component(v, key)
	if m == nil || err != nil {
		return err
	}
	switch t {
	case "Sequence":
		list, _ := m["processors"].([]any)
		for i, n := range list {
			if err := tk.readPost(n, fmt.Sprintf("%s.processors[%d]", key, i), tokens); err != nil {
				return err
			}
		}
		return nil
	case "ByteLevel":
		return nil
	case "TemplateProcessing":
		single, _ := m["single"].([]any)
		specials, _ := m["special_tokens"].(map[string]any)
		seen := false
		for i, it := range single {
			item, _ := it.(map[string]any)
			if _, ok := item["Sequence"]; ok {
				seen = true
				continue
			}
			st, ok := item["SpecialToken"].(map[string]any)
			if !ok {
				return fmt.Errorf("%s.single[%d]: neither a Sequence nor a SpecialToken", key, i)
			}
			name, _ := getString(st, "id")
			var ids []int32
			if sp, ok := specials[name].(map[string]any); ok {
				list, _ := sp["ids"].([]any)
				for _, x := range list {
					f, _ := x.(float64)
					ids = append(ids, int32(f))
				}
			} else if id, ok := tokens(name); ok {
				ids = []int32{id}
			} else {
				return fmt.Errorf("%s.single[%d]: special token %q is not defined", key, i, name)
			}
			if seen {
				tk.suffix = append(tk.suffix, ids...)
			} else {
				tk.prefix = append(tk.prefix, ids...)
			}
		}
		return nil
	}
	return errUnsupported(key+".type", fmt.Sprintf("%q", t), "Sequence, ByteLevel, TemplateProcessing")
}

// detectFamily names the model family from what the file holds.
func detectFamily(tk *Tokenizer, f *rawFile) string {
	has := func(s string) bool {
		if tk.added == nil {
			return false
		}
		id, n := tk.added.longest(s)
		return n == len(s) && id >= 0
	}
	switch {
	case has("<|begin_of_text|>"):
		return "llama3"
	case has("<|im_start|>"):
		return "qwen2"
	case has("<｜begin▁of▁sentence｜>"):
		return "deepseek-v3"
	case has("<start_of_turn>"):
		return "gemma"
	case tk.byteLevel && has("[INST]"):
		return "mistral-tekken"
	case tk.byteLevel:
		return "byte-level-bpe"
	}
	return "sentencepiece-bpe"
}

// byteDecoder returns the inverse of GPT-2's bytes-to-unicode table: the
// byte each of the 256 printable stand-in characters means.
func byteDecoder() map[rune]byte {
	m := make(map[rune]byte, 256)
	n := 0
	for b := range 256 {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE && b <= 0xFF {
			m[rune(b)] = byte(b)
		} else {
			m[rune(256+n)] = byte(b)
			n++
		}
	}
	return m
}

// byteEncoder returns GPT-2's bytes-to-unicode table.
func byteEncoder() [256]rune {
	var t [256]rune
	for r, b := range byteDecoder() {
		t[b] = r
	}
	return t
}

// fallbackCuts returns the set of the byte fallback tokens (a bit an id)
// if there are any and no merge holds one, else nil: a character that
// falls back to its bytes then merges with nothing, and the merge is cut
// around it (see merge). A byte without a token (a character holding it
// falls back to the unknown token) adds nothing to the set.
func fallbackCuts(fallback [256]int32, byteFallback bool, size int, mergeIDs []uint64) []uint64 {
	if !byteFallback {
		return nil
	}
	set := make([]uint64, (size+63)/64)
	found := false
	for _, id := range fallback {
		if id >= 0 && int(id) < size {
			set[id/64] |= 1 << (id % 64)
			found = true
		}
	}
	if !found {
		return nil
	}
	has := func(id uint32) bool { return int(id) < size && set[id/64]&(1<<(id%64)) != 0 }
	for _, k := range mergeIDs {
		if has(uint32(k>>32)) || has(uint32(k)) {
			return nil
		}
	}
	return set
}

// byteJoins returns the pairs of bytes that a merge joins (a bit for each
// pair, bit b of row a): the last byte of a merge's left token and the
// first of its right one. Between two bytes that no merge joins no merge
// ever happens, so a byte-level piece may be merged in parts cut there
// (see mergeCut). It returns nil if a merge holds a token without bytes.
// pairs holds, the same way, the pairs of bytes whose own tokens (fallback)
// a merge joins (see mergeBytes).
func byteJoins(vocab []string, fallback *[256]int32, mergeIDs []uint64) (j, pairs *[256][4]uint64) {
	j, pairs = new([256][4]uint64), new([256][4]uint64)
	for _, k := range mergeIDs {
		a, b := uint32(k>>32), uint32(k)
		if int(a) >= len(vocab) || int(b) >= len(vocab) || vocab[a] == "" || vocab[b] == "" {
			return nil, nil
		}
		x, y := vocab[a][len(vocab[a])-1], vocab[b][0]
		j[x][y>>6] |= 1 << (y & 63)
		if len(vocab[a]) == 1 && len(vocab[b]) == 1 && fallback[x] == int32(a) && fallback[y] == int32(b) {
			pairs[x][y>>6] |= 1 << (y & 63)
		}
	}
	return j, pairs
}
