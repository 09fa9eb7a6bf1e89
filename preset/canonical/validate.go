package canonical

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/schema"
)

var (
	mimePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(?:\s*;.*)?$`)
)

const nameWant = "letters, digits, '_' and '-', at most 64"

// fieldError is a problem with one field.
type fieldError struct {
	field string
	err   *diag.Error
}

// errNilSpec is the error of a method called on a nil *Spec.
var errNilSpec = errors.New("canonical: no spec (nil *Spec): parse one with ParseSpec")

// Validate checks the spec against the design's rules: at least one task
// annotation, each with an instruction; a user query; priorities 1 to 5
// (0 means the default, 3); transcript roles user, assistant or tool;
// render mode summary, transcript or both; heading level 1 to 3; ids and
// names well formed and unique; JSON Schemas that are JSON objects;
// attachments with a name, a media type and valid base64; text that is
// valid UTF-8. It returns every problem as a diag.List, located in the
// file the spec was parsed from when there is one. A nil spec is an
// error.
func (s *Spec) Validate() error {
	if s == nil {
		return errNilSpec
	}
	var errs diag.List
	for _, e := range s.validate(false) {
		errs = append(errs, e.err)
	}
	errs.Sort()
	return errs.Err()
}

// places returns where each field is in the file the spec was parsed
// from, as line and column: the decoder's while ParseSpec checks the
// spec, or found again from the spec's text for a spec it returned (only
// a diagnostic needs them). It is nil for a spec built in Go.
func (s *Spec) places() func(field string) (line, col int) {
	if s.pos != nil || s.text == "" {
		return s.pos
	}
	top, err := specParser.ParseFileTree(s.source, s.text)
	if err != nil {
		return nil // not reached: the text parsed before
	}
	var again Spec
	return specSchema.DecodeTree(s.source, top, &again).Pos
}

// errorAt returns a diagnostic at field, or at its nearest enclosing
// field that is in the file.
func (s *Spec) errorAt(pos func(string) (int, int), field, format string, args ...any) *diag.Error {
	for at := field; at != "" && pos != nil; {
		if line, col := pos(at); line > 0 {
			return diag.ErrorfAt(s.source, line, col, format, args...)
		}
		i := strings.LastIndexAny(at, ".[")
		if i < 0 {
			break
		}
		at = at[:i]
	}
	return diag.Errorf(s.source, 0, format, args...)
}

// validate returns every problem of s. decoded says s was just decoded
// from a file (parseText): its JSON Schemas were then written by the
// decoder, which writes a JSON object, valid by construction, for a
// mapping and refuses anything else, so they are not read again to check
// it.
func (s *Spec) validate(decoded bool) []fieldError {
	var (
		errs   []fieldError
		pos    func(string) (int, int)
		placed bool
	)
	add := func(at fieldRef, format string, args ...any) {
		f := at.String()
		if !placed {
			pos, placed = s.places(), true
		}
		errs = append(errs, fieldError{f, s.errorAt(pos, f, "%s: %s", f, fmt.Sprintf(format, args...))})
	}
	blank := func(t string) bool { return strings.TrimSpace(t) == "" }
	priority := func(at fieldRef, p int) {
		if p < 0 || p > 5 {
			add(at, "want a whole number from 1 (highest) to 5, found %d", p)
		}
	}
	s.eachText(func(at fieldRef, _ bool, p *string) {
		switch {
		case !utf8.ValidString(*p):
			add(at, "not valid UTF-8 text")
		case at.entry() && blank(*p):
			add(at, "empty: write the entry or remove it")
		}
	})

	if st := s.ConversationState; st != nil {
		switch st.RenderMode {
		case "", ModeSummary, ModeTranscript, ModeBoth:
		default:
			add(field("conversationState.renderMode"), "want summary, transcript or both, found %q", st.RenderMode)
		}
		if r := st.Retention; r != nil {
			if r.MaxMessages < 0 {
				add(field("conversationState.retention.maxMessages"), "want 1 or more, or 0 for no limit, found %d", r.MaxMessages)
			}
			if r.MaxChars < 0 {
				add(field("conversationState.retention.maxChars"), "want 1 or more, or 0 for no limit, found %d", r.MaxChars)
			}
		}
		for i, m := range st.Transcript {
			switch m.Role {
			case RoleUser, RoleAssistant, RoleTool:
			case "":
				add(itemField("conversationState.transcript", i, "role"), "missing: say who sent the message, user, assistant or tool")
			default:
				add(itemField("conversationState.transcript", i, "role"), "want user, assistant or tool, found %q", m.Role)
			}
			if blank(m.Content) {
				add(itemField("conversationState.transcript", i, "content"), "missing: give the message's text, or leave the message out")
			}
			if m.At != "" && !validTime(m.At) {
				add(itemField("conversationState.transcript", i, "at"), "want an RFC 3339 time such as 2026-03-01T09:30:00Z, or a date such as 2026-03-01, found %q", m.At)
			}
		}
	}

	var ids names
	for i, c := range s.Constraints {
		if blank(c.Text) {
			add(itemField("constraints", i, "text"), "missing: write the rule")
		}
		priority(itemField("constraints", i, "priority"), c.Priority)
		if c.ID != "" {
			if !validName(c.ID) {
				add(itemField("constraints", i, "id"), "want %s, found %q", nameWant, c.ID)
			} else if j, ok := ids.seen(i, c.ID, len(s.Constraints), func(j int) string { return s.Constraints[j].ID }); ok {
				add(itemField("constraints", i, "id"), "the id %q is also constraints[%d]'s: give each its own", c.ID, j)
			}
		}
		switch c.Source {
		case "", "system", "policy", "runtime":
		default:
			add(itemField("constraints", i, "source"), "want system, policy or runtime, found %q", c.Source)
		}
	}

	if len(s.Task) == 0 {
		add(field("task"), "give at least one task annotation, for example\n  task:\n    - instruction: Summarise the report.")
	}
	ids = names{}
	for i, t := range s.Task {
		if blank(t.Instruction) {
			add(itemField("task", i, "instruction"), "missing: say what to do")
		}
		priority(itemField("task", i, "priority"), t.Priority)
		if t.ID != "" {
			if !validName(t.ID) {
				add(itemField("task", i, "id"), "want %s, found %q", nameWant, t.ID)
			} else if j, ok := ids.seen(i, t.ID, len(s.Task), func(j int) string { return s.Task[j].ID }); ok {
				add(itemField("task", i, "id"), "the id %q is also task[%d]'s: give each its own", t.ID, j)
			}
		}
		if o := t.OutputFormat; o != nil {
			switch o.Type {
			case FormatMarkdown, FormatJSON, FormatXML, FormatText:
			case "":
				add(itemField("task", i, "outputFormat.type"), "missing: say markdown, json, xml or text")
			default:
				add(itemField("task", i, "outputFormat.type"), "want markdown, json, xml or text, found %q", o.Type)
			}
			if o.Name != "" && !validName(o.Name) {
				add(itemField("task", i, "outputFormat.name"), "want %s, found %q", nameWant, o.Name)
			}
			if len(o.JSONSchema) > 0 {
				if o.Type != FormatJSON && o.Type != "" {
					add(itemField("task", i, "outputFormat.jsonSchema"), "a schema needs type json, not %s: change the type or remove the schema", o.Type)
				}
				if !decoded && !jsonObject(o.JSONSchema) {
					add(itemField("task", i, "outputFormat.jsonSchema"), "want a JSON Schema object")
				} else {
					errs = append(errs, s.schemaErrors(itemField("task", i, "outputFormat.jsonSchema"), o.JSONSchema)...)
				}
			}
		}
	}

	if blank(s.Input.UserQuery) {
		add(field("input.userQuery"), "missing: give the user's query, for example\n  input:\n    userQuery: What changed?")
	}
	for i, a := range s.Input.Attachments {
		if blank(a.Name) {
			add(itemField("input.attachments", i, "name"), "missing: give the file's name")
		}
		switch {
		case a.Mime == "":
			add(itemField("input.attachments", i, "mime"), "missing: give the media type, such as text/plain")
		case !mimePattern.MatchString(a.Mime):
			add(itemField("input.attachments", i, "mime"), "want a media type such as text/plain, found %q", a.Mime)
		}
		if strings.ContainsAny(a.URI, " \t\n") {
			add(itemField("input.attachments", i, "uri"), "holds white space: percent-encode it")
		}
		if a.BytesBase64 != "" {
			b, err := decodeBase64(a.BytesBase64)
			switch {
			case err != nil:
				add(itemField("input.attachments", i, "bytesBase64"), "not valid standard base64 (%v)", err)
			case textual(a.Mime) && !utf8.Valid(b):
				add(itemField("input.attachments", i, "bytesBase64"), "the type %s is text, but the bytes are not UTF-8: convert them, or give a binary media type", a.Mime)
			}
		}
	}

	tools := names{last: true}
	for i, t := range s.Tools {
		switch {
		case t.Name == "":
			add(itemField("tools", i, "name"), "missing: give the name the model calls the tool by")
		case schema.CheckToolName(t.Name) != nil:
			add(itemField("tools", i, "name"), "%q: %v", t.Name, schema.CheckToolName(t.Name))
		default:
			if j, ok := tools.seen(i, t.Name, len(s.Tools), func(j int) string { return s.Tools[j].Name }); ok {
				add(itemField("tools", i, "name"), "the name %q is also tools[%d]'s: give each its own", t.Name, j)
			}
		}
		switch {
		case len(t.Parameters) == 0:
		case !decoded && !jsonObject(t.Parameters):
			add(itemField("tools", i, "parameters"), "want a JSON Schema object")
		default:
			errs = append(errs, s.schemaErrors(itemField("tools", i, "parameters"), t.Parameters)...)
		}
	}

	if a := s.Assembler; a != nil && (a.HeadingLevel < 0 || a.HeadingLevel > 3) {
		add(field("assembler.headingLevel"), "want 1, 2 or 3 (the number of '#' in a heading), found %d", a.HeadingLevel)
	}
	return errs
}

// names finds the entry an id or name repeats, in a list whose valid
// names are passed to seen in order. A short list is looked back over,
// cheaper than a map; a long one keeps a map.
type names struct {
	m    map[string]int
	last bool // report the last entry with the name, not the first
}

// seen returns the entry before i, of a list of n, whose name (nameOf) is
// name, a valid one.
func (x *names) seen(i int, name string, n int, nameOf func(j int) string) (int, bool) {
	if n <= 32 {
		at, found := 0, false
		for j := 0; j < i; j++ {
			if nameOf(j) == name {
				if !x.last {
					return j, true
				}
				at, found = j, true
			}
		}
		return at, found
	}
	if x.m == nil {
		x.m = make(map[string]int, n)
	}
	j, ok := x.m[name]
	if !ok || x.last {
		x.m[name] = i
	}
	return j, ok
}

func validTime(s string) bool {
	if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return true
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// jsonObject reports whether raw is a valid JSON object.
func jsonObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && json.Valid(raw)
}

// decodeBase64 decodes standard base64, ignoring line breaks and spaces
// (a YAML block scalar may wrap it).
func decodeBase64(s string) ([]byte, error) {
	if strings.ContainsAny(s, " \t\n") {
		s = strings.Join(strings.Fields(s), "")
	}
	return base64.StdEncoding.DecodeString(s)
}

// textualTypes are the media types outside text/* whose content is text.
var textualTypes = []string{
	"application/json", "application/xml", "application/yaml", "application/x-yaml",
	"application/javascript", "application/x-ndjson", "application/ld+json", "application/csv",
}

// textual reports whether a media type is text, so that an attachment's
// bytes are rendered.
func textual(mime string) bool {
	m, _, _ := strings.Cut(strings.ToLower(mime), ";")
	m = strings.TrimSpace(m)
	return strings.HasPrefix(m, "text/") || strings.HasSuffix(m, "+json") || strings.HasSuffix(m, "+xml") || slices.Contains(textualTypes, m)
}
