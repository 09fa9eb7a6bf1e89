package tokenizer

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// encodings returns both encodings, loaded.
func encodings(t testing.TB) []*Encoding {
	t.Helper()
	var out []*Encoding
	for _, name := range []string{O200kBaseName, Cl100kBaseName} {
		e, err := EncodingNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestVocabularyMatchesPublished expands each embedded vocabulary back into
// the published .tiktoken file format and checks its SHA-256 against the
// hash OpenAI's tiktoken pins for that file.
func TestVocabularyMatchesPublished(t *testing.T) {
	want := map[string]string{
		O200kBaseName:  "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
		Cl100kBaseName: "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
	}
	for _, e := range encodings(t) {
		h := sha256.New()
		var line []byte
		for r, tok := range e.vocab {
			line = base64.StdEncoding.AppendEncode(line[:0], []byte(tok))
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(r), 10)
			line = append(line, '\n')
			h.Write(line)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want[e.Name()] {
			t.Errorf("%s: vocabulary hashes to %s, want %s", e.Name(), got, want[e.Name()])
		}
	}
}

func TestEncodingNamedUnknown(t *testing.T) {
	_, err := EncodingNamed("p50k_base")
	if err == nil || !strings.Contains(err.Error(), "o200k_base") {
		t.Fatalf("EncodingNamed(p50k_base) = %v, want an error listing the known encodings", err)
	}
}

type reference struct {
	Tiktoken string    `json:"tiktoken"`
	Files    []refFile `json:"files"` // under testdata/corpus
	Kinds    []refFile `json:"kinds"` // under testdata/kinds
	Runs     []struct {
		Repeat string `json:"repeat"`
		Times  int    `json:"times"`
		O200k  int    `json:"o200k_base"`
		Cl100k int    `json:"cl100k_base"`
	} `json:"runs"`
}

type refFile struct {
	File   string `json:"file"`
	O200k  int    `json:"o200k_base"`
	Cl100k int    `json:"cl100k_base"`
}

func loadReference(t testing.TB) reference {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatalf("testdata/reference.json: %v", err)
	}
	if len(ref.Files) == 0 || len(ref.Kinds) == 0 || len(ref.Runs) == 0 {
		t.Fatal("testdata/reference.json holds no cases")
	}
	return ref
}

// TestCorpusCounts compares counts with OpenAI's tokenizer on every file
// of the corpus (code, prose, CJK, emoji, byte-order marks, U+0085,
// indentation-only lines, CRLF with trailing spaces, base64), on the
// benchmarks' texts of each kind (prose and code, CJK, Cyrillic, Arabic,
// Devanagari, emoji, random code points) and on long runs of one
// character.
func TestCorpusCounts(t *testing.T) {
	ref := loadReference(t)
	o, c := O200kBase(), Cl100kBase()
	for _, set := range []struct {
		dir   string
		files []refFile
	}{{"corpus", ref.Files}, {"kinds", ref.Kinds}} {
		for _, f := range set.files {
			data, err := os.ReadFile(filepath.Join("testdata", set.dir, f.File))
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			if got := o.Count(text); got != f.O200k {
				t.Errorf("%s/%s: o200k_base count %d, tiktoken %s says %d", set.dir, f.File, got, ref.Tiktoken, f.O200k)
			}
			if got := c.Count(text); got != f.Cl100k {
				t.Errorf("%s/%s: cl100k_base count %d, tiktoken %s says %d", set.dir, f.File, got, ref.Tiktoken, f.Cl100k)
			}
		}
	}
	for _, r := range ref.Runs {
		text := strings.Repeat(r.Repeat, r.Times)
		if got := o.Count(text); got != r.O200k {
			t.Errorf("%q×%d: o200k_base count %d, tiktoken says %d", r.Repeat, r.Times, got, r.O200k)
		}
		if got := c.Count(text); got != r.Cl100k {
			t.Errorf("%q×%d: cl100k_base count %d, tiktoken says %d", r.Repeat, r.Times, got, r.Cl100k)
		}
	}
}

// TestSpecificCounts pins counts a reader can check by hand against
// tiktoken.
func TestSpecificCounts(t *testing.T) {
	c := Cl100kBase()
	if got := c.Count("a\n \nb"); got != 3 {
		t.Errorf(`cl100k_base Count("a\n \nb") = %d, want 3`, got)
	}
	if got := c.Encode("hello world"); len(got) != 2 || got[0] != 15339 || got[1] != 1917 {
		t.Errorf(`cl100k_base Encode("hello world") = %v, want [15339 1917]`, got)
	}
	if got := O200kBase().Encode("hello world"); len(got) != 2 || got[0] != 24912 || got[1] != 2375 {
		t.Errorf(`o200k_base Encode("hello world") = %v, want [24912 2375]`, got)
	}
	for _, e := range encodings(t) {
		if got := e.Count(""); got != 0 {
			t.Errorf("%s: Count(\"\") = %d", e.Name(), got)
		}
	}
}

// TestTrickyStrings compares token lists, token by token, with OpenAI's
// tokenizer on generated strings built from the characters where the
// pre-tokenizer's classes meet.
func TestTrickyStrings(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "tricky.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o, c := O200kBase(), Cl100kBase()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n, failed := 0, 0
	for line := 1; sc.Scan(); line++ {
		var rec struct {
			Text   string `json:"text"`
			O200k  []int  `json:"o200k_base"`
			Cl100k []int  `json:"cl100k_base"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("tricky.jsonl:%d: %v", line, err)
		}
		n++
		for _, tc := range []struct {
			e    *Encoding
			want []int
		}{{o, rec.O200k}, {c, rec.Cl100k}} {
			got := tc.e.Encode(rec.Text)
			if i := firstDiff(got, tc.want); i >= 0 {
				failed++
				if failed <= 10 {
					t.Errorf("tricky.jsonl:%d %s %q: tokens differ at %d:\n got %v\nwant %v", line, tc.e.Name(), rec.Text, i, got, tc.want)
				}
			}
			if cnt := tc.e.Count(rec.Text); cnt != len(tc.want) {
				t.Errorf("tricky.jsonl:%d %s: Count %d, want %d", line, tc.e.Name(), cnt, len(tc.want))
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("tricky.jsonl holds %d strings, want thousands", n)
	}
	if failed > 0 {
		t.Errorf("%d of %d encodings differ", failed, 2*n)
	}
}

func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// refMerge is tiktoken's merge loop as written in its source, with no
// care for speed: the oracle the merge implementations are checked
// against.
func refMerge(e *Encoding, piece string) []int {
	bounds := make([]int, len(piece)+1)
	for i := range bounds {
		bounds[i] = i
	}
	for {
		best, bestRank := -1, uint32(noRank)
		for i := 0; i+2 < len(bounds); i++ {
			if r := e.ranks.rank(piece[bounds[i]:bounds[i+2]]); r < bestRank {
				best, bestRank = i, r
			}
		}
		if best < 0 {
			break
		}
		bounds = append(bounds[:best+1], bounds[best+2:]...)
	}
	var toks []int
	for i := 0; i+1 < len(bounds); i++ {
		toks = append(toks, int(e.ranks.rank(piece[bounds[i]:bounds[i+1]])))
	}
	return toks
}

// mergeEach merges piece (at least two bytes) with every implementation
// that takes its length and reports the first that differs from the
// oracle.
func mergeEach(e *Encoding, m *merger, piece string) string {
	want := refMerge(e, piece)
	if len(piece) <= treePiece {
		n := m.tree.merge(e.ranks, piece)
		var got []int
		for i := 0; i < len(piece); {
			j := int(m.tree.next[i])
			got = append(got, int(e.ranks.rank(piece[i:j])))
			i = j
		}
		if firstDiff(got, want) >= 0 || n != len(want) {
			return fmt.Sprintf("%s %q: tournament %v (count %d), tiktoken %v", e.Name(), piece, got, n, want)
		}
	}
	if got := m.encode(e.ranks, nil, piece); firstDiff(got, want) >= 0 {
		return fmt.Sprintf("%s %q: encode %v, tiktoken %v", e.Name(), piece, got, want)
	}
	if n := m.count(e.ranks, piece); n != len(want) {
		return fmt.Sprintf("%s %q: count %d, tiktoken %d tokens", e.Name(), piece, n, len(want))
	}
	g := m.bigMerger()
	for _, sorted := range []bool{false, true} {
		n := g.merge(e.ranks, piece, sorted)
		got := g.appendTokens(e.ranks, nil, piece)
		if firstDiff(got, want) >= 0 || n != len(want) {
			return fmt.Sprintf("%s %q: list merge (sorted %v) %v (count %d), tiktoken %v", e.Name(), piece, sorted, got, n, want)
		}
	}
	return ""
}

// TestMergeMatchesTiktoken checks every merge implementation against
// tiktoken's loop on every piece of the corpus (every sixteenth under the
// race detector), on 64-byte cuts of the longer ones, and on runs of one
// or two characters.
func TestMergeMatchesTiktoken(t *testing.T) {
	runs := []string{"a", " ", "\n", "!", "7", "é", "中", "😀", "ab", "\r\n", " \n", "x ", "\t", "=", "-", "*"}
	for _, e := range encodings(t) {
		var m merger
		check := func(piece string) {
			t.Helper()
			if len(piece) >= 2 {
				if msg := mergeEach(e, &m, piece); msg != "" {
					t.Fatal(msg)
				}
			}
		}
		for _, text := range corpusTexts(t) {
			for i, p := 0, 0; i < len(text); p++ {
				j := e.next(text, i)
				if !raceEnabled || p%16 == 0 {
					check(text[i:j])
					for k := i; k+64 < j; k += 64 {
						check(text[k : k+64])
					}
				}
				i = j
			}
		}
		for _, r := range runs {
			for _, n := range []int{2, 3, 5, 8, 9, 13, 16, 17, 31, 64, 65, 100, 257, 511, 512, 513} {
				if piece := strings.Repeat(r, n); len(piece) <= 520 {
					check(piece)
				}
			}
		}
		m.release()
	}
}

// corpusTexts returns the files of testdata/corpus and testdata/kinds.
func corpusTexts(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"corpus", "kinds"} {
		entries, err := os.ReadDir(filepath.Join("testdata", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, ent := range entries {
			data, err := os.ReadFile(filepath.Join("testdata", dir, ent.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(data))
		}
	}
	return out
}

// TestRoundTrip checks that decoding the tokens of a text gives the text
// back and that Count agrees with Encode.
func TestRoundTrip(t *testing.T) {
	texts := append(corpusTexts(t), "", "x", "\xff\xfe invalid \xc3 bytes", strings.Repeat("ab", 3000))
	for _, e := range encodings(t) {
		for _, text := range texts {
			toks := e.Encode(text)
			back, err := e.Decode(toks)
			if err != nil {
				t.Fatal(err)
			}
			if string(back) != text {
				t.Errorf("%s: Decode(Encode(%.40q)) differs", e.Name(), text)
			}
			if n := e.Count(text); n != len(toks) {
				t.Errorf("%s: Count %d, len(Encode) %d for %.40q", e.Name(), n, len(toks), text)
			}
		}
	}
	if _, err := O200kBase().Decode([]int{-1}); err == nil {
		t.Error("Decode(-1) succeeded")
	}
	if _, err := O200kBase().Decode([]int{O200kBase().VocabSize()}); err == nil {
		t.Error("Decode(VocabSize) succeeded")
	}
}

// TestTruncate checks that a truncated text is a prefix, ends on a
// character boundary, and holds at most the limit of the text's tokens.
func TestTruncate(t *testing.T) {
	texts := corpusTexts(t)
	for _, e := range encodings(t) {
		for _, text := range texts {
			total := e.Count(text)
			for _, max := range []int{0, 1, 2, 7, total / 3, total - 1, total, total + 5} {
				if max < 0 {
					continue
				}
				cut, n := e.Truncate(text, max)
				if !strings.HasPrefix(text, cut) {
					t.Fatalf("%s: Truncate(%d) is not a prefix", e.Name(), max)
				}
				if !utf8.ValidString(cut) && utf8.ValidString(text) {
					t.Fatalf("%s: Truncate(%d) = %q ends inside a character", e.Name(), max, cut)
				}
				if n > max {
					t.Fatalf("%s: Truncate(%d) holds %d tokens", e.Name(), max, n)
				}
				if max >= total && cut != text {
					t.Fatalf("%s: Truncate(%d) of a %d-token text cut it", e.Name(), max, total)
				}
				prefix, _ := e.Decode(e.Encode(text)[:n])
				if string(prefix) != cut {
					t.Fatalf("%s: Truncate(%d) = %.40q, want the first %d tokens %.40q", e.Name(), max, cut, n, prefix)
				}
			}
		}
	}
}
