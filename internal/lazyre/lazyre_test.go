package lazyre

import (
	"regexp"
	"sync"
	"testing"
)

func TestCompiledOnFirstUse(t *testing.T) {
	l := New(`a(b+)c`)
	if l.re != nil {
		t.Fatal("compiled before first use")
	}
	if !l.MatchString("xabbcx") || l.MatchString("ac") {
		t.Error("MatchString")
	}
	if got := l.ReplaceAllString("abc abbc", "<$1>"); got != "<b> <bb>" {
		t.Errorf("ReplaceAllString = %q", got)
	}
	if got := l.FindStringSubmatch("zabbbc"); len(got) != 2 || got[1] != "bbb" {
		t.Errorf("FindStringSubmatch = %q", got)
	}
	first := l.Get()
	if l.String() != `a(b+)c` || l.Get() != first {
		t.Error("String, or Get compiled again")
	}
}

func TestOf(t *testing.T) {
	re := regexp.MustCompile(`x+`)
	if l := Of(re); l.Get() != re || l.String() != "x+" {
		t.Error("Of does not keep the compiled expression")
	}
}

func TestConcurrentFirstUse(t *testing.T) {
	l := New(`[0-9]+`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !l.MatchString("a1") {
				t.Error("no match")
			}
		}()
	}
	wg.Wait()
}

func TestBadExpressionPanicsOnUse(t *testing.T) {
	l := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("a bad expression did not panic at first use")
		}
	}()
	l.MatchString("x")
}

// prefiltered are expressions of the shapes the packages use: words in
// several languages and scripts, case folded, inside classes, repeats
// and optional parts.
var prefiltered = []string{
	`(?i)(^|[^\p{L}])(before|avant|antes|bevor|перед)(\s+[^\s,.;:?!]+){1,5}|(以后再|后面再|後で)\p{Han}{0,4}`,
	`(?i)\bhttps?://[^\s)>\]}"']+`,
	`(?i)(don'?t|do not|ohne (etwas )?(zu )?ändern|ничего|不要|变更しないで)`,
	`(?i)kelvin|straße|ſtop`,
	`[A-Z][a-z]+'s\s+commits?`,
	`a*b?`,
	`(?i)(x|y)z+`,
	"\uFFFD",
}

func TestPrefilter(t *testing.T) {
	for _, src := range prefiltered {
		t.Logf("%s: %v", src, newPrefilter(src))
	}
	if newPrefilter(`a*b?`) != nil {
		t.Error("an expression that matches the empty text has a prefilter")
	}
	l := New(`(?i)before|avant`)
	l.MatchString("x")
	if l.pre != nil {
		t.Error("the literals were read at the first use")
	}
	l.MatchString("y")
	if l.pre == nil || !l.pre.may("BEFORE") || l.pre.may("after") {
		t.Errorf("prefilter %v after the second use: want one that passes BEFORE and not after", l.pre)
	}
	if !New(`(?i)kelvin`).MatchString("\u212Aelvin") {
		t.Error("the Kelvin sign does not match k under (?i)")
	}
}

// FuzzPrefilter checks that an expression with its prefilter finds what
// it finds without it, in any text.
func FuzzPrefilter(f *testing.F) {
	for _, s := range []string{"before I commit", "Don't touch", "https://x.dev/a", "ſtop", "\u212Aelvin", "Straße", "Marta's commit", "以后再说", "\xff"} {
		f.Add(s)
	}
	exprs := make([]*Regexp, len(prefiltered))
	for i, src := range prefiltered {
		exprs[i] = New(src)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range exprs {
			re := regexp.MustCompile(l.String())
			if got, want := l.MatchString(s), re.MatchString(s); got != want {
				t.Fatalf("%s on %q: %v with its prefilter, %v without", l, s, got, want)
			}
			if got, want := l.ReplaceAllString(s, "<$0>"), re.ReplaceAllString(s, "<$0>"); got != want {
				t.Fatalf("%s on %q: %q with its prefilter, %q without", l, s, got, want)
			}
		}
	})
}
