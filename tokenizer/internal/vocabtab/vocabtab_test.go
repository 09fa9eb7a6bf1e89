package vocabtab

import (
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
	}
	if _, ok := New([]string{"ab", "cd", "ab"}); ok {
		t.Error("New took a repeated key")
	}
}
