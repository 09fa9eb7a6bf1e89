package canonical

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/prompt"
)

// FuzzParseSpec checks that the loader never panics; that every problem
// it reports is a diagnostic in the file, on a line the file has; and that
// a spec it accepts is recorded as json.Marshal writes it, is not changed
// by Assemble (which redacts a copy of the parts it changes), and
// assembles to valid, deterministic text with the seven headings in
// order, its schemas valid JSON.
//
// Its seeds are small: the fuzzer minimizes each new input it finds
// interesting by trying to cut every run of its bytes, and the example
// specs (2.4 and 3.2 KB) as seeds kept it minimizing for its whole run,
// at a few execs a second. The golden tests read the examples.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		minimal,
		"",
		"[]",
		"task: x",
		minimal + "identity: {tone: [a]}\n",
		minimal + "conversationState: {renderMode: both, retention: {maxMessages: 1}, transcript: [{role: user, content: \"~~~\\n~~~~\"}, {role: tool, content: b}]}\n",
		minimal + "constraints: [{text: a, priority: 9}, {priority: 2}]\n",
		"task:\n  - instruction: x\n    outputFormat: {type: json, jsonSchema: {a: [1, 0x10, .5, ~, \"s\"], b: {c: !!binary aGk=}}}\ninput: {userQuery: q}\n",
		"{\"task\": [{\"instruction\": \"a\\/b\"}], \"input\": {\"userQuery\": \"q\"}}",
		"task:\n  - &a {instruction: x}\n  - *a\ninput: {userQuery: q}\n",
		minimal + "---\n" + minimal,
		minimal + "input: {userQuery: again}\n",
		"task: [{instruction: x}]\ninput: {userQuery: q, attachments: [{name: a, mime: text/plain, bytesBase64: aGk=}, {name: b, mime: x}]}\n",
		minimal + "tools: [{name: t, parameters: {type: object}}, {name: t}]\n",
		minimal + "assembler: {headingLevel: 3, showEmptySections: false}\n",
		"task:\n- instruction: \"\\u2028\"\ninput:\n  userQuery: \"\\xff\"\n",
		"\xef\xbb\xbf" + minimal,
		"task: [{instruction: x}]\ninput: {userQuery: \"a\xffb\"}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := ParseSpec("spec.yaml", data)
		// A file's bytes read in place (parseOwned) give the same.
		owned, ownedErr := parseOwned("spec.yaml", bytes.Clone(data))
		if fmt.Sprint(ownedErr) != fmt.Sprint(err) || (owned == nil) != (spec == nil) {
			t.Fatalf("parseOwned: %v, ParseSpec: %v", ownedErr, err)
		}
		if err != nil {
			if spec != nil {
				t.Fatal("spec returned with an error")
			}
			var list diag.List
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %T %v is not a diag.List", err, err)
			}
			nl := bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
			maxLine := bytes.Count(nl, []byte{'\n'}) + 2
			for _, e := range list {
				if e.Path != "spec.yaml" || e.Line < 0 || e.Line > maxLine || e.Msg == "" {
					t.Fatalf("bad diagnostic %+v for %d lines", e, maxLine-1)
				}
			}
			return
		}
		rec, err := spec.marshalRecord()
		if err != nil {
			t.Fatal(err)
		} else if want, _ := json.Marshal(spec); !bytes.Equal(rec, want) {
			t.Fatalf("the record's spec:\n%s\njson.Marshal:\n%s", rec, want)
		}
		if o, _ := owned.marshalRecord(); !bytes.Equal(o, rec) {
			t.Fatalf("parseOwned's spec:\n%s\nParseSpec's:\n%s", o, rec)
		}
		// The decoder writes every schema as a JSON object, which
		// validate(true) does not check again.
		for _, task := range spec.Task {
			if o := task.OutputFormat; o != nil && len(o.JSONSchema) > 0 && !jsonObject(o.JSONSchema) {
				t.Fatalf("decoded schema %s is not a JSON object", o.JSONSchema)
			}
		}
		for _, tool := range spec.Tools {
			if len(tool.Parameters) > 0 && !jsonObject(tool.Parameters) {
				t.Fatalf("decoded parameters %s are not a JSON object", tool.Parameters)
			}
		}
		res, err := Assemble(context.Background(), spec, Config{})
		if after, _ := spec.marshalRecord(); !bytes.Equal(after, rec) {
			t.Fatalf("Assemble changed the spec:\n%s\nwas\n%s", after, rec)
		}
		if err != nil {
			if strings.Contains(err.Error(), "cannot be redacted without breaking the JSON") {
				return
			}
			t.Fatalf("accepted spec does not assemble: %v", err)
		}
		text := res.Prompt.Text
		if !utf8.ValidString(text) || strings.ContainsRune(text, '\r') || res.Prompt.Hash != prompt.Hash(text) {
			t.Fatalf("text not normalised or hash wrong: %q", text)
		}
		if hs := headings(text); len(hs) < 2 || hs[len(hs)-1] != "## [Input]" && !strings.HasPrefix(hs[0], "#") {
			t.Fatalf("headings %q", hs)
		}
		again, err := Assemble(context.Background(), spec, Config{})
		if err != nil || again.Prompt.Text != text {
			t.Fatal("not deterministic")
		}
		if res.OutputSchema != nil && !json.Valid(res.OutputSchema) {
			t.Fatalf("schema %s", res.OutputSchema)
		}
		for _, s := range res.Sections {
			if err := s.Validate(); err != nil {
				t.Fatalf("section %s: %v", s.Key, err)
			}
		}
		for _, sp := range res.Prompt.Sections {
			if sp.Start < 0 || sp.End > len(text) || sp.Start > sp.End || sp.Hash != prompt.Hash(text[sp.Start:sp.End]) {
				t.Fatalf("span %+v", sp)
			}
		}
	})
}
