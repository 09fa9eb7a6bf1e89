package include_test

import (
	"context"
	"errors"
	"io/fs"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/include"
	"github.com/tessera-dev/tessera/prompt"
)

// fzLoader is an in-memory include.Loader keyed by cleaned path.
type fzLoader map[string]*include.File

func (l fzLoader) Load(_ context.Context, p string) (*include.File, error) {
	if f, ok := l[p]; ok {
		return f, nil
	}
	return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

func fzFile(p, text string) *include.File {
	return &include.File{Path: p, Text: text, Hash: prompt.Hash(text)}
}

// fzNoDollars removes every "$$" from s, as a loader's CheckIncluded would
// refuse such text.
func fzNoDollars(s string) string {
	for strings.Contains(s, "$$") {
		s = strings.ReplaceAll(s, "$$", "$")
	}
	return s
}

// FuzzResolve assembles fuzzed templates with fuzzed include texts and
// checks the result against a direct concatenation: text, hash, source
// ranges and determinism. Option bits add an unused includes entry (bit 0)
// or leave one file out of the loader (bit 1); both must fail with a
// located diagnostic.
func FuzzResolve(f *testing.F) {
	const (
		ctxBlock = "## Context Block\n\nNext Document: Project Discovery Document\n\nPurpose: Explore solution space, validate assumptions...\n"
		schema   = "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"type\": \"object\"}\n"
	)
	for _, s := range parseFuzzSeeds {
		f.Add(s, ctxBlock, schema, uint8(0))
	}
	f.Add("$$A\n", "", "", uint8(0))
	f.Add("$$A\n", "\n", "\n\n", uint8(0))
	f.Add("x$$A$$B$$A\n", "no final newline", "two\n\n", uint8(0))
	f.Add("$$include a.txt\n$$include a.txt\n", "shared\n", "", uint8(0))
	f.Add("$$include inc/a.txt\n$$A\n", "same file both ways\n", "", uint8(0))
	f.Add("$$include rules.txt\n$$CTX\n", ctxBlock, schema, uint8(1))
	f.Add("$$include rules.txt\n$$CTX\n", ctxBlock, schema, uint8(2))
	f.Add("$$CTX\n", "cost $5 $ and $\n", "$", uint8(3))
	f.Add("\xff$$A\xfe", "\xc3", "\r\n", uint8(0))

	f.Fuzz(func(t *testing.T, src, a, b string, opts uint8) {
		const name = "seed/prompts/tasks/t.txt"
		tm, err := include.Parse(name, src)
		if err != nil {
			return // syntax errors are FuzzParse's concern
		}
		contents := [2]string{fzNoDollars(a), fzNoDollars(b)}
		for _, c := range contents {
			if err := include.CheckIncluded("c.txt", c); err != nil {
				t.Fatalf("CheckIncluded rejects text without $$: %v", err)
			}
		}
		files := fzLoader{}
		includes := map[string]string{}
		for i, tok := range tm.Tokens() {
			p := "inc/" + strings.ToLower(tok) + ".txt"
			includes[tok] = p
			files[p] = fzFile(p, contents[i%2])
		}
		n := 0
		for _, s := range tm.Segments {
			if s.Kind == include.Directive {
				if _, ok := files[s.Path]; !ok {
					files[s.Path] = fzFile(s.Path, contents[(n+1)%2])
					n++
				}
			}
		}
		in := include.Input{
			Template:     tm,
			TemplateHash: prompt.Hash(src),
			Includes:     includes,
			IncludesFile: "seed/workflows/w.json",
			IncludesLine: 7,
		}
		ctx := context.Background()

		if opts&1 != 0 {
			bad := map[string]string{"unused_entry": "inc/x.txt"}
			for k, v := range includes {
				bad[k] = v
			}
			in2 := in
			in2.Includes = bad
			p, err := include.Resolve(ctx, in2, files)
			if err == nil || p != nil {
				t.Fatalf("an unused includes entry was accepted")
			}
			if !fzHasDiag(err, in.IncludesFile, in.IncludesLine) {
				t.Fatalf("unused entry not reported at %s:%d: %v", in.IncludesFile, in.IncludesLine, err)
			}
		}
		if opts&2 != 0 {
			for _, s := range tm.Segments {
				if s.Kind == include.Text {
					continue
				}
				p := s.Path
				if s.Kind == include.Token {
					p = includes[s.Name]
				}
				less := fzLoader{}
				for k, v := range files {
					if k != p {
						less[k] = v
					}
				}
				res, err := include.Resolve(ctx, in, less)
				if err == nil || res != nil {
					t.Fatalf("missing file %s was not reported", p)
				}
				if !errors.Is(err, fs.ErrNotExist) || !fzHasDiag(err, name, s.Line) {
					t.Fatalf("missing file %s: want a not-found diagnostic at %s:%d, got %v", p, name, s.Line, err)
				}
				break
			}
		}

		got, err := include.Resolve(ctx, in, files)
		if err != nil {
			t.Fatalf("Resolve: %v", err)
		}

		var want strings.Builder
		type span struct {
			seg  include.Segment
			file *include.File
		}
		var spans []span
		for _, s := range tm.Segments {
			switch s.Kind {
			case include.Text:
				want.WriteString(s.Text)
			case include.Token:
				fl := files[includes[s.Name]]
				want.WriteString(strings.TrimSuffix(fl.Text, "\n"))
				spans = append(spans, span{s, fl})
			case include.Directive:
				fl := files[s.Path]
				want.WriteString(strings.TrimSuffix(fl.Text, "\n"))
				spans = append(spans, span{s, fl})
			}
		}
		if got.Text != want.String() {
			t.Fatalf("text = %q, want %q", got.Text, want.String())
		}
		if got.Hash != prompt.Hash(got.Text) {
			t.Fatalf("hash %s is not the hash of the text", got.Hash)
		}
		if len(got.Sources) != 1+len(spans) {
			t.Fatalf("%d sources, want %d", len(got.Sources), 1+len(spans))
		}
		s0 := got.Sources[0]
		if s0.Kind != prompt.SourceTemplate || s0.Path != name || s0.Hash != in.TemplateHash || s0.Start != 0 || s0.End != len(got.Text) {
			t.Fatalf("template source = %+v", s0)
		}
		prevEnd := 0
		for i, sp := range spans {
			s := got.Sources[i+1]
			if s.Start < prevEnd || s.Start > s.End || s.End > len(got.Text) {
				t.Fatalf("source %d range [%d, %d) out of order or outside the text (len %d, previous end %d)", i+1, s.Start, s.End, len(got.Text), prevEnd)
			}
			prevEnd = s.End
			if got.Text[s.Start:s.End] != strings.TrimSuffix(sp.file.Text, "\n") {
				t.Fatalf("source %d: text[%d:%d] = %q, want %q", i+1, s.Start, s.End, got.Text[s.Start:s.End], sp.file.Text)
			}
			if s.Path != sp.file.Path || s.Hash != sp.file.Hash || s.Line != sp.seg.Line {
				t.Fatalf("source %d = %+v, want path %s hash %s line %d", i+1, s, sp.file.Path, sp.file.Hash, sp.seg.Line)
			}
			switch sp.seg.Kind {
			case include.Token:
				if s.Kind != prompt.SourceToken || s.Token != sp.seg.Name {
					t.Fatalf("source %d = %+v, want token %s", i+1, s, sp.seg.Name)
				}
			case include.Directive:
				if s.Kind != prompt.SourceInclude || s.Token != "" {
					t.Fatalf("source %d = %+v, want an include", i+1, s)
				}
			}
		}

		again, err := include.Resolve(ctx, in, files)
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("second Resolve differs: %v", err)
		}
	})
}

func fzHasDiag(err error, path string, line int) bool {
	var list diag.List
	if !errors.As(err, &list) {
		return false
	}
	for _, e := range list {
		if e.Path == path && e.Line == line {
			return true
		}
	}
	return false
}

var fzTokenRE = regexp.MustCompile(`\$\$[A-Z]`)

// FuzzCheckIncluded checks that included text holding "$$" followed by a
// token's first letter is always rejected, text without "$$" is always
// accepted, and every problem is located in the file.
func FuzzCheckIncluded(f *testing.F) {
	for _, s := range []string{
		"",
		"plain prose\n",
		"price: $5, $$ and $$lower and $$1\n",
		"$$A",
		"text $$TOKEN here\n",
		"line 1\nline 2 $$X\n",
		"$$$X",
		"$$$$X",
		"$$$include x.txt",
		"$$include shared/rules.txt\n",
		"$$include",
		"$$include\n",
		"$$includes\n",
		"a $$\nB",
		"$$\n$$A\n$$B\n",
		"\xff$$Z\xfe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		const name = "seed/prompts/shared/rules.txt"
		err := include.CheckIncluded(name, text)
		if !strings.Contains(text, "$$") {
			if err != nil {
				t.Fatalf("text without $$ rejected: %v", err)
			}
			return
		}
		if fzTokenRE.MatchString(text) && err == nil {
			t.Fatalf("text %q holds $$ and a token letter but was accepted", text)
		}
		if err == nil {
			return
		}
		var list diag.List
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error is %T (%v), want a non-empty diag.List", err, err)
		}
		nlines := 1 + strings.Count(text, "\n")
		for _, e := range list {
			if e.Path != name || e.Line < 1 || e.Line > nlines {
				t.Fatalf("bad diagnostic %+v (text has %d lines)", e, nlines)
			}
		}
		if !fzTokenRE.MatchString(text) && !strings.Contains(text, "$$include") {
			t.Fatalf("text %q rejected without a token or directive: %v", text, err)
		}
	})
}
