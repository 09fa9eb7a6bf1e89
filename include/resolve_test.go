package include

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/prompt"
)

// mapLoader serves files from a map and counts loads.
type mapLoader struct {
	files map[string]string
	loads int
}

func (m *mapLoader) Load(_ context.Context, p string) (*File, error) {
	m.loads++
	text, ok := m.files[p]
	if !ok {
		return nil, fmt.Errorf("open %s: %w", p, fs.ErrNotExist)
	}
	if err := CheckIncluded(p, text); err != nil {
		return nil, err
	}
	return &File{Path: p, Text: text, Hash: prompt.Hash(text)}, nil
}

func resolve(t *testing.T, src string, includes map[string]string, files map[string]string) (*prompt.Prompt, error) {
	t.Helper()
	tm, err := Parse("tasks/t.txt", src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return Resolve(context.Background(), Input{Template: tm, TemplateHash: prompt.Hash(src), Includes: includes}, &mapLoader{files: files})
}

func TestResolveDesign001Rule(t *testing.T) {
	// A token filling a line becomes the file's lines without a doubled
	// final line break; a token inside a line keeps the line whole.
	files := map[string]string{
		"ctx.txt":    "## Context\n\nline two\n",
		"schema.txt": `{"type": "object"}` + "\n",
		"rules.txt":  "- rule\n",
		"nonl.txt":   "no final newline",
		"blank.txt":  "",
	}
	src := "---\n\n$$CTX\n\n---\nSchema: $$SCHEMA (strict)\n$$include rules.txt\n$$NONL\n[$$BLANK]\n"
	p, err := resolve(t, src, map[string]string{"CTX": "ctx.txt", "SCHEMA": "schema.txt", "NONL": "nonl.txt", "BLANK": "blank.txt"}, files)
	if err != nil {
		t.Fatal(err)
	}
	want := "---\n\n## Context\n\nline two\n\n---\nSchema: {\"type\": \"object\"} (strict)\n- rule\nno final newline\n[]\n"
	if p.Text != want {
		t.Errorf("text =\n%q\nwant\n%q", p.Text, want)
	}
	if p.Hash != prompt.Hash(want) {
		t.Errorf("hash %s is not the hash of the text", p.Hash)
	}
}

func TestResolveSources(t *testing.T) {
	files := map[string]string{"a.txt": "AAA\n", "b.txt": "BB"}
	src := "x $$A y\n$$include b.txt\n$$A\n"
	p, err := resolve(t, src, map[string]string{"A": "a.txt"}, files)
	if err != nil {
		t.Fatal(err)
	}
	if p.Text != "x AAA y\nBB\nAAA\n" {
		t.Fatalf("text %q", p.Text)
	}
	want := []prompt.Source{
		{Kind: prompt.SourceTemplate, Path: "tasks/t.txt", Hash: prompt.Hash(src), Start: 0, End: len(p.Text)},
		{Kind: prompt.SourceToken, Token: "A", Path: "a.txt", Line: 1, Hash: prompt.Hash("AAA\n"), Start: 2, End: 5},
		{Kind: prompt.SourceInclude, Path: "b.txt", Line: 2, Hash: prompt.Hash("BB"), Start: 8, End: 10},
		{Kind: prompt.SourceToken, Token: "A", Path: "a.txt", Line: 3, Hash: prompt.Hash("AAA\n"), Start: 11, End: 14},
	}
	if len(p.Sources) != len(want) {
		t.Fatalf("sources = %+v", p.Sources)
	}
	for i := range want {
		if p.Sources[i] != want[i] {
			t.Errorf("source %d = %+v, want %+v", i, p.Sources[i], want[i])
		}
	}
}

func TestResolveIsSinglePass(t *testing.T) {
	// The included text "$$" and "$$lower" stay literal; nothing included is
	// scanned again.
	p, err := resolve(t, "$$A\n", map[string]string{"A": "a.txt"}, map[string]string{"a.txt": "costs $$ and $$lower\n"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Text != "costs $$ and $$lower\n" {
		t.Errorf("text %q", p.Text)
	}
}

func TestResolveReportsEveryProblem(t *testing.T) {
	files := map[string]string{
		"nested.txt": "ok\nhas $$INNER\n",
		"ok.txt":     "fine",
	}
	src := "$$OUTPUT_SCHEME\n$$MISSING\n$$NESTED\n$$include gone.txt\n$$BADPATH\n"
	includes := map[string]string{
		"OUTPUT_SCHEMA": "ok.txt",
		"MISSING":       "nowhere.txt",
		"NESTED":        "nested.txt",
		"BADPATH":       "../../etc/passwd",
	}
	_, err := resolve(t, src, includes, files)
	var list diag.List
	if !errors.As(err, &list) {
		t.Fatalf("want a diag.List, got %v", err)
	}
	wants := []string{
		"tasks/t.txt:1:1: unknown token $$OUTPUT_SCHEME: the workflow node's includes map has no entry for it (did you mean $$OUTPUT_SCHEMA?)",
		"tasks/t.txt:2:1: $$MISSING (nowhere.txt): file not found",
		"nested.txt:2:5: included text holds the token $$INNER",
		"[included by tasks/t.txt:3:1 for $$NESTED (nested.txt)]",
		"tasks/t.txt:4:1: $$include gone.txt: file not found",
		"includes entry BADPATH: path \"../../etc/passwd\" leaves the catalog root",
		"tasks/t.txt: includes entry OUTPUT_SCHEMA is not used by tasks/t.txt",
	}
	got := list.Error()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
	if len(list) != 6 {
		t.Errorf("got %d problems, want 6:\n%s", len(list), got)
	}
}

func TestResolveNoIncludes(t *testing.T) {
	_, err := resolve(t, "$$X\n", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "tasks/t.txt:1:1: unknown token $$X: the workflow node has no includes") {
		t.Errorf("err = %v", err)
	}
}

func TestResolveReportsIncludesAtTheirFile(t *testing.T) {
	tm, _ := Parse("tasks/t.txt", "$$A\n")
	_, err := Resolve(context.Background(), Input{
		Template: tm, Includes: map[string]string{"A": "a.txt", "B": "b.txt"},
		IncludesFile: "workflows/w.json", IncludesLine: 7,
	}, &mapLoader{files: map[string]string{"a.txt": "a"}})
	if err == nil || err.Error() != "workflows/w.json:7: includes entry B is not used by tasks/t.txt: add $$B to the template or remove the entry" {
		t.Errorf("err = %v", err)
	}
}

func TestResolveDeterministic(t *testing.T) {
	files := map[string]string{"a.txt": "α\n", "b.txt": "β\n", "c.txt": "γ\n"}
	inc := map[string]string{"A": "a.txt", "B": "b.txt", "C": "c.txt"}
	first, err := resolve(t, "$$C $$A $$B\n", inc, files)
	if err != nil {
		t.Fatal(err)
	}
	for range 50 { // map iteration order must not leak into output
		p, err := resolve(t, "$$C $$A $$B\n", inc, files)
		if err != nil || p.Text != first.Text || p.Hash != first.Hash {
			t.Fatalf("run differs: %q %v", p.Text, err)
		}
	}
	if first.Text != "γ α β\n" {
		t.Errorf("lexical order broken: %q", first.Text)
	}
}
