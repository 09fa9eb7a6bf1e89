package engine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/presets"
)

// TestOldLogsReplay replays logs written by earlier versions, kept as
// they were written: a change to the record, a preset's inputs or the
// chain must keep them replaying to the same bytes. Each file holds one
// record of each preset (a budget, a provider body, an agent workspace
// among them), written from examples/ by the tessera command:
// records-2026-11.jsonl before the template preset kept task_ref and
// includes_resolved in its inputs, records-2026-11b.jsonl after.
// Never regenerate these files: add a new one when the format changes.
func TestOldLogsReplay(t *testing.T) {
	logs, err := filepath.Glob("testdata/logs/*.jsonl")
	if err != nil || len(logs) == 0 {
		t.Fatalf("no old logs: %v", err)
	}
	for _, src := range logs {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		log := filepath.Join(t.TempDir(), filepath.Base(src)) // the index is written beside it
		if err := os.WriteFile(log, data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(src), func(t *testing.T) {
			t.Chdir(filepath.Join("..", "examples"))
			c, err := catalog.Open(t.Context(), ".", presets.Default().Sections()...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			e := &engine.Engine{Registry: presets.Default()}
			for _, id := range []string{"compat-template", "compat-canonical", "compat-agent", "compat-typed", "compat-layered"} {
				rep, err := e.Replay(t.Context(), c, &audit.Log{Path: log}, id)
				if err != nil {
					t.Errorf("%s: %v", id, err)
					continue
				}
				if !rep.OK() {
					for _, v := range rep.Verdicts {
						t.Errorf("%s: line %d: %s: %v %+v", id, v.Line, v.Status, v.Err, v.Diff)
					}
				}
			}
		})
	}
}
