package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/render"
)

// Secrets a preset forgets to redact, one per field.
var (
	leakKey  = "sk-ant-api03-" + strings.Repeat("Zq7", 8)
	leakGH   = "ghp_" + strings.Repeat("A1b2", 9)
	leakCard = "4111111111111111"
	leakAWS  = "AKIA" + "IOSFODNN7EXAMPL2"
)

// forgetful is a preset that redacts nothing: every field of its
// sections, its output schema and its record's inputs holds a secret.
type forgetful struct{}

func (forgetful) Name() string { return "forgetful" }
func (forgetful) Inputs() []preset.Input {
	return []preset.Input{{Name: "forget", Kind: preset.Bool, Selects: true}}
}
func (forgetful) Units(context.Context, *preset.Env) ([]preset.Unit, error) { return nil, nil }
func (f forgetful) Load(context.Context, *preset.Env, preset.Args) (*preset.Layout, error) {
	return f.layout(), nil
}
func (f forgetful) Rebuild(context.Context, *preset.Env, *audit.Record) (*preset.Layout, error) {
	return f.layout(), nil
}

func (forgetful) layout() *preset.Layout {
	params := `{"type":"object","description":"key ` + leakGH + `","properties":{"k":{"type":"string","default":"` + leakKey + `","enum":["` + leakAWS + `","x"]}}}`
	return &preset.Layout{
		Label: "forgetful",
		Style: render.Style{Heading: render.Heading{Level: 2}, Separator: "\n"},
		Sections: []prompt.Section{
			{Key: "title", Title: "Title " + leakAWS, Body: "joined: " + "sk-ant-api03-" + strings.Repeat("Zq7", 8)},
			{Key: "items", Title: "Items", Items: []prompt.Item{{ID: "mem-" + leakGH, Text: "card " + leakCard}}, Trust: prompt.Untrusted},
			{Key: "tools", Title: "Tools", Body: "use the tool", Tools: []prompt.Tool{{Name: "lookup", Description: "token " + leakGH, Parameters: json.RawMessage(params)}},
				Children: []prompt.Section{{Key: "child", Title: "Child", Body: "aws " + leakAWS}}},
		},
		Output: &preset.Output{Name: "out", Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","description":"` + leakKey + `"}}}`)},
		Record: func(rec *audit.Record) error {
			rec.Label = "label " + leakGH
			rec.Inputs = json.RawMessage(`{"id":"` + leakKey + `","relevance_to":["` + leakGH + `"],"number":` + leakCard + `}`)
			return nil
		},
	}
}

func TestLastPassEveryField(t *testing.T) {
	reg, err := preset.NewRegistry(forgetful{})
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{Registry: reg}
	for _, f := range []provider.Format{provider.OpenAIChat, provider.Anthropic, provider.Gemini, provider.OpenAIResponses} {
		t.Run(f.String(), func(t *testing.T) {
			l := &audit.Log{Path: filepath.Join(t.TempDir(), "log.jsonl")}
			res, err := e.Assemble(context.Background(), Request{Preset: "forgetful", Args: preset.Args{"forget": "true"}, Log: l, Delivery: &Delivery{Format: f}, CorrelationID: "c1"})
			if err != nil {
				t.Fatal(err)
			}
			line, err := os.ReadFile(l.Path)
			if err != nil {
				t.Fatal(err)
			}
			for _, leak := range []string{leakKey, leakGH, leakCard, leakAWS} {
				for what, b := range map[string][]byte{"prompt": []byte(res.Prompt.Text), "record": line, "body": res.Body} {
					if bytes.Contains(b, []byte(leak)) {
						t.Errorf("%s holds %s", what, leak)
					}
				}
			}
			for _, label := range []string{"anthropic-key", "github-token", "card-number", "aws-access-key"} {
				if res.Record.Redactions[label] == 0 {
					t.Errorf("record counts no %s: %v", label, res.Record.Redactions)
				}
			}
			if !json.Valid(res.Body) {
				t.Errorf("body is not JSON: %s", res.Body)
			}
			rep, err := e.Replay(context.Background(), nil, l, "c1")
			if err != nil || !rep.OK() {
				t.Errorf("replay: %+v %v", rep, err)
			}
		})
	}
}

func TestScrubJSON(t *testing.T) {
	s := newScrubber(guard.Default(), nil)
	for _, tc := range []struct{ in, want string }{
		{`{"a":"x","b":1}`, `{"a":"x","b":1}`},
		{`{"a": "key ` + leakGH + `"}`, `{"a": "key [REDACTED:github-token]"}`},
		{`{"` + leakGH + `":1}`, `{"[REDACTED:github-token]":1}`},
		{`{"a":"esc\"aped \u003c ` + leakGH + `"}`, `{"a":"esc\"aped < [REDACTED:github-token]"}`},
		{`{"n":` + leakCard + `,"m":-12.5}`, `{"n":"[REDACTED:card-number]","m":-12.5}`},
		{`["` + leakGH + `"]`, `["[REDACTED:github-token]"]`},
		{`{"content":"` + leakGH + `","x":"` + leakGH + `"}`, `{"content":"` + leakGH + `","x":"[REDACTED:github-token]"}`},
		{`{"a":"unterminated ` + leakGH, `{"a":"unterminated ` + leakGH},
	} {
		if got := string(s.json([]byte(tc.in), bodySkip)); got != tc.want {
			t.Errorf("json(%s)\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	allowed := newScrubber(guard.Default(), nil)
	allowed.allow = guard.Allowlist{guard.Fingerprint(leakGH): true}
	if got := allowed.str("x " + leakGH + " " + leakKey); got != "x "+leakGH+" [REDACTED:anthropic-key]" {
		t.Errorf("allowed: %s", got)
	}
	if err := s.check("p", "a\nb "+leakGH); err == nil || !strings.Contains(err.Error(), "p: the rendered prompt holds a secret (github-token, sha256:") || !strings.Contains(err.Error(), "at its line 2") || strings.Contains(err.Error(), leakGH) {
		t.Errorf("check: %v", err)
	}
}

// FuzzScrubJSON: the JSON scrubber never panics, keeps valid JSON valid,
// and a second pass changes nothing.
func FuzzScrubJSON(f *testing.F) {
	f.Add([]byte(`{"a":"key ` + leakGH + `","n":` + leakCard + `}`))
	f.Add([]byte(`["\"", "\\", -1e10, 41111111111111111111]`))
	f.Add([]byte(`{"content":"x","text":["` + leakKey + `"]}`))
	s := newScrubber(guard.Default(), nil)
	f.Fuzz(func(t *testing.T, in []byte) {
		out := s.json(in, bodySkip)
		if json.Valid(in) && !json.Valid(out) {
			t.Fatalf("%s became %s", in, out)
		}
		if again := s.json(out, bodySkip); !bytes.Equal(again, out) {
			t.Fatalf("second pass: %s -> %s", out, again)
		}
	})
}

// Every string field of a record is scrubbed, but those the engine writes
// itself; a field added to audit.Record, its sources, delivery or budget
// must be added to one list or the other.
func TestRecordFieldsScrubbed(t *testing.T) {
	exempt := map[string]bool{
		"Record.AssembledPrompt": true, "Record.AssembledPromptHash": true, "Record.AssemblyTimestamp": true,
		"Record.CorrelationID": true, "Record.Preset": true, "Record.TesseraVersion": true,
		"Record.PrevHash": true, "Record.Sig": true,
		"Source.Kind": true, "Source.Hash": true,
		"Delivery.Provider": true, "Delivery.BodyHash": true, "Delivery.StablePrefixHash": true, "Delivery.Counter": true,
	}
	s := newScrubber(guard.Default(), nil)
	check := func(v reflect.Value, name string, run func()) {
		for i := range v.NumField() {
			f := v.Field(i)
			field := name + "." + v.Type().Field(i).Name
			if f.Kind() != reflect.String || exempt[field] {
				continue
			}
			old := f.String()
			f.SetString("x " + leakGH)
			run()
			if strings.Contains(f.String(), leakGH) {
				t.Errorf("%s is not scrubbed", field)
			}
			f.SetString(old)
		}
	}
	rec := &audit.Record{Sources: []prompt.Source{{}}, Delivery: &audit.Delivery{}, Budget: &budget.Report{}}
	check(reflect.ValueOf(rec).Elem(), "Record", func() { s.record(rec) })
	src := &prompt.Source{}
	check(reflect.ValueOf(src).Elem(), "Source", func() { rec.Sources = []prompt.Source{*src}; s.record(rec); *src = rec.Sources[0] })
	d := rec.Delivery
	check(reflect.ValueOf(d).Elem(), "Delivery", func() { rec.Delivery = d; s.record(rec); *d = *rec.Delivery })
	b := rec.Budget
	check(reflect.ValueOf(b).Elem(), "Report", func() { rec.Budget = b; s.record(rec); *b = *rec.Budget })
	rec.Inputs = json.RawMessage(`{"x":"` + leakGH + `","includes_resolved":{"` + leakGH + `":"p ` + leakGH + `"}}`)
	s.record(rec)
	if strings.Contains(string(rec.Inputs), leakGH) {
		t.Errorf("inputs not scrubbed: %s", rec.Inputs)
	}
}
