package include_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/include"
)

// parseFuzzSeeds are templates that exercise the scanner's corners: tokens
// at line and text edges, $$ that stays literal, directive lines with
// surrounding blanks, and directive lines that are errors.
var parseFuzzSeeds = []string{
	"",
	"\n",
	"no tokens at all\n",
	"$$A",
	"$$A\n",
	"$$PGC_CONTEXT\n",
	"# Clarification Questions Generator\n\nYou are operating under a certified role prompt.\n\n---\n\n$$PGC_CONTEXT\n\n---\n\n## Output Schema\n\n$$OUTPUT_SCHEMA\n\n## Prohibited Language\n- Never say \"I recommend\"\n",
	"Schema: $$OUTPUT_SCHEMA.\n",
	"$$A$$B$$C",
	"$$A_1 and $$B9_ and $$Z__",
	"cost $$ and $$lower and $$1 and $$_X and $$$X\n",
	"$$$$A",
	"$",
	"$$",
	"$$$",
	"trailing $$",
	"$$include seed/shared/rules.txt\n",
	"$$include seed/shared/rules.txt",
	"  \t$$include   a/b.txt \t\n",
	"$$include\tx.txt\n",
	"$$include ./a/./b/../c.txt\n",
	"$$include a//b.txt\n",
	"$$include $$A\n",
	"before\n$$include shared/rules.txt\nafter $$TOKEN\n",
	"$$include shared/a.txt\n$$include shared/b.txt\n",
	"$$includes are plain text\n",
	"$$include: also text\n",
	"$$include\n",
	"$$include   \n",
	"$$include ../outside.txt\n",
	"$$include /etc/passwd\n",
	"$$include C:/x.txt\n",
	"$$include a\\b.txt\n",
	"$$include .\n",
	"$$include a/..\n",
	"text $$include x.txt\n",
	"$$include x.txt $$A\n",
	"$$$include x.txt\n",
	"\r\n$$A\r\n",
	"\xff$$A\xfe",
	"line 1\nline 2\nline 3 $$X\n\n\n$$include p.txt\n$$Y",
}

// FuzzParse checks that Parse never panics and that its segments are a
// faithful, ordered cut of the source: they concatenate back to it, their
// lines are where they start, every token is a valid name written as
// $$NAME, every directive is a whole line with a clean path, and, when
// there is no error, no text segment still holds a token or directive.
func FuzzParse(f *testing.F) {
	for _, s := range parseFuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		const name = "seed/prompts/tasks/t.txt"
		tm, err := include.Parse(name, src)
		if tm == nil {
			t.Fatalf("Parse returned a nil template (err %v)", err)
		}
		if tm.Name != name {
			t.Fatalf("Name = %q, want %q", tm.Name, name)
		}
		nlines := 1 + strings.Count(src, "\n")
		if err != nil {
			var list diag.List
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is %T (%v), want a non-empty diag.List", err, err)
			}
			for _, e := range list {
				if e.Path != name || e.Line < 1 || e.Line > nlines || e.Msg == "" {
					t.Fatalf("bad diagnostic %+v (source has %d lines)", e, nlines)
				}
			}
		}

		var rebuilt strings.Builder
		prevLine := 1
		directives := map[int]string{} // offset to directive text
		for i, s := range tm.Segments {
			off := rebuilt.Len()
			if s.Kind == include.Directive {
				directives[off] = s.Text
			}
			if s.Text == "" {
				t.Fatalf("segment %d has empty text: %+v", i, s)
			}
			if !strings.HasPrefix(src[off:], s.Text) {
				t.Fatalf("segment %d text %q is not the source at offset %d", i, s.Text, off)
			}
			rebuilt.WriteString(s.Text)
			if want := 1 + strings.Count(src[:off], "\n"); s.Line != want {
				t.Fatalf("segment %d (%q) Line = %d, want %d", i, s.Text, s.Line, want)
			}
			if s.Line < prevLine {
				t.Fatalf("segment %d Line %d < previous %d", i, s.Line, prevLine)
			}
			prevLine = s.Line
			if i > 0 && s.Kind == include.Text && tm.Segments[i-1].Kind == include.Text {
				t.Fatalf("segments %d and %d are adjacent text segments", i-1, i)
			}
			switch s.Kind {
			case include.Text:
				if s.Name != "" || s.Path != "" {
					t.Fatalf("text segment %d has Name %q Path %q", i, s.Name, s.Path)
				}
				if err == nil && fzTokenRE.MatchString(s.Text) {
					t.Fatalf("text segment %d %q still holds a token", i, s.Text)
				}
			case include.Token:
				if !include.ValidName(s.Name) {
					t.Fatalf("token segment %d has invalid name %q", i, s.Name)
				}
				if s.Text != "$$"+s.Name {
					t.Fatalf("token segment %d Text %q, want %q", i, s.Text, "$$"+s.Name)
				}
				if end := off + len(s.Text); end < len(src) && fzNameByte(src[end]) {
					t.Fatalf("token %q at offset %d is not maximal (next byte %q)", s.Name, off, src[end])
				}
			case include.Directive:
				if s.Name != "" {
					t.Fatalf("directive segment %d has Name %q", i, s.Name)
				}
				if c, cerr := include.CleanPath(s.Path); cerr != nil || c != s.Path {
					t.Fatalf("directive path %q is not clean: CleanPath = %q, %v", s.Path, c, cerr)
				}
				if off > 0 && src[off-1] != '\n' {
					t.Fatalf("directive %q does not start a line", s.Text)
				}
				if end := off + len(s.Text); end < len(src) && src[end] != '\n' {
					t.Fatalf("directive %q does not end a line", s.Text)
				}
				if !strings.HasPrefix(strings.Trim(s.Text, " \t"), "$$include") {
					t.Fatalf("directive segment text %q is not an $$include line", s.Text)
				}
			default:
				t.Fatalf("segment %d has unknown kind %d", i, s.Kind)
			}
		}
		if rebuilt.String() != src {
			t.Fatalf("segments rebuild %q, want %q", rebuilt.String(), src)
		}

		// Without errors, every line that reads as an $$include directive
		// is a directive segment, and there are no others.
		if err == nil {
			n := 0
			for off := 0; off <= len(src); {
				end := strings.IndexByte(src[off:], '\n')
				if end < 0 {
					end = len(src)
				} else {
					end += off
				}
				ln := src[off:end]
				if fzDirectiveLine(ln) {
					if directives[off] != ln {
						t.Fatalf("directive line %q at offset %d is not a directive segment", ln, off)
					}
					n++
				}
				off = end + 1
			}
			if n != len(directives) {
				t.Fatalf("%d directive segments, %d directive lines", len(directives), n)
			}
		}

		// Scanning is deterministic.
		tm2, err2 := include.Parse(name, src)
		if (err == nil) != (err2 == nil) || len(tm2.Segments) != len(tm.Segments) {
			t.Fatalf("second Parse differs")
		}
		for i := range tm.Segments {
			if tm.Segments[i] != tm2.Segments[i] {
				t.Fatalf("second Parse differs at segment %d", i)
			}
		}
	})
}

// fzDirectiveLine reports whether ln, trimmed of blanks, is "$$include"
// alone or followed by a blank.
func fzDirectiveLine(ln string) bool {
	rest, ok := strings.CutPrefix(strings.Trim(ln, " \t"), "$$include")
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t')
}

func fzNameByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
