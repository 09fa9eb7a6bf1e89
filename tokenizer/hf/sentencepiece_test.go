package hf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/tokenizer/internal/vocabtab"
)

// spVocab is a small SentencePiece-style vocabulary: the byte tokens, the
// letters of "hello", and the merges that spell "▁hello".
func spVocab() (map[string]int, []string) {
	vocab := map[string]int{"<unk>": 0, "<s>": 1}
	for b := range 256 {
		vocab[fmt.Sprintf("<0x%02X>", b)] = len(vocab)
	}
	for _, t := range []string{"▁", "h", "e", "l", "o", "▁h", "▁he", "ll", "llo", "▁hello"} {
		vocab[t] = len(vocab)
	}
	return vocab, []string{"▁ h", "▁h e", "l l", "ll o", "▁he llo"}
}

func spFile(t *testing.T, normalizer, pre any) *Tokenizer {
	t.Helper()
	vocab, merges := spVocab()
	doc := map[string]any{
		"added_tokens":  []any{map[string]any{"id": 1, "content": "<s>", "special": true}},
		"normalizer":    normalizer,
		"pre_tokenizer": pre,
		"model":         map[string]any{"type": "BPE", "vocab": vocab, "merges": merges, "byte_fallback": true, "unk_token": "<unk>"},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestSentencePieceStyles checks the two ways Mistral-style files mark
// spaces: Prepend and Replace normalizers, or a Metaspace pre-tokenizer.
func TestSentencePieceStyles(t *testing.T) {
	vocab, _ := spVocab()
	hello := vocab["▁hello"]
	normalized := spFile(t, map[string]any{"type": "Sequence", "normalizers": []any{
		map[string]any{"type": "Prepend", "prepend": "▁"},
		map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"},
	}}, nil)
	metaspace := spFile(t, nil, map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true})
	for _, tk := range []*Tokenizer{normalized, metaspace} {
		if got := tk.Encode("hello hello"); len(got) != 2 || got[0] != hello || got[1] != hello {
			t.Errorf("Encode(hello hello) = %v, want [%d %d]", got, hello, hello)
		}
		// A character outside the vocabulary falls back to its bytes.
		got := tk.Encode("hé")
		want := []int{vocab["▁h"], vocab["<0xC3>"], vocab["<0xA9>"]}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Encode(hé) = %v, want %v", got, want)
		}
		if d, _ := tk.Decode(got); string(d) != " hé" {
			t.Errorf("Decode = %q, want %q", d, " hé")
		}
	}
	// Metaspace "first" marks only the first section: after an added
	// token, "hello" has no space mark.
	if got := metaspace.Encode("<s>hello"); len(got) < 2 || got[0] != 1 || got[1] == hello {
		t.Errorf("Encode(<s>hello) = %v: the second section got a space mark", got)
	}
}

// TestGGUFScores reads a SentencePiece GGUF vocabulary without merges:
// they are derived from the scores, a higher-scored token merging first.
func TestGGUFScores(t *testing.T) {
	vocab, _ := spVocab()
	tokens := make([]string, len(vocab))
	for s, id := range vocab {
		tokens[id] = s
	}
	scores := make([]float32, len(tokens))
	types := make([]int32, len(tokens))
	for i, s := range tokens {
		types[i] = ggufNormal
		scores[i] = -float32(i)
		if strings.HasPrefix(s, "<0x") {
			types[i] = ggufByte
		}
	}
	types[0], types[1] = ggufUnknown, ggufControl
	var w ggufWriter
	w.WriteString("GGUF")
	w.u32(3)
	w.u64(0)
	w.u64(5)
	w.kv("tokenizer.ggml.model", "llama")
	w.kv("tokenizer.ggml.tokens", tokens)
	w.kv("tokenizer.ggml.scores", scores)
	w.kv("tokenizer.ggml.token_type", types)
	w.kv("tokenizer.ggml.bos_token_id", uint32(1))
	tk, err := ReadGGUF(bytes.NewReader(w.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got := tk.Encode("hello hello"); len(got) != 2 || got[0] != vocab["▁hello"] {
		t.Errorf("Encode(hello hello) = %v, want two ▁hello (%d)", got, vocab["▁hello"])
	}
	if pre, _ := tk.SpecialTokens(); len(pre) != 1 || pre[0] != 1 {
		t.Errorf("SpecialTokens = %v, want the BOS (add_bos_token defaults to true)", pre)
	}
}

// TestSpacesForMarks checks that a SentencePiece-style tokenizer that
// reads spaces for the space mark (useSpaces) gives the ids of one that
// replaces them as the file's normalizer says, on texts that hold the
// mark itself, runs of spaces and newlines, with the mark put before the
// text (Llama 2) or not (Gemma 3); the corpus holds no mark.
func TestSpacesForMarks(t *testing.T) {
	texts := []string{
		"▁", "▁▁", " ▁ ", "a▁b c", "▁hello world", "hello▁▁ world\n▁x\n\n ▁",
		"  two\n\n  spaces ▁▁▁ marks ▁\t▁\n", "日本語▁テキスト ▁🎉 ▁é",
	}
	for i, c := range corpus(t) {
		if i%20 == 0 {
			// Some of the corpus with a space in three turned into the
			// mark.
			b := []byte(c.Text)
			var out strings.Builder
			for j, ch := range string(b) {
				if ch == ' ' && j%3 == 0 {
					out.WriteString("▁")
				} else {
					out.WriteRune(ch)
				}
			}
			texts = append(texts, out.String())
		}
	}
	for _, m := range []string{"llama2", "gemma3"} {
		t.Run(m, func(t *testing.T) {
			skipHeavy(t, m)
			spaced := testTokenizer(t, m)
			if !spaced.spaced {
				t.Fatalf("%s does not read spaces for the space mark", m)
			}
			plain, err := parse(readGz(t, m+".tokenizer.json.gz"), false)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range texts {
				if got, want := spaced.Encode(s), plain.Encode(s); !equalInts(got, want) {
					t.Errorf("%.40q: spaces for marks give %d ids, the replaced text %d", s, len(got), len(want))
				}
			}
		})
	}
}

// TestFallbackCuts checks when the merge is cut around byte fallback
// tokens: only if no merge holds one, on either side.
func TestFallbackCuts(t *testing.T) {
	var fb [256]int32
	for i := range fb {
		fb[i] = int32(10 + i)
	}
	fb[9] = -1 // a byte without a token adds nothing
	merges := []uint64{pairKey(1, 2), pairKey(3, 4)}
	set := fallbackCuts(fb, true, 300, merges)
	if set == nil || set[0]&(1<<10) == 0 || set[0]&(1<<9) != 0 || set[0]&(1<<1) != 0 {
		t.Fatalf("fallbackCuts: %v", set)
	}
	if fallbackCuts(fb, false, 300, merges) != nil {
		t.Error("a cut without byte fallback")
	}
	for _, k := range []uint64{pairKey(12, 2), pairKey(2, 265)} {
		if fallbackCuts(fb, true, 300, append(merges, k)) != nil {
			t.Errorf("merge %x holds a fallback token: no cut", k)
		}
	}
	if lightRun() {
		return
	}
	for _, m := range []string{"gemma3", "gemini", "llama2"} {
		if testTokenizer(t, m).fallbackCuts == nil {
			t.Errorf("%s: no cut at fallback tokens", m)
		}
	}
}

// TestMergeASCII compares mergeASCII with the merge from symbols (the
// path it stands in for) on random pieces of printable ASCII, spaces
// and a few other bytes, for every SentencePiece-style model.
func TestMergeASCII(t *testing.T) {
	n := 20000
	if testing.Short() || lightRun() {
		n = 2000
	}
	const chars = " etaoinshrdlcumwfgypbvkjxqzETAOINSHRDLCUMWFGYPBVKJXQZ0123456789'.,;:-!?\"()[]{}<>/\\|_~`@#$%^&*+="
	for _, m := range refModels {
		if lightRun() && m != "llama2" {
			continue
		}
		tk := testTokenizer(t, m)
		if tk.asciiMerges == nil {
			continue
		}
		rng := rand.New(rand.NewPCG(7, 8))
		st := &mergeState{}
		took := 0
		for range n {
			var b []byte
			for range 2 + rng.IntN(scanLimit-1) {
				switch rng.IntN(40) {
				case 0:
					b = append(b, byte(rng.IntN(0x20))) // a control character
				case 1:
					b = append(b, byte(0x80+rng.IntN(0x80))) // a byte of no ASCII character
				case 2:
					b = append(b, 0x7F)
				default:
					b = append(b, chars[rng.IntN(len(chars))])
				}
			}
			s := string(b)
			got, ok := tk.mergeASCII(s, nil)
			if !ok {
				continue
			}
			took++
			st.syms = tk.symbols(st.syms[:0], s)
			if want := tk.merge(st, nil); !slices.Equal(got, want) {
				t.Fatalf("%s: %q: mergeASCII %v, symbols and merge %v", m, s, got, want)
			}
		}
		if took < n/10 {
			t.Errorf("%s: mergeASCII took %d of %d pieces", m, took, n)
		}
	}
}

// TestMarkWhole checks the tokens markWhole marks at load against the
// merge of their bytes: marked exactly where the piece merges into the
// token alone, never for a token that is not ASCII. Of the reference
// models, only Llama 2's vocabulary is one markWhole marks (the others
// are byte-level or larger than markWholeMax): a light run reads that one
// alone, as reading the other six under the race detector takes some
// nine seconds to find them unmarked; .ci/run reads all of them without
// it.
func TestMarkWhole(t *testing.T) {
	checked := 0
	for _, m := range refModels {
		if lightRun() && m != "llama2" {
			continue
		}
		tk := testTokenizer(t, m)
		if tk.byteLevel || tk.ignoreMerges || len(tk.vocab) > markWholeMax {
			continue
		}
		st := &mergeState{}
		marked := 0
		for id, tok := range tk.ids.Keys() {
			if len(tok) < 3 || len(tok) > 8 {
				continue
			}
			v := tk.ids.LikelyMarked(tok)
			if v == vocabtab.None || v&^vocabtab.Marked != uint32(id) {
				t.Fatalf("%s: LikelyMarked(%q) = %#x, want id %d", m, tok, v, id)
			}
			k := sink{keep: true}
			tk.mergePiece(st, tok, vocabtab.None, &k)
			want := len(k.out) == 1 && k.out[0] == id
			ascii := strings.IndexFunc(tok, func(r rune) bool { return r >= utf8.RuneSelf }) < 0
			if got := v >= vocabtab.Marked; got != (want && ascii) {
				t.Errorf("%s: %q marked %v, merges into %v", m, tok, got, k.out)
			}
			if v >= vocabtab.Marked {
				marked++
			}
		}
		t.Logf("%s: %d tokens marked", m, marked)
		if marked == 0 {
			t.Errorf("%s: no token marked", m)
		}
		checked++
	}
	if checked == 0 {
		t.Error("no model's vocabulary was checked")
	}
}
