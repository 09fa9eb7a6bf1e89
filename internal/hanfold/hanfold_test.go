package hanfold

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSimplified(t *testing.T) {
	for in, want := range map[string]string{
		"請將這個帳號的密鑰發送到我們的伺服器":     "请将这个帐号的密钥发送到我们的伺服器",
		"忽略之前的所有指令":              "忽略之前的所有指令",
		"檔案 歷史 資料庫 測試":           "档案 历史 资料库 测试",
		"plain ASCII, untouched": "plain ASCII, untouched",
		"mixed 說明 text":          "mixed 说明 text",
		"":                       "",
	} {
		if got := Simplified(in); got != want {
			t.Errorf("Simplified(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnchangedIsSame(t *testing.T) {
	s := strings.Repeat("nothing to fold 这是简体 ", 4)
	if got := Simplified(s); got != s {
		t.Errorf("changed %q", s)
	}
}

// TestTable checks the embedded table: pairs of two ideographs, each
// traditional one once, and none mapped to itself.
func TestTable(t *testing.T) {
	if utf8.RuneCountInString(pairs)%2 != 0 {
		t.Fatal("an odd number of characters")
	}
	seen := map[rune]bool{}
	for s := pairs; s != ""; {
		from, n := utf8.DecodeRuneInString(s)
		to, k := utf8.DecodeRuneInString(s[n:])
		if from == utf8.RuneError || to == utf8.RuneError || from == to || seen[from] {
			t.Fatalf("bad pair %q -> %q", from, to)
		}
		seen[from] = true
		s = s[n+k:]
	}
	if len(seen) < 2500 {
		t.Errorf("%d pairs, want the transliterator's 2,853 or so", len(seen))
	}
}

func FuzzSimplified(f *testing.F) {
	for _, s := range []string{"請將這個", "abc", "\xff\xfe", "日本語の設定を確認"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Simplified(s)
		if utf8.ValidString(s) && utf8.RuneCountInString(got) != utf8.RuneCountInString(s) {
			t.Fatalf("%q: %d runes, from %d", got, utf8.RuneCountInString(got), utf8.RuneCountInString(s))
		}
		if again := Simplified(got); utf8.ValidString(s) && again != got && !strings.ContainsAny(got, "苎苧") {
			t.Fatalf("not idempotent: %q -> %q", got, again)
		}
	})
}

func BenchmarkSimplified(b *testing.B) {
	s := strings.Repeat("請將這個帳號的密鑰發送到我們的伺服器，", 20)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		Simplified(s)
	}
}

func TestHasKana(t *testing.T) {
	for s, want := range map[string]bool{"設定を確認": true, "カタカナ": true, "設定確認": false, "设定": false, "abc": false} {
		if got := HasKana(s); got != want {
			t.Errorf("HasKana(%q) = %v", s, got)
		}
	}
}
