package tokenizer

import (
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the generated texts under testdata/kinds")

// A kind is one kind of text the counter is benchmarked and checked on.
// Its text is a file under testdata (prose and scripts written by hand,
// the generated ones written by TestKindTexts -update) or a run of one
// character.
type kind struct {
	name   string
	file   string // under testdata; empty for a run
	repeat string // a run: repeat × times
	times  int
}

// kinds lists the kinds of text in the order benchmarks report them.
// bench/peers reads the same files.
var kinds = []kind{
	{name: "prose", file: "kinds/prose.txt"},
	{name: "code", file: "corpus/code.go.txt"},
	{name: "cjk", file: "kinds/cjk.txt"},
	{name: "cyrillic", file: "kinds/cyrillic.txt"},
	{name: "arabic", file: "kinds/arabic.txt"},
	{name: "devanagari", file: "kinds/devanagari.txt"},
	{name: "emoji", file: "kinds/emoji.txt"},
	{name: "random", file: "kinds/random.txt"},
	{name: "run-a-20k", repeat: "a", times: 20_000},
	{name: "run-a-100k", repeat: "a", times: 100_000},
}

// text returns the kind's text.
func (k kind) text(tb testing.TB) string {
	tb.Helper()
	if k.file == "" {
		return strings.Repeat(k.repeat, k.times)
	}
	data, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(k.file)))
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

// generated are the texts made by a seeded generator rather than by hand.
var generated = map[string]func() string{
	"kinds/emoji.txt":  emojiText,
	"kinds/random.txt": randomText,
}

// emojiText returns about 6 KB of emoji-dense text: pictographs alone and
// with skin tones, joined sequences, flags, keycaps and variation
// selectors, with a few words and punctuation between them.
func emojiText() string {
	r := rand.New(rand.NewPCG(2026, 1))
	ranges := [][2]rune{{0x1F300, 0x1F5FF}, {0x1F600, 0x1F64F}, {0x1F680, 0x1F6C5}, {0x1F90C, 0x1F9FF}}
	pick := func() rune {
		g := ranges[r.IntN(len(ranges))]
		return g[0] + rune(r.IntN(int(g[1]-g[0]+1)))
	}
	people := []rune{0x1F44B, 0x1F44D, 0x1F44F, 0x1F64B, 0x1F64F, 0x1F466, 0x1F469, 0x1F468, 0x1F9D1, 0x1F3C3}
	words := []string{"ok", "wow", "ship it", "lol", "thanks", "same", "yes!", "nope", "done", "soon", "gg", "brb"}
	var b strings.Builder
	for b.Len() < 6000 {
		switch x := r.IntN(100); {
		case x < 55:
			b.WriteRune(pick())
		case x < 65:
			b.WriteRune(people[r.IntN(len(people))])
			b.WriteRune(0x1F3FB + rune(r.IntN(5)))
		case x < 72:
			b.WriteRune(people[r.IntN(len(people))])
			for k := r.IntN(3); k >= 0; k-- {
				b.WriteRune(0x200D)
				b.WriteRune(pick())
			}
		case x < 78:
			b.WriteRune(0x1F1E6 + rune(r.IntN(26)))
			b.WriteRune(0x1F1E6 + rune(r.IntN(26)))
		case x < 82:
			b.WriteByte("0123456789#*"[r.IntN(12)])
			b.WriteString("\uFE0F\u20E3")
		case x < 87:
			b.WriteRune([]rune{0x2764, 0x2600, 0x2705, 0x26A1, 0x2728, 0x270C}[r.IntN(6)])
			b.WriteRune(0xFE0F)
		default:
			b.WriteString(words[r.IntN(len(words))])
		}
		switch x := r.IntN(100); {
		case x < 50:
			b.WriteByte(' ')
		case x < 85:
		case x < 92:
			b.WriteString(", ")
		case x < 96:
			b.WriteString("! ")
		default:
			b.WriteByte('\n')
		}
	}
	b.WriteByte('\n')
	return b.String()
}

// randomText returns about 8 KB of code points drawn uniformly from all of
// Unicode's scalar values (U+0000 to U+10FFFF less the surrogates),
// assigned or not.
func randomText() string {
	r := rand.New(rand.NewPCG(2026, 2))
	var b strings.Builder
	for b.Len() < 8000 {
		c := rune(r.IntN(0x10FFFF + 1))
		if !utf8.ValidRune(c) {
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// TestKindTexts checks that the generated texts under testdata/kinds are
// what their generators make, and rewrites them with -update.
func TestKindTexts(t *testing.T) {
	for file, gen := range generated {
		path := filepath.Join("testdata", filepath.FromSlash(file))
		want := gen()
		if *update {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestKindTexts -update to write it)", err)
		}
		if string(got) != want {
			t.Errorf("%s differs from its generator's output; regenerate it with go test -run TestKindTexts -update", file)
		}
	}
	for _, k := range kinds {
		if text := k.text(t); !utf8.ValidString(text) || len(text) < 4000 {
			t.Errorf("%s: %d bytes, valid UTF-8 %v: want at least 4 KB of valid text", k.name, len(text), utf8.ValidString(text))
		}
	}
}
