package vocabtab

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	keys := []string{"a", "", "ab", "abc", "abcdefgh", "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnopq", "bcdefghijklmnop", strings.Repeat("xyz", 9), "\x00\x00\x00", strings.Repeat("\x00", 12)}
	tab, ok := New(keys)
	if !ok {
		t.Fatal("New refused distinct keys")
	}
	for id, k := range keys {
		if k == "" {
			continue
		}
		if got := tab.ID(k); got != uint32(id) {
			t.Errorf("ID(%q) = %d, want %d", k, got, id)
		}
		if got := tab.Likely(k); got != uint32(id) {
			t.Errorf("Likely(%q) = %d, want %d", k, got, id)
		}
		if len(k) >= 2 {
			buf := append([]byte("_"+k), make([]byte, 8)...)
			if got := tab.Span(buf, "_"+k, 1, 1+len(k)); got != uint32(id) {
				t.Errorf("Span(%q) = %d, want %d", k, got, id)
			}
		}
	}
	for _, k := range []string{"", "b", "ba", "abd", "abcdefg", "abcdefghij", "abcdefghijklmno", "abcdefghijklmnoq", "\x00\x00", "\x00\x00\x00\x00", strings.Repeat("\x00", 11), strings.Repeat("\x00", 13)} {
		if got := tab.ID(k); got != None {
			t.Errorf("ID(%q) = %d, want None", k, got)
		}
		if got := tab.Likely(k); got != None {
			t.Errorf("Likely(%q) = %d, want None", k, got)
		}
	}
	if _, ok := New([]string{"ab", "cd", "ab"}); ok {
		t.Error("New took a repeated key")
	}
}

// TestLikely checks Likely against ID on a table of many keys (past the
// filter's first bits) and on strings that are no key.
func TestLikely(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randomKey := func() string {
		b := make([]byte, 1+rng.IntN(24))
		for i := range b {
			b[i] = "ab \x00\xff"[rng.IntN(5)]
		}
		return string(b)
	}
	seen := map[string]bool{}
	var keys []string
	for len(keys) < 20000 {
		if k := randomKey(); !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	tab, ok := New(keys)
	if !ok {
		t.Fatal("New refused distinct keys")
	}
	for id, k := range keys {
		if got := tab.Likely(k); got != uint32(id) {
			t.Fatalf("Likely(%q) = %d, want %d", k, got, id)
		}
	}
	for range 100000 {
		k := randomKey()
		if got, want := tab.Likely(k), tab.ID(k); got != want {
			t.Fatalf("Likely(%q) = %d, ID %d", k, got, want)
		}
	}
}

// TestMarkShort marks every other token of three to eight bytes and
// checks LikelyMarked, Likely and ID on every token and on strings that
// are none.
func TestMarkShort(t *testing.T) {
	keys := []string{"a", "ab", "abc", "abcd", "abcdefgh", "abcdefghi", "bcd", "xyz\x00", "", "bcdefghi"}
	tab, ok := New(keys)
	if !ok {
		t.Fatal("New failed")
	}
	mark := func(id uint32, tok string) bool { return id%2 == 0 }
	tab.MarkShort(func(id uint32, tok string) bool {
		if keys[id] != tok || len(tok) < 3 || len(tok) > 8 {
			t.Errorf("MarkShort called with %d, %q", id, tok)
		}
		return mark(id, tok)
	})
	for id, tok := range keys {
		if tok == "" {
			continue
		}
		want := uint32(id)
		if len(tok) >= 3 && len(tok) <= 8 && mark(want, tok) {
			want += Marked
		}
		if got := tab.LikelyMarked(tok); got != want {
			t.Errorf("LikelyMarked(%q) = %#x, want %#x", tok, got, want)
		}
		if got := tab.Likely(tok); got != uint32(id) {
			t.Errorf("Likely(%q) = %d, want %d", tok, got, id)
		}
		if got := tab.ID(tok); got != uint32(id) {
			t.Errorf("ID(%q) = %d, want %d", tok, got, id)
		}
	}
	for _, s := range []string{"abd", "abcdefg", "zzzzzzzz", "abcdefghij"} {
		if got := tab.LikelyMarked(s); got != None {
			t.Errorf("LikelyMarked(%q) = %#x, want None", s, got)
		}
	}
	if None-Marked <= MaxID {
		t.Error("None looks marked")
	}
}
