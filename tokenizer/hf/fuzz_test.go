package hf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/tokenizer/hf/jinja"
	"golang.org/x/text/unicode/norm"
)

// byteTokens returns the 256 byte-level tokens, by byte.
func byteTokens() []string {
	enc := byteEncoder()
	out := make([]string, 256)
	for b := range 256 {
		out[b] = string(enc[b])
	}
	return out
}

// tinyJSON returns a small byte-level tokenizer.json: the 256 byte
// tokens, two merges, one added token and the Llama 3 pattern.
func tinyJSON() []byte {
	vocab := map[string]int{}
	for i, t := range byteTokens() {
		vocab[t] = i
	}
	vocab["ab"], vocab["Ġab"] = 256, 257
	doc := map[string]any{
		"added_tokens":  []any{map[string]any{"id": 258, "content": "<|x|>", "special": true}},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{map[string]any{"type": "Split", "pattern": map[string]any{"Regex": patLlama3}, "behavior": "Isolated"}, map[string]any{"type": "ByteLevel"}}},
		"decoder":       map[string]any{"type": "ByteLevel"},
		"model":         map[string]any{"type": "BPE", "vocab": vocab, "merges": []string{"a b", "Ġ ab"}},
	}
	data, _ := json.Marshal(doc)
	return data
}

// tinySPJSON returns a small SentencePiece-style tokenizer.json: the
// <0xNN> byte tokens, a few characters and merges, byte fallback and the
// space mark.
func tinySPJSON() []byte {
	vocab := map[string]int{"<unk>": 0, "<bos>": 1}
	for b := range 256 {
		vocab[fmt.Sprintf("<0x%02X>", b)] = len(vocab)
	}
	for _, t := range []string{"▁", "a", "b", "c", "\n", "▁a", "▁ab", "ab", "▁▁", "\n\n"} {
		vocab[t] = len(vocab)
	}
	doc := map[string]any{
		"added_tokens": []any{map[string]any{"id": 1, "content": "<bos>", "special": true}},
		"normalizer":   map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"},
		"post_processor": map[string]any{"type": "TemplateProcessing", "single": []any{map[string]any{"SpecialToken": map[string]any{"id": "<bos>"}}, map[string]any{"Sequence": map[string]any{"id": "A"}}},
			"special_tokens": map[string]any{"<bos>": map[string]any{"ids": []any{1}}}},
		"model": map[string]any{"type": "BPE", "vocab": vocab, "merges": []string{"▁ a", "a b", "▁a b", "▁ ▁", "\n \n"}, "byte_fallback": true, "unk_token": "<unk>", "fuse_unk": true},
	}
	data, _ := json.Marshal(doc)
	return data
}

// FuzzParse feeds the tokenizer.json reader arbitrary bytes: it must
// never panic, and a tokenizer it accepts must encode without panicking.
func FuzzParse(f *testing.F) {
	f.Add(tinyJSON())
	f.Add(tinySPJSON())
	f.Add([]byte(`{"model":{"type":"Unigram","vocab":[["a",0.5]]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tk, err := Parse(data)
		if err != nil {
			return
		}
		tk.Count("ab ab <|x|> 123 \u00e9")
	})
}

// smallGGUF writes a GGUF file holding a small byte-level tokenizer.
func smallGGUF() []byte {
	var w ggufWriter
	w.WriteString("GGUF")
	w.u32(3)
	w.u64(0)
	w.u64(5)
	tokens := append(byteTokens(), "ab", "<|x|>")
	w.kv("tokenizer.ggml.model", "gpt2")
	w.kv("tokenizer.ggml.pre", "qwen2")
	w.kv("tokenizer.ggml.tokens", tokens)
	types := make([]int32, len(tokens))
	for i := range types {
		types[i] = ggufNormal
	}
	types[len(types)-1] = ggufControl
	w.kv("tokenizer.ggml.token_type", types)
	w.kv("tokenizer.ggml.merges", []string{"a b"})
	return w.Bytes()
}

// FuzzReadGGUF feeds the GGUF reader arbitrary bytes: it must never
// panic.
func FuzzReadGGUF(f *testing.F) {
	f.Add(smallGGUF())
	f.Add([]byte("GGUF\x03\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tk, err := ReadGGUF(bytes.NewReader(data))
		if err != nil {
			return
		}
		tk.Count("ab a b")
	})
}

// FuzzJinja parses and renders arbitrary templates: never a panic, and
// every error is a *jinja.Error or a failed raise_exception.
func FuzzJinja(f *testing.F) {
	f.Add("{% for m in messages %}{{ m.role + ': ' + m.content | trim }}\n{% endfor %}")
	f.Add("{%- set ns = namespace(a=1) -%}{% if ns.a > 0 and not x is defined %}{{ messages[::-1][0]['content'][1:] }}{% else %}{{ raise_exception('e') }}{% endif %}")
	f.Add("{{ (messages|length - 1) ~ 'x' if true else '' }}{# c #}{{ 'a,b'.split(',') | tojson }}")
	f.Fuzz(func(t *testing.T, src string) {
		tmpl, err := jinja.Parse(src)
		if err != nil {
			return
		}
		_, _ = tmpl.Render(map[string]any{"messages": []any{
			map[string]any{"role": "user", "content": " hi "},
			map[string]any{"role": "assistant", "content": "yo"},
		}})
	})
}

// FuzzEncode encodes arbitrary text with a small byte-level and a small
// SentencePiece-style tokenizer (the shapes of the Llama 3 and Gemma
// files, so the fuzzer starts in milliseconds): never a panic, Count
// equals the number of ids, and decoding gives the text back, which both
// are lossless for (the SentencePiece one for text without its space
// mark, U+2581). TestReferenceIDs checks the real files.
func FuzzEncode(f *testing.F) {
	f.Add("Hello, world! 123456 日本語 🎉\n\n  x")
	f.Add("\xff\xfe invalid \xc3")
	f.Add("<|x|>ab ab<bos>  \t\r\n\n\n aaa")
	f.Add("\x80") // a piece of one byte that is no character
	byteLevel, err := Parse(tinyJSON())
	if err != nil {
		f.Fatal(err)
	}
	sp, err := Parse(tinySPJSON())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tk := range []*Tokenizer{byteLevel, sp} {
			ids := tk.Encode(s)
			if n := tk.Count(s); n != len(ids) {
				t.Fatalf("%s: Count %d, Encode %d ids", tk.Name(), n, len(ids))
			}
			if tk == sp && strings.Contains(s, "▁") {
				continue
			}
			got, err := tk.Decode(ids)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != s {
				t.Fatalf("%s: decode(encode(%q)) = %q", tk.Name(), s, got)
			}
		}
		if utf8.ValidString(s) {
			prefix, n := byteLevel.Truncate(s, 3)
			if !strings.HasPrefix(s, prefix) || n > 3 {
				t.Fatalf("Truncate(%q, 3) = %q, %d", s, prefix, n)
			}
		}
	})
}

// FuzzMergeCut checks, on arbitrary text, that the cuts of the merge
// (between bytes that no merge joins for the byte-level tokenizer,
// around byte fallback tokens for the SentencePiece-style one) give the
// ids of merges without them.
func FuzzMergeCut(f *testing.F) {
	f.Add("Hello, world! 123456 日本語 🎉\n\n  x")
	f.Add(strings.Repeat("\U0010FFFD\U000E0001ab 日本語\xff", 12))
	f.Add(strings.Repeat("abab🎉", 20))
	for _, data := range [][]byte{tinyJSON(), tinySPJSON()} {
		tk, err := Parse(data)
		if err != nil {
			f.Fatal(err)
		}
		if tk.byteJoins == nil && tk.fallbackCuts == nil {
			f.Fatalf("%s: no cuts to check", tk.Name())
		}
	}
	byteLevel, _ := Parse(tinyJSON())
	sp, _ := Parse(tinySPJSON())
	var plains []*Tokenizer
	for _, tk := range []*Tokenizer{byteLevel, sp} {
		plain := *tk
		plain.byteJoins, plain.fallbackCuts = nil, nil
		plain.cache, plain.pool = newWordCache(), &sync.Pool{}
		plains = append(plains, &plain)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, tk := range []*Tokenizer{byteLevel, sp} {
			if got, want := tk.Encode(s), plains[i].Encode(s); !slices.Equal(got, want) {
				t.Fatalf("%s: %q: cut %v, whole %v", tk.Name(), s, got, want)
			}
		}
	})
}

// FuzzNFC checks isNFC, toNFC and nfcScratch's text against the norm package on arbitrary
// text, invalid UTF-8 included.
func FuzzNFC(f *testing.F) {
	f.Add("a\u0301 \u0915\u093C\u094D \u0627\u0651\u064E \uAC00\u11A8")
	f.Add("\xff\u0301\u0316\u0316")
	f.Add("\xf7\u03010")
	f.Add("\xf7\u03410")      // U+0341 becomes U+0301: the byte 0xF7 must not take it in as if the text ended
	f.Add("\u0341\xf7\u0341") // norm's String leaves the second U+0341, as the end of the text takes it in
	f.Add("फ़ ऩ \u093C \xf7\u093C क\u094D\u093C")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isNFC(s, nil), norm.NFC.IsNormalString(s); got != want {
			t.Fatalf("%q: isNFC %v, norm %v", s, got, want)
		}
		want := norm.NFC.String(s)
		if got := toNFC(s, nil); got != want {
			t.Fatalf("%q: toNFC %q, norm %q", s, got, want)
		}
		// The scratch space's text, with its buffer used before.
		var sc nfcScratch
		if got, w := sc.text("e\u0301"+s+s), norm.NFC.String("e\u0301"+s+s); got != w {
			t.Fatalf("%q: text %q, norm %q", "e\u0301"+s+s, got, w)
		}
		if got := sc.text(s); got != want {
			t.Fatalf("%q: text %q, norm %q", s, got, want)
		}
	})
}
