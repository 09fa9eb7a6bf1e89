package hf

import (
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
