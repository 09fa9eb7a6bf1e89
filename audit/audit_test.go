package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/prompt"
)

func record(id, text string) *Record {
	return &Record{
		AssembledPrompt:     text,
		AssembledPromptHash: prompt.Hash(text),
		AssemblyTimestamp:   Timestamp(time.Date(2026, 1, 22, 15, 30, 0, 0, time.FixedZone("x", 3600))),
		CorrelationID:       id,
		Preset:              "template",
		Name:                "wf/n",
		Inputs:              json.RawMessage(`{"task_ref":"Gen v1.0","includes_resolved":{"CTX":"ctx/a.txt"}}`),
		Sources:             []prompt.Source{{Kind: prompt.SourceToken, Token: "CTX", Path: "ctx/a.txt", Hash: prompt.Hash("a"), Start: 0, End: 1}},
		TesseraVersion:      "test",
	}
}

func TestRecordShape(t *testing.T) {
	r := record("id-1", "Hello <b> & \"you\"\n")
	if r.AssemblyTimestamp != "2026-01-22T14:30:00.000Z" {
		t.Errorf("timestamp %s is not RFC 3339 UTC", r.AssemblyTimestamp)
	}
	data, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") {
		t.Errorf("not one line: %q", s)
	}
	if !strings.HasPrefix(s, `{"assembled_prompt":"Hello <b> & \"you\"\n","assembled_prompt_hash":"`) {
		t.Errorf("design 001's fields should come first, unescaped: %s", s)
	}
	back, err := ParseRecord(data)
	if err != nil {
		t.Fatal(err)
	}
	if back.AssembledPrompt != r.AssembledPrompt || back.Sources[0] != r.Sources[0] || back.Validate() != nil {
		t.Errorf("round trip: %+v (%v)", back, back.Validate())
	}
}

// TestParseOlderTemplateRecord reads a record written before the
// template preset kept its task_ref and includes_resolved in inputs:
// they are read into Inputs, and its workflow and node into Name.
func TestParseOlderTemplateRecord(t *testing.T) {
	line := `{"task_ref":"Gen v1.0","includes_resolved":{"CTX":"ctx/a.txt"},"assembled_prompt":"x","assembled_prompt_hash":"` + prompt.Hash("x") + `","assembly_timestamp":"2026-01-22T14:30:00.000Z","correlation_id":"old-1","workflow_id":"wf","node_id":"n","preset":"template","label":"wf/n","tessera_version":"0.1.0"}`
	r, err := ParseRecord([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"task_ref":"Gen v1.0","includes_resolved":{"CTX":"ctx/a.txt"}}`; string(r.Inputs) != want || r.Name != "wf/n" {
		t.Errorf("inputs %s, name %q; want %s and wf/n", r.Inputs, r.Name, want)
	}
	// Inputs written by this version win over older members.
	r, err = ParseRecord([]byte(strings.Replace(line, `"preset"`, `"inputs":{"task_ref":"New"},"name":"a/b","preset"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Inputs) != `{"task_ref":"New"}` || r.Name != "a/b" {
		t.Errorf("inputs %s, name %q", r.Inputs, r.Name)
	}
}

func TestCorrelationIDs(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 100 {
		id := NewCorrelationID()
		if !uuid.MatchString(id) || seen[id] {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
		if err := CheckCorrelationID(id); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []string{"", "has space", "tab\t", "nl\n", strings.Repeat("x", 257)} {
		if CheckCorrelationID(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if CheckCorrelationID("run-2026/01/22#3") != nil {
		t.Error("a caller's own id was rejected")
	}
}

func TestValidateAndParseErrors(t *testing.T) {
	r := record("id", "text")
	r.AssembledPrompt = "text, edited"
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "changed after it was written") {
		t.Errorf("tampered record: %v", err)
	}
	for _, line := range []string{"", "{", `{"task_ref": "x"}`, `[]`, `{"correlation_id": 5}`} {
		if _, err := ParseRecord([]byte(line)); err == nil {
			t.Errorf("ParseRecord(%q) accepted", line)
		}
	}
}

func TestAppendAndFind(t *testing.T) {
	ctx := context.Background()
	l := &Log{Path: filepath.Join(t.TempDir(), "logs", "audit.jsonl"), Sync: true}
	for i, id := range []string{"a", "b", "a"} {
		if err := l.Append(ctx, record(id, fmt.Sprint("prompt ", i))); err != nil {
			t.Fatal(err)
		}
	}
	found, bad, err := l.Find(ctx, "a")
	if err != nil || len(bad) != 0 {
		t.Fatal(err, bad)
	}
	if len(found) != 2 || found[0].Line != 1 || found[1].Line != 3 || found[1].Record.AssembledPrompt != "prompt 2" {
		t.Errorf("found %+v", found)
	}
}

// A writer that died mid-line leaves a torn line; the next append starts
// a new line, and readers report the torn one without losing the others.
func TestTornLine(t *testing.T) {
	ctx := context.Background()
	l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	if err := l.Append(ctx, record("first", "one")); err != nil {
		t.Fatal(err)
	}
	data, _ := record("torn", "two").Marshal()
	f, _ := os.OpenFile(l.Path, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(data[:len(data)/2])
	f.Close()
	if err := l.Append(ctx, record("third", "three")); err != nil {
		t.Fatal(err)
	}
	found, bad, err := l.Find(ctx, "third")
	if err != nil || len(found) != 1 || found[0].Line != 3 {
		t.Fatalf("found %+v, %v", found, err)
	}
	if len(bad) != 1 || bad[0].Line != 2 {
		t.Errorf("bad lines = %+v", bad)
	}
}

// Appends from many goroutines and several processes never interleave.
func TestConcurrentAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const procs, perProc, goroutines = 3, 40, 4
	big := strings.Repeat("x", 70_000) // larger than a pipe buffer or page
	var cmds []*exec.Cmd
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppend$")
		cmd.Env = append(childEnv(), "AUDIT_HELPER_LOG="+path, "AUDIT_HELPER_ID=p"+strconv.Itoa(p), "AUDIT_HELPER_N="+strconv.Itoa(perProc), "AUDIT_HELPER_KEY="+string(testKey))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	l := &Log{Path: path, Key: testKey}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perProc {
				if err := l.Append(context.Background(), record(fmt.Sprintf("g%d", g), fmt.Sprint(big, i))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	err := l.Scan(context.Background(), func(e Entry, err error) error {
		if err != nil {
			return fmt.Errorf("line %d: %w", e.Line, err)
		}
		if verr := e.Record.Validate(); verr != nil {
			return fmt.Errorf("line %d: %w", e.Line, verr)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := procs*perProc + goroutines*perProc; n != want {
		t.Errorf("%d records, want %d", n, want)
	}
	// Every process chained and signed its records to the line before,
	// under the lock: the chain holds from the first line to the last.
	rep, err := l.VerifyChain(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.First != 1 || rep.Lines != n || rep.Signed != n {
		t.Errorf("chain after concurrent appends: %s", rep)
	}
}

// childEnv is the environment of a helper process: this one's, with a
// race-enabled child's second of sleep at exit, waiting for late race
// reports, turned off (a race it finds still fails it, exit code 66).
func childEnv() []string {
	return append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
}

func TestHelperAppend(t *testing.T) {
	path := os.Getenv("AUDIT_HELPER_LOG")
	if path == "" {
		t.Skip("helper process for TestConcurrentAppend")
	}
	n, _ := strconv.Atoi(os.Getenv("AUDIT_HELPER_N"))
	l := &Log{Path: path, Key: []byte(os.Getenv("AUDIT_HELPER_KEY"))}
	big := strings.Repeat("y", 70_000)
	for i := range n {
		if err := l.Append(context.Background(), record(os.Getenv("AUDIT_HELPER_ID"), fmt.Sprint(big, i))); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReplay(t *testing.T) {
	ctx := context.Background()
	l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	good := record("ok", "line 1\nline 2\n")
	changed := record("changed", "line 1\nline 2\nline 3\n")
	tampered := record("tampered", "original\n")
	tampered.AssembledPrompt = "edited\n"
	gone := record("gone", "x")
	for _, r := range []*Record{good, changed, tampered, gone} {
		if err := l.Append(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	rebuild := func(_ context.Context, r *Record) (*prompt.Prompt, error) {
		switch r.CorrelationID {
		case "changed":
			text := "line 1\nline two\nline 3\n"
			return &prompt.Prompt{Text: text, Hash: prompt.Hash(text), Sources: []prompt.Source{{Kind: prompt.SourceToken, Token: "CTX", Path: "ctx/a.txt", Hash: prompt.Hash("b")}}}, nil
		case "gone":
			return nil, errors.New("ctx/a.txt: file not found")
		}
		return &prompt.Prompt{Text: r.AssembledPrompt, Hash: prompt.Hash(r.AssembledPrompt)}, nil
	}
	check := func(id string, want Status) Verdict {
		t.Helper()
		rep, err := Replay(ctx, l, id, rebuild)
		if err != nil || len(rep.Verdicts) != 1 || len(rep.BadLines) != 0 {
			t.Fatalf("Replay(%s): %+v %v", id, rep, err)
		}
		if rep.OK() != (want == Match) {
			t.Errorf("Report.OK() = %v for %s", rep.OK(), want)
		}
		vs := rep.Verdicts
		if vs[0].Status != want {
			t.Errorf("Replay(%s) = %s, want %s (%v)", id, vs[0].Status, want, vs[0].Err)
		}
		return vs[0]
	}
	if v := check("ok", Match); !v.OK() || v.NewHash != good.AssembledPromptHash {
		t.Errorf("match verdict %+v", v)
	}
	v := check("changed", Mismatch)
	if v.Diff == nil || *v.Diff != (LineDiff{Line: 2, Stored: "line 2", Current: "line two"}) {
		t.Errorf("diff = %+v", v.Diff)
	}
	if len(v.Changed) != 1 || v.Changed[0].Path != "ctx/a.txt" || v.Changed[0].OldHash != prompt.Hash("a") || v.Changed[0].NewHash != prompt.Hash("b") {
		t.Errorf("changed = %+v", v.Changed)
	}
	if v := check("tampered", Tampered); v.Err == nil {
		t.Error("tampered without a reason")
	}
	check("gone", Failed)
	if _, err := Replay(ctx, l, "missing", rebuild); err == nil || !strings.Contains(err.Error(), `no record with correlation id "missing"`) {
		t.Errorf("missing id: %v", err)
	}
}

func TestFirstDiff(t *testing.T) {
	tests := []struct {
		a, b string
		want *LineDiff
	}{
		{"x\ny", "x\ny", nil},
		{"x\ny", "x\nz", &LineDiff{Line: 2, Stored: "y", Current: "z"}},
		{"x", "x\n", &LineDiff{Line: 2, Missing: "stored"}},
		{"x\nmore", "x", &LineDiff{Line: 2, Stored: "more", Missing: "current"}},
		{"", "a", &LineDiff{Line: 1, Current: "a", Missing: "stored"}}, // empty text has no line 1
	}
	for _, tt := range tests {
		got := FirstDiff(tt.a, tt.b)
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("FirstDiff(%q, %q) = %+v, want %+v", tt.a, tt.b, got, tt.want)
		}
	}
}
