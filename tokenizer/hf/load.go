package hf

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
	vocab      map[string]int32
	merges     [][2]string // only if merges came before the vocabulary
	mergeIDs   []uint64    // (a, b) pairs in file order, when the vocabulary came first
	mergeTexts []string    // a+b for each pair in mergeIDs
	rest       map[string]any
}

// parseJSON reads a tokenizer.json document.
func parseJSON(data []byte) (*rawFile, error) {
	f := &rawFile{}
	r := &jsonReader{data: data}
	var buf []byte
	r.hook = func(r *jsonReader, path []string) (bool, error) {
		if len(path) != 2 || path[0] != "model" {
			return false, nil
		}
		switch path[1] {
		case "vocab":
			if r.pos < len(r.data) && r.data[r.pos] != '{' {
				return false, nil // a Unigram vocabulary (an array): refused later
			}
			f.vocab = make(map[string]int32, 1<<16)
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
					a = append([]byte(nil), a...)
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
					ia, oka := f.vocab[string(a)]
					ib, okb := f.vocab[string(b)]
					if !oka || !okb {
						return false, fmt.Errorf("model.merges[%d]: %q + %q: a part is not in model.vocab", len(f.mergeIDs), a, b)
					}
					buf = append(append(buf[:0], a...), b...)
					f.mergeIDs = append(f.mergeIDs, pairKey(ia, ib))
					f.mergeTexts = append(f.mergeTexts, string(buf))
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

// Parse reads a Hugging Face tokenizer.json. It refuses, naming the key,
// any part of the file it does not support; see the package
// documentation for what is supported.
func Parse(data []byte) (*Tokenizer, error) {
	f, err := parseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	tk, err := build(f)
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

// build interprets a parsed tokenizer.json.
func build(f *rawFile) (*Tokenizer, error) {
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
	type added struct {
		content             string
		id                  int32
		special, lstrip     bool
		rstrip, single_word bool
	}
	var adds []added
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
			ad := added{content: c, id: int32(idf), special: getBool(m, "special"), lstrip: getBool(m, "lstrip"), rstrip: getBool(m, "rstrip"), single_word: getBool(m, "single_word")}
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
	tk.ids = make(map[string]int32, len(f.vocab))
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
			tk.ids[t] = id
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
			tk.ids[s] = id
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
		tk.spaceRune = '▁'
		tk.spaceJoins, tk.newlineJoins = map[rune]bool{}, map[rune]bool{}
		for s := range f.vocab {
			prev := rune(-1)
			for _, r := range s {
				if r == tk.spaceRune && prev >= 0 && prev != tk.spaceRune {
					tk.spaceJoins[prev] = true
				}
				if prev == '\n' && r != '\n' {
					tk.newlineJoins[r] = true
				}
				prev = r
			}
		}
	}
	if u, ok := getString(model, "unk_token"); ok {
		if id, ok := f.vocab[u]; ok {
			tk.unk = id
		}
	}

	// Merges: a later duplicate of a pair overrides an earlier one, as
	// in both reference implementations.
	if f.merges != nil {
		for i, m := range f.merges {
			ia, oka := f.vocab[m[0]]
			ib, okb := f.vocab[m[1]]
			if !oka || !okb {
				return nil, fmt.Errorf("model.merges[%d]: %q + %q: a part is not in model.vocab", i, m[0], m[1])
			}
			f.mergeIDs = append(f.mergeIDs, pairKey(ia, ib))
			f.mergeTexts = append(f.mergeTexts, m[0]+m[1])
		}
	}
	tk.merges = newPairTable(len(f.mergeIDs))
	for i, k := range f.mergeIDs {
		id, ok := f.vocab[f.mergeTexts[i]]
		if !ok {
			return nil, fmt.Errorf("model.merges[%d]: the merged token %q is not in model.vocab", i, f.mergeTexts[i])
		}
		tk.merges.put(k, uint64(i)<<32|uint64(uint32(id)))
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
	for id, s := range tk.vocab {
		if s == "" && (tk.added == nil || !tk.added.isAdded(int32(id))) {
			tk.vocab[id] = "" // an id the file leaves unused
		}
	}

	// Post-processor.
	if err := tk.readPost(f.rest["post_processor"], "post_processor", adds2map(adds, f.vocab)); err != nil {
		return nil, err
	}
	tk.family = detectFamily(tk, f)
	return tk, nil
}

func adds2map[T any](adds []T, vocab map[string]int32) map[string]int32 {
	m := make(map[string]int32)
	for k, v := range vocab {
		if strings.HasPrefix(k, "<") || strings.HasPrefix(k, "[") {
			m[k] = v
		}
	}
	return m
}

// readNormalizer reads the normalizer at key.
func (tk *Tokenizer) readNormalizer(v any, key string) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: not an object", key)
	}
	t, _ := getString(m, "type")
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
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: not an object", key)
	}
	t, _ := getString(m, "type")
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
				return errUnsupported(key+".pattern.Regex", fmt.Sprintf("%q", re), "the patterns of Llama 3, Qwen 2/2.5/3 and DeepSeek V3 (see docs/TOKENIZERS.md)")
			}
			if behavior != "Isolated" {
				return errUnsupported(key+".behavior", fmt.Sprintf("%q with a Regex pattern", behavior), `"Isolated"`)
			}
			tk.pre = append(tk.pre, preStep{kind: "Split", m: mt})
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
func (tk *Tokenizer) readPost(v any, key string, tokens map[string]int32) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: not an object", key)
	}
	t, _ := getString(m, "type")
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
			} else if id, ok := tokens[name]; ok {
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
