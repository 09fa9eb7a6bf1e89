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
