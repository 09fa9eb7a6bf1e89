package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unsafe"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/prompt"
)

// scrubber is the engine's last pass of redaction. Presets redact their
// inputs as their designs say; whatever one forgets (a number parameter
// holding a card number, two parameters that join into a key, a tool
// schema's default), the engine replaces, whatever the preset: every
// string of every section before it is rendered (title, body, summary,
// items and their ids, native bodies, tools' descriptions and parameter
// schemas), the output schema, every string of the audit record but its
// hashes and ids, and every string of the provider body. It applies the
// secret patterns (guard.Redactor.RedactSecrets): personal data such as
// an e-mail address in a user's own task is the preset's to keep or
// redact. Matches whose fingerprints tessera.yaml's redaction.allow lists
// are left as they are.
type scrubber struct {
	red   *guard.Redactor
	allow guard.Allowlist
	// counts is what was replaced, per label.
	counts guard.Counts
	// found is every match replaced, for compile: its label and
	// fingerprint, never its text.
	found []foundSecret
}

// foundSecret is a secret the scrubber replaced.
type foundSecret struct {
	label, fingerprint string
}

func newScrubber(red *guard.Redactor, c *catalog.Catalog) *scrubber {
	s := &scrubber{red: red}
	if c != nil {
		if rc := c.Config().Redaction; rc != nil && len(rc.Allow) > 0 {
			s.allow = make(guard.Allowlist, len(rc.Allow))
			for _, f := range rc.Allow {
				s.allow[f] = true
			}
		}
	}
	return s
}

// str returns v with its secrets replaced.
func (s *scrubber) str(v string) string {
	if s == nil {
		return v
	}
	ms := s.red.Find(v, false)
	if len(ms) == 0 {
		return v
	}
	var (
		b   strings.Builder
		pos int
		n   int
	)
	for _, m := range ms {
		fp := guard.Fingerprint(v[m.Start:m.End])
		if s.allow[fp] {
			continue
		}
		if n == 0 {
			b.Grow(len(v))
		}
		n++
		b.WriteString(v[pos:m.Start])
		b.WriteString(guard.Placeholder(m.Label))
		s.counts.Add(m.Label, 1)
		s.found = append(s.found, foundSecret{m.Label, fp})
		pos = m.End
	}
	if n == 0 {
		return v
	}
	b.WriteString(v[pos:])
	return b.String()
}

// sections returns secs with every string scrubbed; secs itself when
// nothing changed.
func (s *scrubber) sections(secs []prompt.Section) []prompt.Section {
	var out []prompt.Section
	for i := range secs {
		sec, changed := s.section(&secs[i])
		if changed && out == nil {
			out = make([]prompt.Section, len(secs))
			copy(out, secs[:i])
		}
		if out != nil {
			out[i] = sec
		}
	}
	if out == nil {
		return secs
	}
	return out
}

func (s *scrubber) section(sec *prompt.Section) (prompt.Section, bool) {
	c := *sec
	c.Title, c.Body, c.Summary, c.NativeBody = s.str(c.Title), s.str(c.Body), s.str(c.Summary), s.str(c.NativeBody)
	changed := c.Title != sec.Title || c.Body != sec.Body || c.Summary != sec.Summary || c.NativeBody != sec.NativeBody
	var items []prompt.Item
	for i, it := range sec.Items {
		id, text := s.str(it.ID), s.str(it.Text)
		if (id != it.ID || text != it.Text) && items == nil {
			items = append(make([]prompt.Item, 0, len(sec.Items)), sec.Items...)
		}
		if items != nil {
			items[i].ID, items[i].Text = id, text
		}
	}
	if items != nil {
		c.Items, changed = items, true
	}
	var tools []prompt.Tool
	for i, t := range sec.Tools {
		d, p := s.str(t.Description), s.json(t.Parameters, nil)
		if (d != t.Description || !bytes.Equal(p, t.Parameters)) && tools == nil {
			tools = append(make([]prompt.Tool, 0, len(sec.Tools)), sec.Tools...)
		}
		if tools != nil {
			tools[i].Description, tools[i].Parameters = d, p
		}
	}
	if tools != nil {
		c.Tools, changed = tools, true
	}
	if kids := s.sections(sec.Children); len(kids) > 0 && &kids[0] != &sec.Children[0] {
		c.Children, changed = kids, true
	}
	return c, changed
}

// json returns raw, a JSON document, with every string in it (keys
// included) and every number of 12 characters or more scrubbed, but the
// values of the keys in skip; raw itself when nothing changed. A number
// that holds a secret (a card number) becomes the placeholder, a string. Everything else keeps its bytes. A document that
// is not JSON is scrubbed as far as its strings can be read.
func (s *scrubber) json(raw []byte, skip map[string]bool) []byte {
	var (
		out    []byte
		copied int
		key    string
	)
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c == '-' || '0' <= c && c <= '9' {
			// A number: a card number can be one. One that holds a
			// secret becomes the placeholder, a string.
			j := i
			for j < len(raw) && strings.IndexByte("0123456789.eE+-", raw[j]) >= 0 {
				j++
			}
			if tok := string(raw[i:j]); j-i >= 12 && !skip[key] {
				if r := s.str(tok); r != tok {
					out = append(out, raw[copied:i]...)
					out = appendString(out, r)
					copied = j
				}
			}
			i = j - 1
			continue
		}
		if raw[i] != '"' {
			continue
		}
		j, esc := i+1, false
		for ; j < len(raw) && raw[j] != '"'; j++ {
			if raw[j] == '\\' {
				esc = true
				j++
			}
		}
		if j >= len(raw) {
			break
		}
		k := j + 1
		for k < len(raw) && (raw[k] == ' ' || raw[k] == '\n' || raw[k] == '\t' || raw[k] == '\r') {
			k++
		}
		isKey := k < len(raw) && raw[k] == ':'
		lit := raw[i : j+1]
		i = j
		if !isKey && skip[key] {
			continue
		}
		// Read in place: raw is not changed while v is in use, and v is
		// kept only as the key or in what str returns. A string with
		// escapes is decoded into a variable of its own, so that the
		// common case does not move v to the heap.
		v := unsafe.String(unsafe.SliceData(lit[1:]), len(lit)-2)
		if esc {
			var d string
			if json.Unmarshal(lit, &d) != nil {
				continue
			}
			v = d
		}
		if isKey {
			key = v
		}
		r := s.str(v)
		if r == v {
			continue
		}
		out = append(out, raw[copied:j+1-len(lit)]...)
		out = appendString(out, r)
		copied = j + 1
	}
	if out == nil {
		return raw
	}
	return append(out, raw[copied:]...)
}

// appendString appends v as a JSON string, HTML characters unescaped.
func appendString(dst []byte, v string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a string always encodes
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte{'\n'})...)
}

// record scrubs, in place, every string of rec that a preset or a
// caller wrote: name, label, each source's token and path, inputs (every
// string and long number in it), and the budget's counter, provider and
// model. The prompt is the rendered text check has checked; hashes, the
// correlation id, the timestamp, the version, the preset's name, section
// keys and redaction labels are the engine's own and are left as they
// are (TestRecordFieldsScrubbed keeps this list whole).
func (s *scrubber) record(rec *audit.Record) {
	if s == nil {
		return
	}
	rec.Name, rec.Label = s.str(rec.Name), s.str(rec.Label)
	var srcs []prompt.Source
	for i, src := range rec.Sources {
		tok, path := s.str(src.Token), s.str(src.Path)
		if (tok != src.Token || path != src.Path) && srcs == nil {
			srcs = append(make([]prompt.Source, 0, len(rec.Sources)), rec.Sources...)
		}
		if srcs != nil {
			srcs[i].Token, srcs[i].Path = tok, path
		}
	}
	if srcs != nil {
		rec.Sources = srcs
	}
	rec.Inputs = s.json(rec.Inputs, nil)
	if b := rec.Budget; b != nil {
		c, p, m := s.str(b.Counter), s.str(b.Provider), s.str(b.Model)
		if c != b.Counter || p != b.Provider || m != b.Model {
			nb := *b
			nb.Counter, nb.Provider, nb.Model = c, p, m
			rec.Budget = &nb
		}
	}
	s.delivery(rec)
}

// delivery scrubs the strings of the record's delivery that name what the
// caller asked for: the model, and why breakpoints were left out.
func (s *scrubber) delivery(rec *audit.Record) {
	if d := rec.Delivery; s != nil && d != nil {
		m, why := s.str(d.Model), s.str(d.BreakpointsDropped)
		if m != d.Model || why != d.BreakpointsDropped {
			nd := *d
			nd.Model, nd.BreakpointsDropped = m, why
			rec.Delivery = &nd
		}
	}
}

// bodySkip are the keys of a provider body whose string values are the
// prompt's text, which check has already checked.
var bodySkip = map[string]bool{"content": true, "text": true, "instructions": true, "system": true}

// body returns the provider body with every other string scrubbed.
func (s *scrubber) body(b []byte) []byte {
	if s == nil {
		return b
	}
	return s.json(b, bodySkip)
}

// check returns an error when text, the rendered prompt, still holds a
// secret: one that no section holds alone, made by two sections meeting
// or by a preset's own labels. Such a prompt is refused rather than
// redacted, since its sections' places would no longer be right.
func (s *scrubber) check(label, text string) error {
	for _, m := range s.red.Find(text, false) {
		fp := guard.Fingerprint(text[m.Start:m.End])
		if s.allow[fp] {
			continue
		}
		line := 1 + strings.Count(text[:m.Start], "\n")
		return fmt.Errorf("%s: the rendered prompt holds a secret (%s, %s) at its line %d that no single section holds: two sections meet to make it; change the text around it, or, if it is not a secret, add %q to redaction.allow in tessera.yaml", label, m.Label, fp, line, fp)
	}
	return nil
}

// layout returns l with its sections and output schema scrubbed; l
// itself when nothing changed.
func (s *scrubber) layout(l *preset.Layout) *preset.Layout {
	secs := s.sections(l.Sections)
	var out *preset.Output
	if l.Output != nil {
		if sc := s.json(l.Output.Schema, nil); !bytes.Equal(sc, l.Output.Schema) {
			o := *l.Output
			o.Schema = sc
			out = &o
		}
	}
	if out == nil && (len(secs) == 0 || &secs[0] == &l.Sections[0]) {
		return l
	}
	c := *l
	c.Sections = secs
	if out != nil {
		c.Output = out
	}
	return &c
}

// addCounts adds what the scrubber replaced to the record's counts.
func (s *scrubber) addCounts(rec *audit.Record) {
	if s == nil || len(s.counts) == 0 {
		return
	}
	if rec.Redactions == nil {
		rec.Redactions = map[string]int{}
	}
	for _, c := range s.counts {
		rec.Redactions[c.Label] += c.N
	}
}
