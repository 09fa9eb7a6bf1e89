package untrusted

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/prompt"
)

// instructionKinds are the kinds of entry never injected.
var instructionKinds = []string{"system", "meta", "override"}

// Instruction reports whether e is of a kind never injected into a
// prompt, as instruction-like: system, meta or override (a tag of one of
// them makes the entry that kind).
func (e Entry) Instruction() bool {
	return slices.Contains(instructionKinds, strings.ToLower(e.Kind))
}

var (
	parser       = yamldoc.Parser{Columns: true}
	memoryParser = yamldoc.Parser{Columns: true}
	memorySchema = yamldoc.NewSchema[Entry](yamldoc.Options{Doc: "a memories file", Columns: true})
)

// ParseMemories reads memories from JSON Lines (path names the file in
// diagnostics): one JSON object a line, with the keys of Entry (id,
// text, kind, tags, created, embedding, embedder); blank lines are
// skipped. A tag system, meta or override makes the entry that kind. Every
// problem is reported at once, at its line and column.
func ParseMemories(path string, data []byte) ([]Entry, error) {
	text, err := prompt.Normalize(data)
	if err != nil {
		return nil, yamldoc.EncodingError(path, err)
	}
	var (
		out  []Entry
		errs diag.List
		seen = map[string]int{}
	)
	for n, line := range strings.Split(text, "\n") {
		n++
		if strings.TrimSpace(line) == "" {
			continue
		}
		if i := strings.IndexFunc(line, func(r rune) bool { return r != ' ' && r != '\t' }); line[i] != '{' {
			errs = append(errs, diag.ErrorfAt(path, n, i+1, "want a JSON object a line, such as {\"id\": \"m1\", \"text\": \"...\"}"))
			continue
		}
		top, err := memoryParser.ParseJSONText(path, line)
		if err != nil {
			errs = append(errs, shiftLines(path, err, n-1)...)
			continue
		}
		var e Entry
		d := memorySchema.Decode(path, top, &e)
		bad := shiftLines(path, d.Errors(), n-1)
		at := func(key, format string, args ...any) {
			l, c := d.Pos(key)
			if l == 0 {
				l, c = 1, 1
			}
			bad = append(bad, diag.ErrorfAt(path, l+n-1, c, format, args...))
		}
		switch {
		case len(bad) > 0:
		case e.Text == "":
			at("", "memory has no text")
		case e.ID != "" && !oneLineID(e.ID):
			at("id", "memory id %q is not one line of printable text: use a short id such as m1", e.ID)
		case e.ID != "" && seen[e.ID] > 0:
			at("id", "memory id %q is repeated (first at line %d)", e.ID, seen[e.ID])
		}
		if e.Created != "" {
			if _, err := time.Parse(time.RFC3339, e.Created); err != nil {
				at("created", "created %q: want an RFC 3339 time such as 2026-11-27T16:00:00Z", e.Created)
			}
		}
		if len(bad) > 0 {
			errs = append(errs, bad...)
			continue
		}
		if e.ID != "" {
			seen[e.ID] = n
		}
		out = append(out, e)
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	applyTags(out)
	return out, nil
}

// shiftLines returns err's problems, in the file path, moved down by
// lines.
func shiftLines(path string, err error, lines int) diag.List {
	if err == nil {
		return nil
	}
	var list diag.List
	var one *diag.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = diag.List{one}
	default:
		return diag.List{diag.Errorf(path, lines+1, "%v", err)}
	}
	out := make(diag.List, 0, len(list))
	for _, e := range list {
		c := *e
		if c.Line > 0 {
			c.Line += lines
		}
		out = append(out, &c)
	}
	return out
}

// oneLineID reports whether id is one line of printable text: no line
// break, no control or format character, at most 256 bytes, so that it
// cannot start a line of its own in the prompt.
func oneLineID(id string) bool {
	if len(id) > 256 {
		return false
	}
	return !strings.ContainsFunc(id, func(r rune) bool {
		return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' || r == '\u0085' || r == unicode.ReplacementChar
	})
}

// applyTags gives an entry tagged system, meta or override that kind, so
// that it is filtered as instruction-like whatever kind it was given.
func applyTags(entries []Entry) {
	for i := range entries {
		e := &entries[i]
		if slices.Contains(instructionKinds, strings.ToLower(e.Kind)) {
			continue
		}
		for _, t := range e.Tags {
			if k := strings.ToLower(strings.TrimSpace(t)); slices.Contains(instructionKinds, k) {
				e.Kind = k
				break
			}
		}
	}
}

// checkIDs refuses an id that is not one line (see oneLineID), at its
// line and column.
func checkIDs(path string, pos func(string) (int, int), key string, entries []Entry) diag.List {
	var errs diag.List
	for i, e := range entries {
		if e.ID != "" && !oneLineID(e.ID) {
			line, col := pos(fmt.Sprintf("%s[%d].id", key, i))
			errs = append(errs, diag.ErrorfAt(path, line, col, "%s entry %d: id %q is not one line of printable text: use a short id such as m1", key, i+1, e.ID))
		}
	}
	return errs
}
