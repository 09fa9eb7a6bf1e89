package include

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/suggest"
	"github.com/tessera-dev/tessera/prompt"
)

// File is a file a Loader supplies: its cleaned path, normalised text and
// prompt hash.
type File struct {
	Path string
	Text string
	Hash string
}

// Loader supplies included files by cleaned, slash-separated path relative
// to the catalog root. It reports a missing file with an error that
// wraps fs.ErrNotExist, and may cache what it reads.
type Loader interface {
	Load(ctx context.Context, path string) (*File, error)
}

// Input is what Resolve assembles.
type Input struct {
	// Template is the scanned template.
	Template *Template
	// TemplateHash is the prompt hash of the template file's text.
	TemplateHash string
	// Includes maps token names to file paths relative to the catalog
	// root: a workflow node's includes map.
	Includes map[string]string
	// IncludesFile, IncludesLine and IncludesCol locate the includes map
	// (a workflow file and the node's line and column) for problems with
	// its entries; when empty, those problems are reported against the
	// template.
	IncludesFile              string
	IncludesLine, IncludesCol int
	// MaxBytes, when above 0, caps the assembled text. Included files are
	// counted as they are loaded, so Resolve stops at the first include
	// that would pass the cap, before anything more is read or the text is
	// built.
	MaxBytes int64
}

// OutputCapKey is the tessera.yaml key that sets Input.MaxBytes, named in
// the error when the cap is passed.
const OutputCapKey = "limits.max_output_bytes"

// Resolve assembles in.Template: it replaces each token with the file the
// includes map names for it, and each directive with the file it names, in
// lexical order, in one pass.
//
// Resolve reports every problem, not just the first, as a diag.List: a
// token with no entry in includes (with the nearest entry as a hint), an
// entry that the template never uses, a path that leaves the root, a
// missing file, and included text that itself holds a token or directive.
func Resolve(ctx context.Context, in Input, l Loader) (*prompt.Prompt, error) {
	t, includes := in.Template, in.Includes
	mapFile, mapLine, mapCol := in.IncludesFile, in.IncludesLine, in.IncludesCol
	// Problems that come from the includes map, reported at the template
	// line, also say which node's map: templates are shared.
	node := func() []diag.Location { return nil }
	if mapFile == "" {
		mapFile, mapLine, mapCol = t.Name, 0, 0
	} else {
		node = func() []diag.Location {
			return []diag.Location{{Label: "node at", Path: mapFile, Line: mapLine, Col: mapCol}}
		}
	}
	var errs diag.List
	files := make([]*File, len(t.Segments))
	size := 0
	nsrc := 1
	for _, s := range t.Segments {
		if s.Kind == Text {
			size += len(s.Text)
		}
	}
	for i, s := range t.Segments {
		if s.Kind == Text {
			continue
		}
		p := s.Path
		if s.Kind == Token {
			raw, ok := includes[s.Name]
			if !ok {
				e := unknownToken(t.Name, s, includes)
				e.Related = node()
				errs = append(errs, e)
				continue
			}
			c, err := CleanPath(raw)
			if err != nil {
				errs = append(errs, diag.ErrorfAt(mapFile, mapLine, mapCol, "includes entry %s: %v", s.Name, err))
				continue
			}
			p = c
		}
		f, err := l.Load(ctx, p)
		if err != nil {
			e := loadError(t.Name, s, p, err)
			if s.Kind == Token {
				e.Related = append(e.Related, node()...)
			}
			errs = append(errs, e)
			continue
		}
		files[i] = f
		size += len(trimFinalNewline(f.Text))
		nsrc++
		if in.MaxBytes > 0 && int64(size) > in.MaxBytes {
			e := diag.ErrorfAt(t.Name, s.Line, s.Col, "the assembled prompt passes the %d-byte output cap at this include of %s (%d bytes, include %d of %d; %d bytes so far): a prompt that large is almost certainly a mistake, such as a file included in a loop; include less, or raise %s in tessera.yaml",
				in.MaxBytes, f.Path, len(f.Text), nsrc-1, len(t.Segments)-textSegments(t), size, OutputCapKey)
			if s.Kind == Token {
				e.Related = append(e.Related, diag.Location{Label: "via", Path: mapFile, Line: mapLine, Col: mapCol, Detail: "$$" + s.Name + " -> " + f.Path})
			}
			return nil, diag.List{e}
		}
	}
	errs = append(errs, unusedEntries(t, includes, mapFile, mapLine, mapCol)...)
	if len(errs) > 0 {
		return nil, errs
	}

	var b strings.Builder
	b.Grow(size)
	sources := make([]prompt.Source, 1, nsrc)
	sources[0] = prompt.Source{Kind: prompt.SourceTemplate, Path: t.Name, Hash: in.TemplateHash}
	for i, s := range t.Segments {
		if s.Kind == Text {
			b.WriteString(s.Text)
			continue
		}
		f := files[i]
		start := b.Len()
		b.WriteString(trimFinalNewline(f.Text))
		src := prompt.Source{Kind: prompt.SourceInclude, Path: f.Path, Line: s.Line, Hash: f.Hash, Start: start, End: b.Len()}
		if s.Kind == Token {
			src.Kind, src.Token = prompt.SourceToken, s.Name
		}
		sources = append(sources, src)
	}
	text := b.String()
	sources[0].End = len(text)
	return &prompt.Prompt{Text: text, Hash: prompt.Hash(text), Sources: sources}, nil
}

func textSegments(t *Template) int {
	n := 0
	for _, s := range t.Segments {
		if s.Kind == Text {
			n++
		}
	}
	return n
}

func trimFinalNewline(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\n' {
		return s[:n-1]
	}
	return s
}

func loadError(name string, s Segment, p string, err error) *diag.Error {
	what := "$$include " + p
	if s.Kind == Token {
		what = "$$" + s.Name + " (" + p + ")"
	}
	var d *diag.Error
	if errors.As(err, &d) && d.Path != "" && d.Path != name {
		// A problem inside the included file (encoding, recursion): report
		// it where it is, and say which line of the template led there.
		e := diag.Wrap(d.Path, d.Line, err, "%s", d.Msg)
		e.Col = d.Col
		e.Related = append(append(e.Related, d.Related...), diag.Location{Label: "included by", Path: name, Line: s.Line, Col: s.Col, Detail: "for " + what})
		return e
	}
	var e *diag.Error
	if errors.Is(err, fs.ErrNotExist) {
		e = diag.Wrap(name, s.Line, err, "%s: file not found: create it or fix the path", what)
	} else {
		e = diag.Wrap(name, s.Line, err, "%s: %v", what, err)
	}
	e.Col = s.Col
	return e
}

func unknownToken(name string, s Segment, includes map[string]string) *diag.Error {
	if len(includes) == 0 {
		return diag.ErrorfAt(name, s.Line, s.Col, "unknown token $$%s: the workflow node has no includes; add \"%s\" to its includes map", s.Name, s.Name)
	}
	msg := "unknown token $$" + s.Name + ": the workflow node's includes map has no entry for it"
	if near := nearest(s.Name, includes); near != "" {
		msg += " (did you mean $$" + near + "?)"
	}
	return diag.ErrorfAt(name, s.Line, s.Col, "%s", msg)
}

// unusedEntries reports includes entries the template never uses: a sign
// that the template and the workflow have drifted apart.
func unusedEntries(t *Template, includes map[string]string, file string, line, col int) diag.List {
	var unused []string
	for k := range includes {
		used := false
		for _, s := range t.Segments {
			if s.Kind == Token && s.Name == k {
				used = true
				break
			}
		}
		if !used {
			unused = append(unused, k)
		}
	}
	slices.Sort(unused)
	var errs diag.List
	for _, k := range unused {
		if !ValidName(k) {
			errs = append(errs, diag.ErrorfAt(file, line, col, "includes entry %q is not a token name: token names match [A-Z][A-Z0-9_]*", k))
			continue
		}
		errs = append(errs, diag.ErrorfAt(file, line, col, "includes entry %s is not used by %s: add $$%s to the template or remove the entry", k, t.Name, k))
	}
	return errs
}

// nearest returns the includes key closest to name, if it is a likely typo.
func nearest(name string, includes map[string]string) string {
	keys := make([]string, 0, len(includes))
	for k := range includes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return suggest.Nearest(name, keys)
}
