package hf

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"sort"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// ggufWriter writes GGUF metadata for tests.
type ggufWriter struct{ bytes.Buffer }

func (w *ggufWriter) u32(v uint32) { binary.Write(&w.Buffer, binary.LittleEndian, v) }
func (w *ggufWriter) u64(v uint64) { binary.Write(&w.Buffer, binary.LittleEndian, v) }
func (w *ggufWriter) str(s string) { w.u64(uint64(len(s))); w.WriteString(s) }

func (w *ggufWriter) kv(key string, v any) {
	w.str(key)
	switch v := v.(type) {
	case string:
		w.u32(ggufString)
		w.str(v)
	case uint32:
		w.u32(ggufUint32)
		w.u32(v)
	case bool:
		w.u32(ggufBool)
		if v {
			w.WriteByte(1)
		} else {
			w.WriteByte(0)
		}
	case []string:
		w.u32(ggufArray)
		w.u32(ggufString)
		w.u64(uint64(len(v)))
		for _, s := range v {
			w.str(s)
		}
	case []int32:
		w.u32(ggufArray)
		w.u32(ggufInt32)
		w.u64(uint64(len(v)))
		for _, x := range v {
			w.u32(uint32(x))
		}
	case []float32:
		w.u32(ggufArray)
		w.u32(ggufFloat32)
		w.u64(uint64(len(v)))
		for _, x := range v {
			w.u32(math.Float32bits(x))
		}
	default:
		panic("unsupported")
	}
}

// ggufFromJSON writes the GGUF metadata llama.cpp's converter would write
// for a tokenizer.json: the token list by id, token types, merges and
// the pre-tokenizer's name.
func ggufFromJSON(t *testing.T, data []byte, model, pre string, extra map[string]any) []byte {
	t.Helper()
	var j struct {
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
		Model struct {
			Vocab  map[string]int  `json:"vocab"`
			Merges json.RawMessage `json:"merges"`
		} `json:"model"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, id := range j.Model.Vocab {
		n = max(n, id+1)
	}
	for _, a := range j.AddedTokens {
		n = max(n, a.ID+1)
	}
	tokens := make([]string, n)
	types := make([]int32, n)
	for i := range types {
		types[i] = ggufUnused
		tokens[i] = "[PAD" + string(rune('0'+i%10)) + "]"
	}
	for s, id := range j.Model.Vocab {
		tokens[id], types[id] = s, ggufNormal
		if model == "llama" && len(s) == 6 && strings.HasPrefix(s, "<0x") {
			types[id] = ggufByte
		}
	}
	for _, a := range j.AddedTokens {
		tokens[a.ID], types[a.ID] = a.Content, ggufUserDefined
		if a.Special {
			types[a.ID] = ggufControl
		}
	}
	var merges []string
	var asPairs [][2]string
	if json.Unmarshal(j.Model.Merges, &merges) != nil {
		merges = nil
		if err := json.Unmarshal(j.Model.Merges, &asPairs); err != nil {
			t.Fatal(err)
		}
		for _, p := range asPairs {
			merges = append(merges, p[0]+" "+p[1])
		}
	}
	var w ggufWriter
	w.WriteString("GGUF")
	w.u32(3)
	w.u64(0)
	keys := map[string]any{
		"general.architecture":      "test",
		"tokenizer.ggml.model":      model,
		"tokenizer.ggml.pre":        pre,
		"tokenizer.ggml.tokens":     tokens,
		"tokenizer.ggml.token_type": types,
		"tokenizer.ggml.merges":     merges,
	}
	for k, v := range extra {
		keys[k] = v
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	w.u64(uint64(len(names)))
	for _, k := range names {
		w.kv(k, keys[k])
	}
	return w.Bytes()
}

// TestGGUF writes GGUF files from the reference tokenizer.json files and
// checks that they give the reference ids.
func TestGGUF(t *testing.T) {
	cases := []struct {
		model, kind, pre string
		extra            map[string]any
	}{
		{"llama3", "gpt2", "llama-bpe", map[string]any{"tokenizer.ggml.bos_token_id": uint32(128000), "tokenizer.ggml.add_bos_token": true, "tokenizer.chat_template": "{{ bos_token }}"}},
		{"qwen3", "gpt2", "qwen2", nil},
		{"deepseek_v3", "gpt2", "deepseek-v3", nil},
		{"mistral_nemo", "gpt2", "tekken", nil},
		{"gemma3", "llama", "", map[string]any{"tokenizer.ggml.add_space_prefix": false, "tokenizer.ggml.bos_token_id": uint32(2)}},
	}
	texts := corpus(t)
	for _, c := range cases {
		t.Run(c.model, func(t *testing.T) {
			if lightRun() {
				// Reading a GGUF file is one goroutine's work, and a
				// second load of a 100,000-token vocabulary takes seconds
				// under the race detector: the run without it checks
				// every model.
				t.Skip("skipped under the race detector (set TESSERA_HEAVY=1 to run it)")
			}
			data := ggufFromJSON(t, readGz(t, c.model+".tokenizer.json.gz"), c.kind, c.pre, c.extra)
			tk, err := ReadGGUF(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			tk.classes = referenceTable()
			ref := testRef(t, c.model)
			checked := 0
			for i, tx := range texts {
				if i%sampleEvery() != 0 {
					continue
				}
				// llama.cpp does not normalize to NFC, as Qwen's
				// tokenizer.json does: compare NFC texts only.
				if !norm.NFC.IsNormalString(tx.Text) {
					continue
				}
				checked++
				if got := tk.Encode(tx.Text); !equalInts(got, ref.IDs[i]) {
					t.Errorf("%s: GGUF ids differ from the reference", tx.Name)
				}
			}
			if checked == 0 {
				t.Fatal("no text checked")
			}
			if c.extra["tokenizer.ggml.bos_token_id"] != nil {
				pre, _ := tk.SpecialTokens()
				if len(pre) != 1 {
					t.Errorf("SpecialTokens prefix = %v, want the BOS", pre)
				}
			}
		})
	}
}

// TestGGUFErrors checks that broken GGUF files are refused with errors.
func TestGGUFErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "ends inside"},
		{"magic", []byte("GGML0000"), "does not start with GGUF"},
		{"version", append([]byte("GGUF"), 9, 0, 0, 0), "version 9"},
	} {
		_, err := ReadGGUF(bytes.NewReader(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}
