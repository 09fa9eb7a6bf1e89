package hf

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
)

// ggufMagic starts every GGUF file.
const ggufMagic = "GGUF"

// GGUF metadata value types.
const (
	ggufUint8 = iota
	ggufInt8
	ggufUint16
	ggufInt16
	ggufUint32
	ggufInt32
	ggufFloat32
	ggufBool
	ggufString
	ggufArray
	ggufUint64
	ggufInt64
	ggufFloat64
)

// Token types of tokenizer.ggml.token_type.
const (
	ggufNormal      = 1
	ggufUnknown     = 2
	ggufControl     = 3
	ggufUserDefined = 4
	ggufUnused      = 5
	ggufByte        = 6
)

// ggufPre maps llama.cpp's tokenizer.ggml.pre names to the Split patterns
// of the same tokenizers in tokenizer.json.
var ggufPre = map[string][]string{
	"llama3":      {patLlama3},
	"llama-bpe":   {patLlama3},
	"llama-v3":    {patLlama3},
	"qwen2":       {patQwen},
	"deepseek-v3": {patDigits3, patCJK, patDeepSeek},
	"tekken":      {patTekken},
}

// ggufReader reads GGUF metadata.
type ggufReader struct {
	r   *bufio.Reader
	key string
	n   int64 // bytes read, for errors
}

func (g *ggufReader) read(p []byte) error {
	n, err := io.ReadFull(g.r, p)
	g.n += int64(n)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("GGUF: the file ends inside %s (byte %d)", g.where(), g.n)
	}
	return err
}

func (g *ggufReader) where() string {
	if g.key == "" {
		return "the header"
	}
	return "metadata key " + g.key
}

func (g *ggufReader) u32() (uint32, error) {
	var b [4]byte
	err := g.read(b[:])
	return binary.LittleEndian.Uint32(b[:]), err
}

func (g *ggufReader) u64() (uint64, error) {
	var b [8]byte
	err := g.read(b[:])
	return binary.LittleEndian.Uint64(b[:]), err
}

// maxGGUFString bounds a metadata string (a chat template is the longest).
const maxGGUFString = 16 << 20

func (g *ggufReader) str() (string, error) {
	n, err := g.u64()
	if err != nil {
		return "", err
	}
	if n > maxGGUFString {
		return "", fmt.Errorf("GGUF: %s: a string of %d bytes is longer than the %d allowed", g.where(), n, maxGGUFString)
	}
	b := make([]byte, n)
	return string(b), g.read(b)
}

// scalar reads one value of type t.
func (g *ggufReader) scalar(t uint32) (any, error) {
	var size int
	switch t {
	case ggufUint8, ggufInt8, ggufBool:
		size = 1
	case ggufUint16, ggufInt16:
		size = 2
	case ggufUint32, ggufInt32, ggufFloat32:
		size = 4
	case ggufUint64, ggufInt64, ggufFloat64:
		size = 8
	case ggufString:
		return g.str()
	default:
		return nil, fmt.Errorf("GGUF: %s: unknown value type %d", g.where(), t)
	}
	var b [8]byte
	if err := g.read(b[:size]); err != nil {
		return nil, err
	}
	switch t {
	case ggufUint8:
		return int64(b[0]), nil
	case ggufInt8:
		return int64(int8(b[0])), nil
	case ggufBool:
		return b[0] != 0, nil
	case ggufUint16:
		return int64(binary.LittleEndian.Uint16(b[:])), nil
	case ggufInt16:
		return int64(int16(binary.LittleEndian.Uint16(b[:]))), nil
	case ggufUint32:
		return int64(binary.LittleEndian.Uint32(b[:])), nil
	case ggufInt32:
		return int64(int32(binary.LittleEndian.Uint32(b[:]))), nil
	case ggufFloat32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[:]))), nil
	case ggufUint64, ggufInt64:
		return int64(binary.LittleEndian.Uint64(b[:])), nil
	default:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[:])), nil
	}
}

// maxGGUFArray bounds an array's length.
const maxGGUFArray = 1 << 24

// value reads a value of type t: arrays become []any.
func (g *ggufReader) value(t uint32) (any, error) {
	if t != ggufArray {
		return g.scalar(t)
	}
	et, err := g.u32()
	if err != nil {
		return nil, err
	}
	n, err := g.u64()
	if err != nil {
		return nil, err
	}
	if n > maxGGUFArray {
		return nil, fmt.Errorf("GGUF: %s: an array of %d values is longer than the %d allowed", g.where(), n, maxGGUFArray)
	}
	if et == ggufArray {
		return nil, fmt.Errorf("GGUF: %s: arrays of arrays are not supported", g.where())
	}
	out := make([]any, 0, min(n, 1<<16))
	for range n {
		v, err := g.scalar(et)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// ReadGGUF reads the tokenizer in a GGUF file's metadata, as llama.cpp
// writes it: tokenizer.ggml.model ("gpt2" for byte-level BPE, "llama"
// for SentencePiece-style BPE), tokens, token_type, merges (or, for
// "llama", scores), pre (the pre-tokenizer's name), bos/eos ids,
// add_bos_token, add_space_prefix and tokenizer.chat_template. It stops
// reading at the end of the metadata, before the tensors.
func ReadGGUF(r io.Reader) (*Tokenizer, error) {
	h := sha256.New()
	g := &ggufReader{r: bufio.NewReaderSize(io.TeeReader(r, h), 1<<16)}
	var magic [4]byte
	if err := g.read(magic[:]); err != nil {
		return nil, err
	}
	if string(magic[:]) != ggufMagic {
		return nil, errors.New("GGUF: the file does not start with GGUF: is it a GGUF model file?")
	}
	version, err := g.u32()
	if err != nil {
		return nil, err
	}
	if version != 2 && version != 3 {
		return nil, fmt.Errorf("GGUF: version %d is not supported (supported: 2, 3)", version)
	}
	if _, err := g.u64(); err != nil { // tensor count
		return nil, err
	}
	count, err := g.u64()
	if err != nil {
		return nil, err
	}
	if count > 1<<20 {
		return nil, fmt.Errorf("GGUF: %d metadata keys is more than the %d allowed", count, 1<<20)
	}
	kv := map[string]any{}
	for range count {
		g.key = ""
		k, err := g.str()
		if err != nil {
			return nil, err
		}
		g.key = k
		t, err := g.u32()
		if err != nil {
			return nil, err
		}
		v, err := g.value(t)
		if err != nil {
			return nil, err
		}
		kv[k] = v
	}
	tk, err := fromGGUF(kv)
	if err != nil {
		return nil, fmt.Errorf("GGUF: %w", err)
	}
	copy(tk.sum[:], h.Sum(nil))
	tk.name = "hf:" + hex.EncodeToString(tk.sum[:8]) + "/" + tk.family
	return tk, nil
}

// fromGGUF builds a tokenizer from GGUF metadata by writing it as the
// equivalent tokenizer.json.
func fromGGUF(kv map[string]any) (*Tokenizer, error) {
	model, _ := kv["tokenizer.ggml.model"].(string)
	tokens, ok := kv["tokenizer.ggml.tokens"].([]any)
	if !ok || len(tokens) == 0 {
		return nil, errors.New("tokenizer.ggml.tokens: missing: the file carries no tokenizer")
	}
	types, _ := kv["tokenizer.ggml.token_type"].([]any)
	if types != nil && len(types) != len(tokens) {
		return nil, fmt.Errorf("tokenizer.ggml.token_type: %d types for %d tokens", len(types), len(tokens))
	}
	typeOf := func(i int) int64 {
		if types == nil {
			return ggufNormal
		}
		t, _ := types[i].(int64)
		return t
	}
	f := &rawFile{hasVocab: true, rest: map[string]any{}}
	vocab := make(map[string]int32, len(tokens)) // the first id of each token, for mergesFromScores
	var added []any
	texts := make([]string, len(tokens))
	for i, v := range tokens {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("tokenizer.ggml.tokens[%d]: not a string", i)
		}
		texts[i] = s
		switch typeOf(i) {
		case ggufControl, ggufUserDefined:
			added = append(added, map[string]any{"id": float64(i), "content": s, "special": typeOf(i) == ggufControl})
		case ggufUnused:
			continue
		}
		if _, dup := vocab[s]; !dup {
			vocab[s] = int32(i)
			f.vocabTok = append(f.vocabTok, []byte(s))
			f.vocabIDs = append(f.vocabIDs, int32(i))
		}
	}
	f.rest["added_tokens"] = added
	m := map[string]any{"type": "BPE"}
	f.rest["model"] = m
	bos, hasBOS := kv["tokenizer.ggml.bos_token_id"].(int64)
	pre, _ := kv["tokenizer.ggml.pre"].(string)
	addBOS, setBOS := kv["tokenizer.ggml.add_bos_token"].(bool)
	switch model {
	case "gpt2":
		pats, ok := ggufPre[pre]
		if !ok {
			return nil, errUnsupported("tokenizer.ggml.pre", fmt.Sprintf("%q", pre), "llama-bpe (Llama 3), qwen2, deepseek-v3, tekken (Mistral Nemo, Large 2)")
		}
		var seq []any
		for _, p := range pats {
			seq = append(seq, map[string]any{"type": "Split", "behavior": "Isolated", "pattern": map[string]any{"Regex": p}})
		}
		seq = append(seq, map[string]any{"type": "ByteLevel", "use_regex": false})
		f.rest["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": seq}
		f.rest["decoder"] = map[string]any{"type": "ByteLevel"}
		if pre == "llama-bpe" || pre == "llama3" || pre == "llama-v3" || pre == "tekken" {
			m["ignore_merges"] = true
		}
	case "llama":
		norms := []any{map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"}}
		if p, ok := kv["tokenizer.ggml.add_space_prefix"].(bool); !ok || p {
			norms = append([]any{map[string]any{"type": "Prepend", "prepend": "▁"}}, norms...)
		}
		f.rest["normalizer"] = map[string]any{"type": "Sequence", "normalizers": norms}
		m["byte_fallback"] = true
		for i := range tokens {
			if typeOf(i) == ggufUnknown {
				m["unk_token"] = texts[i]
			}
		}
		if !setBOS {
			addBOS = true // llama.cpp's default for SentencePiece vocabularies
		}
	default:
		return nil, errUnsupported("tokenizer.ggml.model", fmt.Sprintf("%q", model), `"gpt2" (byte-level BPE), "llama" (SentencePiece-style BPE)`)
	}
	if merges, ok := kv["tokenizer.ggml.merges"].([]any); ok {
		for i, v := range merges {
			s, _ := v.(string)
			a, b, ok := cutSpace(s)
			if !ok {
				return nil, fmt.Errorf("tokenizer.ggml.merges[%d]: %q is not two tokens separated by a space", i, s)
			}
			f.merges = append(f.merges, [2]string{a, b})
		}
	} else if model == "llama" {
		scores, ok := kv["tokenizer.ggml.scores"].([]any)
		if !ok || len(scores) != len(tokens) {
			return nil, errors.New("tokenizer.ggml.merges and tokenizer.ggml.scores: missing; a SentencePiece-style vocabulary needs one of them")
		}
		f.merges = mergesFromScores(texts, scores, vocab)
	} else {
		return nil, errors.New("tokenizer.ggml.merges: missing; a byte-level BPE vocabulary needs its merges")
	}
	if hasBOS && addBOS && bos >= 0 && bos < int64(len(tokens)) {
		f.rest["post_processor"] = map[string]any{"type": "TemplateProcessing",
			"single":         []any{map[string]any{"SpecialToken": map[string]any{"id": texts[bos]}}, map[string]any{"Sequence": map[string]any{"id": "A"}}},
			"special_tokens": map[string]any{texts[bos]: map[string]any{"ids": []any{float64(bos)}}}}
	}
	tk, err := build(f, true)
	if err != nil {
		return nil, err
	}
	if hasBOS && bos >= 0 && bos < int64(len(tokens)) {
		tk.bosToken = texts[bos]
	}
	if eos, ok := kv["tokenizer.ggml.eos_token_id"].(int64); ok && eos >= 0 && eos < int64(len(tokens)) {
		tk.eosToken = texts[eos]
	}
	tk.chatTemplate, _ = kv["tokenizer.chat_template"].(string)
	return tk, nil
}

func cutSpace(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

// mergesFromScores derives the merge list of a SentencePiece BPE
// vocabulary from its scores, as llama.cpp's tokenizer merges: every
// split of a token into two tokens is a merge, and merges producing a
// higher-scored token come first.
func mergesFromScores(texts []string, scores []any, vocab map[string]int32) [][2]string {
	type cand struct {
		a, b  string
		score float64
		id    int
	}
	var cands []cand
	for id, t := range texts {
		if _, ok := vocab[t]; !ok || vocab[t] != int32(id) {
			continue
		}
		sc, _ := scores[id].(float64)
		for i := 1; i < len(t); i++ {
			if t[i]&0xC0 == 0x80 {
				continue
			}
			if _, ok := vocab[t[:i]]; !ok {
				continue
			}
			if _, ok := vocab[t[i:]]; !ok {
				continue
			}
			cands = append(cands, cand{t[:i], t[i:], sc, id})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return cands[i].id < cands[j].id
	})
	out := make([][2]string, len(cands))
	for i, c := range cands {
		out[i] = [2]string{c.a, c.b}
	}
	return out
}
