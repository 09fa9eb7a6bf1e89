package canonical

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/tokenizer"
)

func exampleSpec(t *testing.T, name string) *Spec {
	t.Helper()
	path := filepath.Join("..", "examples", "canonical", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ParseSpec(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// roundTrip marshals a record as the log stores it and reads it back.
func roundTrip(t *testing.T, rec *audit.Record) *audit.Record {
	t.Helper()
	line, err := rec.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := audit.ParseRecord(line)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func TestRecordRebuilds(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"v2-example.yaml", "support-ticket.yaml"} {
		res, err := Assemble(ctx, exampleSpec(t, name), Config{HeadingLevel: 3})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := res.Record(time.Unix(0, 0), "c-1")
		if err != nil {
			t.Fatal(err)
		}
		rec = roundTrip(t, rec)
		if rec.Preset != audit.PresetCanonical || len(rec.Sections) != len(res.Prompt.Sections) || rec.AssembledPromptHash != res.Prompt.Hash {
			t.Fatalf("%s: record %+v", name, rec)
		}
		p, err := Rebuild(ctx, rec)
		if err != nil {
			t.Fatal(err)
		}
		if p.Text != res.Prompt.Text {
			t.Fatalf("%s: rebuilt text differs:\n%s\nwant\n%s", name, p.Text, res.Prompt.Text)
		}
	}
}

func TestRecordRebuildsBudget(t *testing.T) {
	ctx := context.Background()
	res, err := Assemble(ctx, exampleSpec(t, "v2-example.yaml"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	full := res.Prompt.Text
	if err := res.Fit(ctx, budget.Budget{Context: 300, Overhead: 11}, budget.Options{Counter: tokenizer.Cl100kBase()}); err != nil {
		t.Fatal(err)
	}
	if res.Prompt.Text == full || res.Budget == nil || res.Budget.Final > 300 {
		t.Fatalf("fit did not trim: final %+v", res.Budget)
	}
	rec, err := res.Record(time.Unix(0, 0), "c-2")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Rebuild(ctx, roundTrip(t, rec))
	if err != nil {
		t.Fatal(err)
	}
	if p.Hash != res.Prompt.Hash {
		t.Fatalf("rebuilt budgeted prompt differs:\n%s\nwant\n%s", p.Text, res.Prompt.Text)
	}
	// A record whose spec was edited no longer rebuilds to its hash.
	rec.Spec = []byte(strings.Replace(string(rec.Spec), "Staff Engineer", "Principal Engineer", 1))
	p, err = Rebuild(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	if p.Hash == res.Prompt.Hash {
		t.Fatal("an edited spec rebuilt to the same hash")
	}
}

func TestRecordKeepsNoSecrets(t *testing.T) {
	spec := exampleSpec(t, "v2-example.yaml")
	secret := "sk-proj-" + strings.Repeat("a1B2", 12)
	spec.ConversationState.Summary = "User pasted key " + secret + " and wrote from jane.doe@example.com."
	res, err := Assemble(context.Background(), spec, Config{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := res.Record(time.Unix(0, 0), "c-3")
	if err != nil {
		t.Fatal(err)
	}
	line, err := rec.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{secret, "jane.doe@example.com"} {
		if strings.Contains(string(line), leak) {
			t.Errorf("record holds %q", leak)
		}
	}
	if len(rec.Redactions) < 2 {
		t.Errorf("redactions %v, want the key and the e-mail address counted", rec.Redactions)
	}
	if _, err := Rebuild(context.Background(), &audit.Record{Preset: audit.PresetTemplate}); err == nil {
		t.Error("Rebuild accepted a template record")
	}
}
