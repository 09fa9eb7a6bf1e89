package canonical

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/prompt"
)

// specSchema decodes a spec file. Keys are the yaml tags of the Spec
// types; the rules word the lists and bound the numbers.
var specSchema = yamldoc.NewSchema[Spec](yamldoc.Options{
	Doc:     "a spec",
	Columns: true,
	Rules: map[string]yamldoc.Rule{
		"constraints":                             yamldoc.Want("a list of constraints"),
		"constraints[].priority":                  yamldoc.Int(1, 5, priorityWant),
		"task":                                    yamldoc.Want("a list of task annotations"),
		"task[].priority":                         yamldoc.Int(1, 5, priorityWant),
		"task[].outputFormat.jsonSchema":          yamldoc.Want("a JSON Schema object"),
		"conversationState.transcript":            yamldoc.Want("a list of messages"),
		"conversationState.retention.maxMessages": yamldoc.Int(1, math.MaxInt32, retentionWant),
		"conversationState.retention.maxChars":    yamldoc.Int(1, math.MaxInt32, retentionWant),
		"input.attachments":                       yamldoc.Want("a list of attachments"),
		"tools":                                   yamldoc.Want("a list of tools"),
		"tools[].parameters":                      yamldoc.Want("a JSON Schema object"),
		"assembler.headingLevel":                  yamldoc.Int(1, 3, "1, 2 or 3 (the number of '#' in a heading)"),
	},
})

// specParser reads spec files, placing every problem at its line and
// column.
var specParser = yamldoc.Parser{Columns: true}

const (
	priorityWant  = "a whole number from 1 (highest) to 5"
	retentionWant = "a whole number of 1 or more (leave the key out for no limit)"
)

// ParseSpec parses a prompt spec from data, the content of the YAML or
// JSON file path (used in diagnostics only; nothing is read). The content
// is normalised first (prompt.Normalize). Keys are the design's names;
// an unknown or repeated key, a value of the wrong type and every rule of
// Validate are reported together, each as "path:line: what is wrong", in a
// diag.List. JSON Schemas (task[].outputFormat.jsonSchema,
// tools[].parameters) are converted to JSON in the order they are written.
// Aliases (*name) are not allowed: write the value out.
func ParseSpec(path string, data []byte) (*Spec, error) {
	text, err := prompt.Normalize(data)
	if err != nil {
		return nil, diag.List{yamldoc.EncodingError(path, err)}
	}
	return parseNormal(path, text)
}

// parseOwned is ParseSpec of data that nothing changes, or uses, once it
// is passed (a file just read): data that prompt.Normalize would return
// as it is (no byte-order mark, valid UTF-8, no carriage return), as
// most files are, is read in place rather than copied to a string. The
// spec's text and values are then slices of data.
func parseOwned(path string, data []byte) (*Spec, error) {
	if len(data) == 0 || bytes.HasPrefix(data, []byte(byteOrderMark)) || bytes.IndexByte(data, '\r') >= 0 || !utf8.Valid(data) {
		return ParseSpec(path, data)
	}
	return parseNormal(path, unsafe.String(unsafe.SliceData(data), len(data)))
}

// byteOrderMark is UTF-8's byte-order mark, which prompt.Normalize drops.
const byteOrderMark = "\xEF\xBB\xBF"

// parseNormal parses text, normalised.
func parseNormal(path, text string) (*Spec, error) {
	if strings.Contains(text, `\/`) && json.Valid([]byte(text)) {
		// JSON may escape '/', YAML may not; the file is JSON, so the
		// escape is dropped (line numbers do not change).
		text = unescapeSlashes(text)
	}
	return parseText(path, text)
}

// parseText parses text, the normalised text of the spec file path, with
// yamldoc (whose fast reader reads the common part of YAML, and its
// parser the rest) and decodes it with specSchema, reporting every
// problem. A text the fast reader reads is decoded from that reader's
// nodes, without a tree of yaml.Nodes (yamldoc.Tree).
func parseText(path, text string) (*Spec, error) {
	top, err := specParser.ParseFileTree(path, text)
	if err != nil {
		return nil, err
	}
	if top.Empty() || top.Kind() == yaml.ScalarNode && top.Tag() == "!!null" {
		return nil, diag.List{diag.Errorf(path, 0, "empty: a spec needs at least a task and an input, for example\n  task:\n    - instruction: Summarise the report.\n  input:\n    userQuery: What changed?")}
	}
	s := &Spec{source: path}
	d := specSchema.DecodeTree(path, top, s)
	errs := d.Errors()
	if top.Kind() != yaml.MappingNode {
		return nil, errs
	}
	s.pos, s.text = d.Pos, text
	for _, e := range s.validate(true) {
		if !d.Bad(e.field) {
			errs = append(errs, e.err)
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	// A valid spec keeps its text, not the decoder's places: places
	// finds them again in the rare case a diagnostic needs them.
	s.pos = nil
	return s, nil
}

// unescapeSlashes replaces `\/` by `/` inside the double-quoted strings of
// a JSON text.
func unescapeSlashes(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	in := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '"':
			in = !in
		case in && c == '\\' && i+1 < len(text):
			if text[i+1] == '/' {
				continue
			}
			b.WriteByte(c)
			i++
			c = text[i]
		}
		b.WriteByte(c)
	}
	return b.String()
}

// JSONSchema returns the JSON Schema of a spec file, generated from the
// decoder that reads it (see yamldoc.Schema.JSONSchema).
func JSONSchema() []byte {
	return specSchema.JSONSchema("https://tessera.dev/schemas/canonical-spec.schema.json", "a canonical prompt spec")
}
