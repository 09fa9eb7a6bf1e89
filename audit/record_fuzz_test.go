package audit_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/prompt"
)

// fzCanon makes the two spellings of "no sources" (nil and empty) one, as
// the JSON form (omitempty) does not tell them apart.
func fzCanon(r *audit.Record) *audit.Record {
	c := *r
	if len(c.Sources) == 0 {
		c.Sources = nil
	}
	return &c
}

// fzCheckLine checks that a marshalled record is exactly one log line.
func fzCheckLine(t *testing.T, line []byte) {
	t.Helper()
	if !bytes.HasSuffix(line, []byte{'\n'}) || bytes.Count(line, []byte{'\n'}) != 1 || bytes.ContainsRune(line, '\r') {
		t.Fatalf("marshalled record is not one line: %q", line)
	}
	if !utf8.Valid(line) {
		t.Fatalf("marshalled record is not valid UTF-8: %q", line)
	}
}

// FuzzParseRecord checks that ParseRecord never panics on any log line,
// that what it accepts has a correlation id and survives a
// marshal-and-parse round trip, and that a record built from fuzzed
// strings is written as one line and read back equal.
func FuzzParseRecord(f *testing.F) {
	const prose = "# Clarification Questions Generator\n\nYou are operating under a certified role prompt.\n\n---\n\n## Context Block\n"
	full := `{"task_ref":"Clarification Questions Generator v1.0","includes_resolved":{"PGC_CONTEXT":"seed/prompts/pgc-contexts/project_discovery.v1.txt"},"assembled_prompt":"# Clarification\n\nYou are...","assembled_prompt_hash":"a1b2","assembly_timestamp":"2026-01-22T15:30:00.000Z","correlation_id":"0b7d4c3e-1f2a-4c5d-8e9f-0a1b2c3d4e5f","workflow_id":"pm_discovery.v1","node_id":"pgc","preset":"template","sources":[{"kind":"template","path":"t.txt","hash":"h","start":0,"end":27},{"kind":"token","token":"PGC_CONTEXT","path":"c.txt","line":7,"hash":"h2","start":3,"end":9}],"tessera_version":"0.1.0"}`
	lines := []string{
		full,
		full + "\n",
		full + "\r\n",
		`{"correlation_id":"x"}`,
		`{"correlation_id":""}`,
		`{}`,
		``,
		"\n",
		"   \r\n",
		`null`,
		`[]`,
		`"string"`,
		`{"correlation_id":"x","sources":[]}`,
		`{"correlation_id":"x","sources":null,"includes_resolved":{}}`,
		`{"correlation_id":"x","includes_resolved":{"A":1}}`,
		`{"correlation_id":"x","sources":[{"start":"0"}]}`,
		`{"correlation_id":"x","unknown_field":{"nested":[1,2,3]}}`,
		`{"correlation_id":"x","assembled_prompt":"\ud800 lone surrogate"}`,
		`{"correlation_id":"x","assembled_prompt":"` + "\xff\xfe" + `"}`,
		`{"correlation_id":"x"} trailing`,
		`{"correlation_id":"x"`,
		`{"correlation_id":"x","correlation_id":"y"}`,
		`{"CORRELATION_ID":"case-folded"}`,
	}
	for i, l := range lines {
		f.Add([]byte(l), "Clarification Questions Generator v1.0", prose, "0b7d4c3e-1f2a-4c5d-8e9f-0a1b2c3d4e5f", "PGC_CONTEXT", "seed/prompts/pgc-contexts/project_discovery.v1.txt", int64(i)*1e9+1_769_095_800_000_000_000)
	}
	f.Add([]byte(full), "", "", "", "", "", int64(0))
	f.Add([]byte(full), "t\x00", "line\r\nwith <html> & \u2028 \u2029 \"quotes\" \\ \t", "id", "", "", int64(-1))
	f.Add([]byte(full), "\xff", "\xc3\x28", "\xed\xa0\x80", "K\xff", "p", int64(1<<62))

	f.Fuzz(func(t *testing.T, line []byte, taskRef, text, id, token, path string, nanos int64) {
		// Any line: no panic; what parses, round-trips.
		r, err := audit.ParseRecord(line)
		if err != nil {
			if r != nil {
				t.Fatalf("record returned with an error")
			}
		} else {
			if r == nil || r.CorrelationID == "" {
				t.Fatalf("accepted a record without a correlation id: %+v", r)
			}
			out, err := r.Marshal()
			if err != nil {
				t.Fatalf("Marshal of a parsed record: %v", err)
			}
			fzCheckLine(t, out)
			back, err := audit.ParseRecord(out)
			if err != nil {
				t.Fatalf("ParseRecord(Marshal(r)): %v", err)
			}
			if !reflect.DeepEqual(fzCanon(back), fzCanon(r)) {
				t.Fatalf("round trip differs:\n got %+v\nwant %+v", back, r)
			}
		}

		// A record built from fuzzed strings.
		rec := &audit.Record{
			Label:               taskRef,
			AssembledPrompt:     text,
			AssembledPromptHash: prompt.Hash(text),
			AssemblyTimestamp:   audit.Timestamp(time.Unix(0, nanos)),
			CorrelationID:       id,
			Preset:              "template",
			TesseraVersion:      "0.0.0-fuzz",
		}
		if token != "" {
			in, err := json.Marshal(map[string]any{"task_ref": taskRef, "includes_resolved": map[string]string{token: path}})
			if err != nil {
				t.Fatal(err)
			}
			rec.Inputs, rec.Name = in, path+"/"+token
			rec.Sources = []prompt.Source{
				{Kind: prompt.SourceTemplate, Path: taskRef, Hash: prompt.Hash(text), End: len(text)},
				{Kind: prompt.SourceToken, Token: token, Path: path, Line: len(token), Hash: prompt.Hash(path), Start: 0, End: len(path)},
			}
		}
		out, err := rec.Marshal()
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		fzCheckLine(t, out)
		back, err := audit.ParseRecord(out)
		if id == "" {
			if err == nil {
				t.Fatalf("a record without a correlation id was accepted")
			}
			return
		}
		if err != nil {
			t.Fatalf("ParseRecord(Marshal(rec)): %v\nline %q", err, out)
		}
		for _, s := range []string{taskRef, text, id, token, path} {
			if !utf8.ValidString(s) {
				// JSON can only hold valid UTF-8; such fields come back
				// with U+FFFD in place of each bad byte.
				want := fzCoerce(rec)
				if !reflect.DeepEqual(back, want) {
					t.Fatalf("round trip of invalid UTF-8 differs:\n got %+v\nwant %+v", back, want)
				}
				return
			}
		}
		if !reflect.DeepEqual(back, rec) {
			t.Fatalf("round trip differs:\n got %+v\nwant %+v", back, rec)
		}
		if back.Validate() != nil {
			t.Fatalf("Validate of a round-tripped record: %v", back.Validate())
		}
	})
}

// fzCoerce returns r with every string as encoding/json writes it: each
// invalid UTF-8 byte replaced by U+FFFD.
func fzCoerce(r *audit.Record) *audit.Record {
	c := *r
	for _, p := range []*string{&c.Label, &c.AssembledPrompt, &c.AssembledPromptHash, &c.CorrelationID, &c.Name} {
		*p = fzValid(*p)
	}
	c.Sources = nil
	for _, s := range r.Sources {
		s.Token, s.Path = fzValid(s.Token), fzValid(s.Path)
		c.Sources = append(c.Sources, s)
	}
	return &c
}

func fzValid(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
