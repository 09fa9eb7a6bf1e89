package engine

import (
	"context"
	"encoding/json"
	"github.com/tessera-dev/tessera/presets"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/canonical"
)

// assembleLogged assembles req with the default engine and appends its
// record to a new log in the test's temp dir, returning both.
func assembleLogged(t *testing.T, req Request) (*Result, *audit.Log) {
	t.Helper()
	req.Log = &audit.Log{Path: filepath.Join(t.TempDir(), "assemblies.jsonl")}
	e := Engine{Registry: presets.Default()}
	res, err := e.Assemble(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res, req.Log
}

// replay replays the records with correlation id id in l, with no
// catalog.
func replay(t *testing.T, l *audit.Log, id string) audit.Verdict {
	t.Helper()
	e := Engine{Registry: presets.Default()}
	rep, err := e.Replay(context.Background(), nil, l, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Verdicts) != 1 {
		t.Fatalf("%d verdicts for %s, want 1", len(rep.Verdicts), id)
	}
	return rep.Verdicts[0]
}

// A canonical record, logged and read back, lays out again to the same
// bytes with the rendering settings it was assembled with.
func TestCanonicalRecordReplays(t *testing.T) {
	for _, name := range []string{"v2-example.yaml", "support-ticket.yaml"} {
		res, l := assembleLogged(t, Request{Args: preset.Args{"spec": examplePath("canonical", name), "heading-level": "3"}, CorrelationID: "c-1"})
		if !strings.HasPrefix(res.Prompt.Text, "### [") {
			t.Fatalf("%s: heading level 3 not applied:\n%s", name, res.Prompt.Text)
		}
		v := replay(t, l, "c-1")
		rec := v.Record
		if rec.Preset != canonical.Name || len(rec.Sections) != len(res.Prompt.Sections) || rec.AssembledPromptHash != res.Prompt.Hash || len(rec.Inputs) == 0 {
			t.Fatalf("%s: record %+v", name, rec)
		}
		if !v.OK() || v.NewHash != res.Prompt.Hash {
			t.Fatalf("%s: replay %s (%v), new hash %s, want %s", name, v.Status, v.Err, v.NewHash, res.Prompt.Hash)
		}
	}
}

// A record of a prompt fitted to a budget replays with that budget; a
// record whose spec was edited replays to another hash.
func TestCanonicalRecordReplaysBudget(t *testing.T) {
	spec := examplePath("canonical", "v2-example.yaml")
	full := assemble(t, Request{Args: preset.Args{"spec": spec}}).Prompt.Text
	res, l := assembleLogged(t, Request{Args: preset.Args{"spec": spec}, Budget: &Budget{Model: "cl100k_base", Context: 300}, CorrelationID: "c-2"})
	if res.Prompt.Text == full || res.Budget == nil || res.Budget.Final > 300 {
		t.Fatalf("fit did not trim: final %+v", res.Budget)
	}
	v := replay(t, l, "c-2")
	if v.Record.Budget == nil || !v.OK() || v.NewHash != res.Prompt.Hash {
		t.Fatalf("replay of the budgeted prompt: %s (%v), budget %+v", v.Status, v.Err, v.Record.Budget)
	}

	// A record whose spec was edited no longer rebuilds to its hash.
	rec := *v.Record
	rec.Inputs = json.RawMessage(strings.Replace(string(rec.Inputs), "Staff Engineer", "Principal Engineer", 1))
	if string(rec.Inputs) == string(v.Record.Inputs) {
		t.Fatal("the recorded spec has no Staff Engineer to edit")
	}
	edited := &audit.Log{Path: filepath.Join(t.TempDir(), "edited.jsonl")}
	if err := edited.Append(context.Background(), &rec); err != nil {
		t.Fatal(err)
	}
	v = replay(t, edited, "c-2")
	if v.Status != audit.Mismatch || v.NewHash == res.Prompt.Hash {
		t.Fatalf("an edited spec replayed as %s (%v), new hash %s", v.Status, v.Err, v.NewHash)
	}
}

// A canonical record holds the redacted spec, never the secrets in it,
// and counts what was redacted.
func TestCanonicalRecordKeepsNoSecrets(t *testing.T) {
	path := examplePath("canonical", "v2-example.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := canonical.ParseSpec(path, data)
	if err != nil {
		t.Fatal(err)
	}
	secret := "sk-proj-" + strings.Repeat("a1B2", 12)
	spec.ConversationState.Summary = "User pasted key " + secret + " and wrote from jane.doe@example.com."
	data, err = json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res, l := assembleLogged(t, Request{Args: preset.Args{"spec": file}, CorrelationID: "c-3"})
	line, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{secret, "jane.doe@example.com"} {
		if strings.Contains(string(line), leak) || strings.Contains(res.Prompt.Text, leak) {
			t.Errorf("record or prompt holds %q", leak)
		}
	}
	if len(res.Record.Redactions) < 2 {
		t.Errorf("redactions %v, want the key and the e-mail address counted", res.Record.Redactions)
	}
	if v := replay(t, l, "c-3"); !v.OK() {
		t.Errorf("the redacted record replays as %s (%v)", v.Status, v.Err)
	}

	// The canonical preset lays out only what a canonical record holds.
	env, err := Env(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := canonical.New().Rebuild(context.Background(), env, &audit.Record{Preset: "template", Inputs: json.RawMessage(`{"task_ref":"Gen v1.0"}`)}); err == nil {
		t.Error("the canonical preset rebuilt a template record")
	}
}

// ReplayStore over a Log gives what Replay gives.
func TestReplayStoreOfLog(t *testing.T) {
	_, l := assembleLogged(t, Request{Args: preset.Args{"spec": examplePath("canonical", "v2-example.yaml")}, CorrelationID: "c-1"})
	e := Engine{Registry: presets.Default()}
	want, err := e.Replay(context.Background(), nil, l, "c-1")
	if err != nil {
		t.Fatal(err)
	}
	var got []audit.Verdict
	rep, err := e.ReplayStore(context.Background(), nil, l, l.Path, audit.Query{ID: "c-1"}, func(v audit.Verdict) error {
		got = append(got, v)
		return nil
	})
	if err != nil || len(got) != 1 || got[0].Status != want.Verdicts[0].Status || got[0].NewHash != want.Verdicts[0].NewHash || rep.Chain.String() != want.Chain.String() {
		t.Fatalf("ReplayStore %+v %+v %v, Replay %+v", got, rep, err, want)
	}
}
