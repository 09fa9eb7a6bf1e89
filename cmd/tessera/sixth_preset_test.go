package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/presets"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

// shout is a sixth preset, registered beside Tessera's five by one line
// and changing nothing else: it upper-cases its one input, or each file
// of the directory its own key of tessera.yaml names.
type shout struct{}

func (shout) Name() string { return "shout" }
func (shout) Inputs() []preset.Input {
	return []preset.Input{{Name: "shout", Usage: "the line to shout", Selects: true}}
}
func (s shout) Load(_ context.Context, _ *preset.Env, args preset.Args) (*preset.Layout, error) {
	return s.layout(args["shout"]), nil
}
func (shout) layout(line string) *preset.Layout {
	return &preset.Layout{
		Sections: []prompt.Section{{Key: "line", Body: strings.ToUpper(line)}},
		Style:    render.Plain,
		Label:    "shout",
		Record: func(rec *audit.Record) error {
			var err error
			rec.Inputs, err = json.Marshal(line)
			return err
		},
	}
}
func (s shout) Rebuild(_ context.Context, _ *preset.Env, rec *audit.Record) (*preset.Layout, error) {
	var line string
	if err := json.Unmarshal(rec.Inputs, &line); err != nil {
		return nil, err
	}
	return s.layout(line), nil
}
func (s shout) Units(ctx context.Context, env *preset.Env) ([]preset.Unit, error) {
	if env == nil || env.Catalog == nil || env.Catalog.Config().Section("shouts") == "" {
		return []preset.Unit{{Out: "shout/hello.txt", Load: func(ctx context.Context) (*preset.Layout, error) { return s.layout("hello"), nil }}}, nil
	}
	// A catalog that names a shouts directory: one prompt a file.
	paths, err := env.Catalog.SectionFiles(ctx, "shouts")
	if err != nil {
		return nil, err
	}
	var units []preset.Unit
	for _, p := range paths {
		text, err := env.Catalog.ReadFile(ctx, p)
		if err != nil {
			return nil, err
		}
		line := strings.TrimSpace(text)
		units = append(units, preset.Unit{Out: "shout/" + strings.TrimSuffix(path.Base(p), ".yaml") + ".txt", Load: func(ctx context.Context) (*preset.Layout, error) { return s.layout(line), nil }})
	}
	return units, nil
}

// Section makes shout own a key of tessera.yaml (preset.Configurer).
func (shout) Section() catalog.Section {
	return catalog.Section{Key: "shouts", Doc: "a directory of lines to shout"}
}
func (shout) Summary() string      { return "a line, shouted" }
func (shout) UnitsSummary() string { return "hello, shouted, to shout/hello.txt" }

// TestSixthPreset: a preset added by registering it alone appears in the
// help of assemble and compile, has its own subcommand, assembles the
// same bytes both ways, replays, and compiles.
func TestSixthPreset(t *testing.T) {
	reg := presets.Default()
	if err := reg.Register(shout{}); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		t.Helper()
		var out, errb bytes.Buffer
		cmd := newRootCmdWith(&out, &errb, reg)
		cmd.SetArgs(args)
		err := cmd.ExecuteContext(t.Context())
		return out.String() + errb.String(), err
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"assemble", "--help"}, "shout (--shout): a line, shouted"},
		{[]string{"assemble", "shout", "--help"}, "Assemble a line, shouted"},
		{[]string{"compile", "--help"}, "shout: hello, shouted, to shout/hello.txt"},
	} {
		if out, err := run(c.args...); err != nil || !strings.Contains(out, c.want) {
			t.Errorf("tessera %s: %v, lacks %q:\n%s", strings.Join(c.args, " "), err, c.want, out)
		}
	}
	log := filepath.Join(t.TempDir(), "log.jsonl")
	long, err := run("assemble", "--shout", "hello", "--log", log, "--correlation-id", "six")
	if err != nil || long != "## Line\nHELLO" && long != "HELLO" {
		t.Fatalf("assemble --shout: %v %q", err, long)
	}
	if sub, err := run("assemble", "shout", "--shout", "hello"); err != nil || sub != long {
		t.Errorf("assemble shout: %v %q, want %q", err, sub, long)
	}
	if out, err := run("replay", "--log", log, "--id", "six"); err != nil || !strings.Contains(out, "match") {
		t.Errorf("replay: %v\n%s", err, out)
	}
	out, err := run("compile", "--root", filepath.Join("..", "..", "examples"), "--check", "--json")
	if err != nil || !strings.Contains(out, "shout/hello.txt") {
		t.Errorf("compile --check: %v\n%s", err, out)
	}

	// Its own key in tessera.yaml: read because the preset declares it,
	// and a catalog of that key alone is whole.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"tessera.yaml": "shouts: lines\n", "lines/greeting.yaml": "good morning\n"})
	if out, err := run("compile", "--root", dir, "--check", "--json"); err != nil || !strings.Contains(out, "shout/greeting.txt") {
		t.Errorf("compile --check of a shouts catalog: %v\n%s", err, out)
	}
	var errb bytes.Buffer
	without := newRootCmdWith(&errb, &errb, presets.Default())
	without.SetArgs([]string{"compile", "--root", dir, "--check"})
	if err := without.ExecuteContext(t.Context()); err == nil || !strings.Contains(err.Error(), `tessera.yaml:1:1: unknown key "shouts"`) {
		t.Errorf("without the preset, shouts is no key: %v", err)
	}
}

// writeFiles writes files (slash-separated paths) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
