package hf

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseRefuses checks that what Tessera does not read is refused
// with the JSON key and what is supported.
func TestParseRefuses(t *testing.T) {
	bpe := `"model":{"type":"BPE","vocab":{"a":0},"merges":[]}`
	for _, tc := range []struct{ doc, want string }{
		{`{"model":{"type":"Unigram","vocab":[["a",0]]}}`, `model.type: "Unigram" is not supported (supported: "BPE")`},
		{`{"normalizer":{"type":"NFKC"},` + bpe + `}`, `normalizer.type: "NFKC" is not supported`},
		{`{"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"\\w+"},"behavior":"Isolated"}]},` + bpe + `}`, `pre_tokenizer.pretokenizers[0].pattern.Regex: "\\w+" is not supported`},
		{`{"pre_tokenizer":{"type":"ByteLevel","use_regex":true},` + bpe + `}`, `pre_tokenizer.use_regex: true (the GPT-2 pattern) is not supported`},
		{`{"pre_tokenizer":{"type":"Whitespace"},` + bpe + `}`, `pre_tokenizer.type: "Whitespace" is not supported`},
		{`{"post_processor":{"type":"BertProcessing"},` + bpe + `}`, `post_processor.type: "BertProcessing" is not supported`},
		{`{"added_tokens":[{"id":1,"content":"<x>","lstrip":true}],` + bpe + `}`, `added_tokens[0] ("<x>"): lstrip, rstrip or single_word set to true is not supported`},
		{`{"model":{"type":"BPE","dropout":0.1,"vocab":{},"merges":[]}}`, `model.dropout: 0.1 is not supported`},
		{`{"model":{"type":"BPE","vocab":{"a":0},"merges":["a b"]}}`, `model.merges[0]: "a" + "b": a part is not in model.vocab`},
		{`{"model":{"type":"BPE","vocab":{"a":0},"merges":[]}`, `invalid JSON at line 1`},
		{`[]`, `not a JSON object`},
		{`{}`, `has no "model"`},
	} {
		_, err := Parse([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %q", tc.doc, err, tc.want)
		}
	}
}

// TestOddByteLevelToken checks that a byte-level vocabulary entry whose
// text is not made of GPT-2's byte stand-ins (an added token's text
// written in model.vocab) is still found by name, here by the
// post-processor, though the table of token bytes cannot hold it.
func TestOddByteLevelToken(t *testing.T) {
	vocab := map[string]int{}
	for i, tok := range byteTokens() {
		vocab[tok] = i
	}
	vocab["<日本>"] = 256
	doc := map[string]any{
		"pre_tokenizer":  map[string]any{"type": "ByteLevel"},
		"decoder":        map[string]any{"type": "ByteLevel"},
		"post_processor": map[string]any{"type": "TemplateProcessing", "single": []any{map[string]any{"SpecialToken": map[string]any{"id": "<日本>"}}, map[string]any{"Sequence": map[string]any{"id": "A"}}}},
		"model":          map[string]any{"type": "BPE", "vocab": vocab, "merges": []string{}},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if pre, _ := tk.SpecialTokens(); len(pre) != 1 || pre[0] != 256 {
		t.Errorf("SpecialTokens prefix = %v, want [256]", pre)
	}
	if got := tk.Count("<日本>"); got != len("<日本>") {
		t.Errorf("Count(<日本>) = %d, want one token a byte (it is no added token)", got)
	}
}
