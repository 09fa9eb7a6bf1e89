package include

import (
	"errors"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/diag"
)

func TestParseSegments(t *testing.T) {
	src := "# T\n$$PGC_CONTEXT\nSchema: $$OUTPUT_SCHEMA.\n  $$include  shared/rules.txt  \ncost $$ and $$lower and $$1 and $$$X\n"
	tm, err := Parse("t.txt", src)
	if err != nil {
		t.Fatal(err)
	}
	type seg struct {
		kind Kind
		text string
		line int
	}
	var got []seg
	for _, s := range tm.Segments {
		v := s.Text
		switch s.Kind {
		case Token:
			v = s.Name
		case Directive:
			v = s.Path
		}
		got = append(got, seg{s.Kind, v, s.Line})
	}
	want := []seg{
		{Text, "# T\n", 1},
		{Token, "PGC_CONTEXT", 2},
		{Text, "\nSchema: ", 2},
		{Token, "OUTPUT_SCHEMA", 3},
		{Text, ".\n", 3},
		{Directive, "shared/rules.txt", 4},
		{Text, "\ncost $$ and $$lower and $$1 and $", 4},
		{Token, "X", 5},
		{Text, "\n", 5},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d segments %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("segment %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if names := tm.Tokens(); strings.Join(names, ",") != "PGC_CONTEXT,OUTPUT_SCHEMA,X" {
		t.Errorf("Tokens() = %v", names)
	}
}

func TestParseTokenNameRule(t *testing.T) {
	for src, want := range map[string]string{
		"$$A":           "A",
		"$$A_1b":        "A_1", // the name is the longest [A-Z][A-Z0-9_]* run
		"$$PGC_CONTEXT": "PGC_CONTEXT",
		"x$$Y.z":        "Y",
		"$$_X":          "",
		"$$9":           "",
		"$$":            "",
		"$":             "",
	} {
		tm, err := Parse("t", src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		got := ""
		for _, s := range tm.Segments {
			if s.Kind == Token {
				got = s.Name
			}
		}
		if got != want {
			t.Errorf("%q: token %q, want %q", src, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src, want string
		line      int
	}{
		{"a\nsee $$include x.txt\n", "must stand on a line of its own", 2},
		{"$$include\n", "needs a path", 1},
		{"\n\n$$include ../up.txt\n", "leaves the catalog root", 3},
		{"$$include /etc/passwd\n", "is absolute", 1},
		{"$$include C:/x.txt\n", "is absolute", 1},
		{"$$include a\\b.txt\n", "backslash", 1},
	}
	for _, tt := range tests {
		_, err := Parse("tasks/t.txt", tt.src)
		var list diag.List
		if !errors.As(err, &list) || len(list) != 1 {
			t.Errorf("%q: err = %v, want one diagnostic", tt.src, err)
			continue
		}
		if list[0].Path != "tasks/t.txt" || list[0].Line != tt.line || !strings.Contains(list[0].Msg, tt.want) {
			t.Errorf("%q: got %q, want tasks/t.txt:%d: ...%s...", tt.src, list[0].Error(), tt.line, tt.want)
		}
	}
}

func TestParseReportsEveryError(t *testing.T) {
	_, err := Parse("t", "$$include\nx $$include y\n$$include ../z\n")
	var list diag.List
	if !errors.As(err, &list) || len(list) != 3 {
		t.Fatalf("want 3 problems, got %v", err)
	}
	for i, e := range list {
		if e.Line != i+1 {
			t.Errorf("problem %d on line %d", i, e.Line)
		}
	}
}

func TestDirectiveLookalikesAreText(t *testing.T) {
	for _, src := range []string{"$$includes x\n", "$$include:x\n", "$$INCLUDE_X is a token\n"} {
		tm, err := Parse("t", src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		for _, s := range tm.Segments {
			if s.Kind == Directive {
				t.Errorf("%q parsed as a directive", src)
			}
		}
	}
}

func TestCheckIncluded(t *testing.T) {
	if err := CheckIncluded("a.txt", `{"$schema": "x", "cost": "$$", "$$lower": 1}`); err != nil {
		t.Errorf("plain text rejected: %v", err)
	}
	err := CheckIncluded("ctx/a.txt", "one\ntwo $$NESTED\n$$include b.txt\n")
	var list diag.List
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("want 2 problems, got %v", err)
	}
	if list[0].Path != "ctx/a.txt" || list[0].Line != 2 || !strings.Contains(list[0].Msg, "$$NESTED") {
		t.Errorf("first problem = %q", list[0])
	}
	if list[1].Line != 3 || !strings.Contains(list[1].Msg, "$$include") {
		t.Errorf("second problem = %q", list[1])
	}
}

func TestCleanPath(t *testing.T) {
	ok := map[string]string{
		"a/b.txt":        "a/b.txt",
		"./a//b.txt":     "a/b.txt",
		"a/../b.txt":     "b.txt",
		"dir with space": "dir with space",
	}
	for in, want := range ok {
		got, err := CleanPath(in)
		if err != nil || got != want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", ".", "..", "../a", "a/../../b", "/abs", "C:/x", "c:x", "a\\b", "a\x00b"} {
		if got, err := CleanPath(in); err == nil {
			t.Errorf("CleanPath(%q) = %q, want an error", in, got)
		}
	}
}

func TestCleanPathDriveAfterCleaning(t *testing.T) {
	for _, in := range []string{"./C:/x.txt", "a/../C:/x", "./A:", "\xff.txt"} {
		if got, err := CleanPath(in); err == nil {
			t.Errorf("CleanPath(%q) = %q, want an error", in, got)
		}
	}
}
