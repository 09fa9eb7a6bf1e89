package hf

import (
	"bytes"
	"encoding/json"
	"github.com/tessera-dev/tessera/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The models of the reference data in testdata (see testdata/README.md
// and bench/peers/hftok/reference.cjs). Llama 2's file stands for the
// SentencePiece vocabularies of Mistral and Mixtral (v0.1 to v0.3),
// which have its model type, normalizers and byte fallback.
var refModels = []string{"llama3", "qwen3", "gemma3", "gemini", "deepseek_v3", "llama2", "mistral_nemo"}

func readGz(t testing.TB, name string) []byte {
	t.Helper()
	return golden.ReadGzip(t, filepath.Join("testdata", name))
}

// sampleEvery returns k: tests check every k-th corpus text, all of them
// with TESSERA_HEAVY=1 (and not under the race detector's slowness).
func sampleEvery() int {
	if os.Getenv("TESSERA_HEAVY") == "1" {
		return 1
	}
	if raceEnabled || testing.Short() {
		return 10
	}
	return 1
}

// lightRun reports whether tests should load only the smallest reference
// tokenizer: under the race detector, which makes reading the 30 MB files
// take seconds each, unless TESSERA_HEAVY=1.
func lightRun() bool {
	return raceEnabled && os.Getenv("TESSERA_HEAVY") != "1"
}

// skipHeavy skips a test of model m in a light run.
func skipHeavy(t *testing.T, m string) {
	if lightRun() && m != "deepseek_v3" {
		t.Skipf("%s: skipped under the race detector (set TESSERA_HEAVY=1 to run it)", m)
	}
}

type corpusText struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

var (
	corpusOnce sync.Once
	corpusData []corpusText
	tokMu      sync.Mutex
	tokCache   = map[string]*Tokenizer{}
)

func corpus(t testing.TB) []corpusText {
	corpusOnce.Do(func() {
		if err := json.Unmarshal(readGz(t, "corpus.json.gz"), &corpusData); err != nil {
			t.Fatal(err)
		}
	})
	return corpusData
}

// testTokenizer loads a reference model's tokenizer.json, once per test
// binary.
func testTokenizer(t testing.TB, model string) *Tokenizer {
	t.Helper()
	tokMu.Lock()
	defer tokMu.Unlock()
	if tk := tokCache[model]; tk != nil {
		return tk
	}
	tk, err := Parse(readGz(t, model+".tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	tokCache[model] = tk
	return tk
}

var (
	refMu    sync.Mutex
	refCache = map[string]*refIDs{}
)

// testRef reads a model's reference ids, once per test binary.
func testRef(t testing.TB, model string) *refIDs {
	t.Helper()
	refMu.Lock()
	defer refMu.Unlock()
	if r := refCache[model]; r != nil {
		return r
	}
	var r refIDs
	if err := json.Unmarshal(readGz(t, model+".ids.json.gz"), &r); err != nil {
		t.Fatal(err)
	}
	refCache[model] = &r
	return &r
}

type refIDs struct {
	Specials     string  `json:"specials"`
	IDs          [][]int `json:"ids"`
	HelloSpecial []int   `json:"hello_special"`
}

// TestReferenceIDs checks that every text of the corpus encodes to the
// very ids the JavaScript reference gave, and counts as many, for every
// model.
func TestReferenceIDs(t *testing.T) {
	texts := corpus(t)
	for _, m := range refModels {
		t.Run(m, func(t *testing.T) {
			skipHeavy(t, m)
			t.Parallel()
			tk := *testTokenizer(t, m)
			tk.classes = referenceTable()
			ref := testRef(t, m)
			all := append(append([]corpusText(nil), texts...), corpusText{Name: "gen/specials", Text: ref.Specials})
			if len(ref.IDs) != len(all) {
				t.Fatalf("reference has %d texts, corpus %d", len(ref.IDs), len(all))
			}
			matched, total, bad := 0, 0, 0
			for i, c := range all {
				if i%sampleEvery() != 0 && i != len(all)-1 {
					continue
				}
				got := tk.Encode(c.Text)
				want := ref.IDs[i]
				total += len(want)
				if n := tk.Count(c.Text); n != len(want) {
					t.Errorf("%s: Count = %d, want %d", c.Name, n, len(want))
				}
				if equalInts(got, want) {
					matched += len(want)
					continue
				}
				bad++
				j := 0
				for j < len(got) && j < len(want) && got[j] == want[j] {
					j++
				}
				matched += j
				if bad <= 5 {
					lo := max(0, j-3)
					t.Errorf("%s: ids differ at %d of %d (got %d ids): got %v, want %v; text near: %q", c.Name, j, len(want), len(got), got[lo:min(len(got), j+5)], want[lo:min(len(want), j+5)], context(&tk, want, j))
				}
			}
			t.Logf("%s: %d of %d texts identical; ids matched %d of %d", m, len(all)-bad, len(all), matched, total)
			if got := tk.EncodeSpecial("Hello world"); !equalInts(got, ref.HelloSpecial) {
				t.Errorf("EncodeSpecial(Hello world) = %v, want %v", got, ref.HelloSpecial)
			}
		})
	}
}

func context(tk *Tokenizer, ids []int, j int) string {
	lo, hi := max(0, j-3), min(len(ids), j+3)
	b, _ := tk.Decode(ids[lo:hi])
	return string(bytes.ToValidUTF8(b, []byte("?")))
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWhiteSpaceClass checks the one place where Tessera departs from
// the JavaScript reference on purpose: the patterns' \s is Unicode's
// White_Space, as in the Hugging Face tokenizers library (Rust) and
// llama.cpp, not JavaScript's \s, which adds U+FEFF and leaves out
// U+0085. Only texts holding one of those two characters may differ.
func TestWhiteSpaceClass(t *testing.T) {
	m := "llama3"
	if lightRun() {
		m = "deepseek_v3"
	}
	tk := testTokenizer(t, m)
	ref := testRef(t, m)
	differ := 0
	for i, c := range corpus(t) {
		if i%sampleEvery() != 0 && !strings.ContainsAny(c.Text, "\ufeff\u0085") {
			continue
		}
		if equalInts(tk.Encode(c.Text), ref.IDs[i]) {
			continue
		}
		if !strings.ContainsAny(c.Text, "\ufeff\u0085") {
			t.Errorf("%s: differs from the reference without U+FEFF or U+0085", c.Name)
		}
		differ++
	}
	t.Logf("%s: %d texts differ from the JavaScript reference because of U+FEFF or U+0085", m, differ)
}
