package hf

import (
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
	vocab    map[string]int32
	merges   [][2]string // only if merges came before the vocabulary
	mergeIDs []uint64    // (a, b) pairs in file order, when the vocabulary came first
	mergeTo  []int32     // the id of a+b for each pair in mergeIDs
	rawPairs [][2][]byte // merges as read, when the vocabulary came first
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
			// merges take about a hundred bytes of it), so that the map
			// is not grown again and again.
			f.vocab = make(map[string]int32, min(max(len(r.data)/100, 1<<10), 1<<19))
			if err := r.expect('{'); err != nil {
				return false, err
			}
			if r.empty('}') {
				return true, nil
			}
			for {
				k, err := r.str()
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
				f.vocab[k] = id
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
				if f.vocab != nil {
					if f.rawPairs == nil {
						f.rawPairs = make([][2][]byte, 0, 2*len(f.vocab)) // merges are about one or two per token
					}
					f.rawPairs = append(f.rawPairs, [2][]byte{a, b})
				} else {
					f.merges = append(f.merges, [2]string{string(a), string(b)})
				}
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

// resolveMerges looks up the ids of each merge's parts and result, in
// parallel (the lookups are most of a large file's load time), and
// reports the first merge, in file order, that the vocabulary lacks.
func resolveMerges[T string | []byte](f *rawFile, pairs [][2]T) error {
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
				ia, oka := f.vocab[string(a)]
				ib, okb := f.vocab[string(b)]
				if !oka || !okb {
					errs[w] = fmt.Errorf("model.merges[%d]: %q + %q: a part is not in model.vocab", i, a, b)
					return
				}
				buf = append(append(buf[:0], a...), b...)
				to, ok := f.vocab[string(buf)]
				if !ok {
					errs[w] = fmt.Errorf("model.merges[%d]: the merged token %q is not in model.vocab", i, buf)
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
	if f.vocab == nil {
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
	for _, id := range f.vocab {
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
	tk.vocab = make([]string, size)
	keys := make([]string, size) // id -> the bytes a piece holds for it
	for i := range tk.ascii {
		tk.ascii[i] = -1
	}
	for i := range tk.fallback {
		tk.fallback[i] = -1
	}
	if tk.byteLevel {
		dec := byteDecoder()
		var buf []byte
		for s, id := range f.vocab {
			raw, ok := fromByteLevel(dec, s, buf[:0])
			buf = raw
			if !ok {
				tk.vocab[id] = s // an added token's text in the vocabulary
				continue
			}
			t := string(raw)
			tk.vocab[id] = t
			keys[id] = t
			if len(t) == 1 {
				tk.fallback[t[0]] = id
			}
		}
		for b, id := range tk.fallback {
			if id < 0 {
				return nil, fmt.Errorf("model.vocab: byte 0x%02X has no token: a byte-level vocabulary needs all 256", b)
			}
		}
	} else {
		tk.bmpIDs = make([]int32, bmp)
		for i := range tk.bmpIDs {
			tk.bmpIDs[i] = -1
		}
		for s, id := range f.vocab {
			tk.vocab[id] = s
			keys[id] = s
			if len(s) == 1 && s[0] < 0x80 {
				tk.ascii[s[0]] = id
			}
			if r, n := utf8.DecodeRuneInString(s); n == len(s) && n > 1 && r < bmp {
				tk.bmpIDs[r] = id
			}
		}
		if tk.byteFallback {
			for b := range 256 {
				// A byte without its <0xNN> token makes the character
				// fall back to the unknown token (see unknown).
				if id, ok := f.vocab[fmt.Sprintf("<0x%02X>", b)]; ok {
					tk.fallback[b] = id
				}
			}
		}
		tk.spaceRepl = "▁"
		tk.markText = "▁"
		tk.spaceRune = '▁'
		tk.spaceJoins, tk.newlineJoins = newRuneSet(), newRuneSet()
		for s := range f.vocab {
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
	}
	if !tk.byteLevel && spaces {
		tk.useSpaces(f.vocab, keys)
	}
	var ok2 bool
	if tk.ids, ok2 = vocabtab.New(keys); !ok2 {
		return nil, fmt.Errorf("model.vocab: two tokens hold the same bytes")
	}
	tk.whole = newWholeTokens(int(size))
	if u, ok := getString(model, "unk_token"); ok {
		if id, ok := f.vocab[u]; ok {
			tk.unk = id
		}
	}

	// Merges: a later duplicate of a pair overrides an earlier one, as
	// in both reference implementations.
	var err error
	if f.merges != nil {
		err = resolveMerges(f, f.merges)
	} else {
		err = resolveMerges(f, f.rawPairs)
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
	tk.addedFirst = -1
	if tk.added != nil {
		tk.addedFirst = tk.added.onlyFirst()
	}
	for id, s := range tk.vocab {
		if s == "" && (tk.added == nil || !tk.added.isAdded(int32(id))) {
			tk.vocab[id] = "" // an id the file leaves unused
		}
	}

	// Post-processor.
	if err := tk.readPost(f.rest["post_processor"], "post_processor", tokenIDs(adds, f.vocab)); err != nil {
		return nil, err
	}
	tk.family = detectFamily(tk, f)
	return tk, nil
}

// useSpaces makes a SentencePiece-style tokenizer read text with spaces
// standing for the space mark, when its normalizers do no more than turn
// every space into the mark (Replace), with the mark put before the text
// or not (Prepend), and its pre-tokenizers only split at spaces, which
// the Replace left none of (Gemma, Gemini, Llama 2). keys, the bytes a
// piece holds for each id, then hold spaces for marks, and a token that
// holds a space itself, which no normalized text can hold, is left out.
// Counting then reads the text as given, instead of a copy with every
// space replaced; a text holding the mark itself is still copied, with
// its marks turned into spaces (see encodePart).
func (tk *Tokenizer) useSpaces(vocab map[string]int32, keys []string) {
	const mark = "▁"
	markID, ok := vocab[mark]
	if !ok || tk.spaceRepl != mark {
		return
	}
	prepend := false
	switch {
	case len(tk.norms) == 1 && tk.norms[0] == normStep{kind: "Replace", old: " ", new: mark}:
	case len(tk.norms) == 2 && tk.norms[0] == normStep{kind: "Prepend", new: mark} && tk.norms[1] == normStep{kind: "Replace", old: " ", new: mark}:
		prepend = true
	default:
		return
	}
	for _, p := range tk.pre {
		if p.kind != "SplitString" || p.lit != " " {
			return
		}
	}
	for id, k := range keys {
		switch {
		case strings.Contains(k, " "):
			keys[id] = ""
		case strings.Contains(k, mark):
			keys[id] = strings.ReplaceAll(k, mark, " ")
		}
	}
	tk.ascii[' '] = markID
	if tk.newlineJoins.has('▁') {
		tk.newlineJoins.add(' ')
	}
	tk.spaced, tk.spacePrepend, tk.spaceMark = true, prepend, mark
	tk.markText, tk.spaceRune = " ", ' '
}

// tokenIDs returns the ids of the added tokens, then of the vocabulary,
// by text: what a post-processor's special tokens name.
func tokenIDs(adds []addedToken, vocab map[string]int32) func(string) (int32, bool) {
	return func(name string) (int32, bool) {
		for _, a := range adds {
			if a.content == name {
				return a.id, true
			}
		}
		id, ok := vocab[name]
		return id, ok
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
			tk.pre = append(tk.pre, preStep{kind: "Split", pat: mt, first: patternFirst[re]})
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

// fromByteLevel converts a byte-level token back to its bytes; false if a
// character of it is not one of the 256 stand-ins.
func fromByteLevel(dec map[rune]byte, s string, buf []byte) ([]byte, bool) {
	for _, r := range s {
		b, ok := dec[r]
		if !ok {
			return buf, false
		}
		buf = append(buf, b)
	}
	return buf, true
}
