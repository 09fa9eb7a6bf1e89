package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/auditdb"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/presets"
	"github.com/tessera-dev/tessera/serve"
)

// TestDBStoreListAudit: the inspector's audit search works on the
// database store as on the memory one: by prompt (a label, or a
// workflow node's name), by hash and by id, newest first.
func TestDBStoreListAudit(t *testing.T) {
	ctx := context.Background()
	db, err := auditdb.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	rec := func(n int, label, wf, node string) *audit.Record {
		return &audit.Record{
			CorrelationID:       audit.NewCorrelationID(),
			AssembledPrompt:     label + wf + node,
			AssembledPromptHash: "h" + string(rune('0'+n)),
			AssemblyTimestamp:   audit.Timestamp(at.Add(time.Duration(n) * time.Minute)),
			Preset:              "template",
			Label:               label,
			Name:                strings.Trim(wf+"/"+node, "/"),
		}
	}
	recs := []*audit.Record{
		rec(1, "pm_discovery.v1 pgc", "pm_discovery.v1", "pgc"),
		rec(2, "specs/support-ticket", "", ""),
		rec(3, "pm_discovery.v1 pgc", "pm_discovery.v1", "pgc"),
	}
	if err := db.Append(ctx, recs...); err != nil {
		t.Fatal(err)
	}
	s := dbStore{db}
	ids := func(f serve.AuditFilter) []string {
		t.Helper()
		got, err := s.ListAudit(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range got {
			out = append(out, r.CorrelationID)
		}
		return out
	}
	for _, tc := range []struct {
		f    serve.AuditFilter
		want []string
	}{
		{serve.AuditFilter{}, []string{recs[2].CorrelationID, recs[1].CorrelationID, recs[0].CorrelationID}},
		{serve.AuditFilter{Prompt: "pm_discovery.v1/pgc"}, []string{recs[2].CorrelationID, recs[0].CorrelationID}},
		{serve.AuditFilter{Prompt: "specs/support-ticket"}, []string{recs[1].CorrelationID}},
		{serve.AuditFilter{Hash: "h1"}, []string{recs[0].CorrelationID}},
		{serve.AuditFilter{ID: recs[1].CorrelationID}, []string{recs[1].CorrelationID}},
		{serve.AuditFilter{Prompt: "pm_discovery.v1/pgc", Limit: 1}, []string{recs[2].CorrelationID}},
		{serve.AuditFilter{Prompt: "nothing/here"}, nil},
	} {
		if got := ids(tc.f); !slices.Equal(got, tc.want) {
			t.Errorf("ListAudit(%+v) = %v, want %v", tc.f, got, tc.want)
		}
	}
	var _ serve.AuditLister = s
}

// TestServeFromConfig: tessera.yaml's serve section sets the flags that
// neither the command line nor a TESSERA_* variable gave.
func TestServeFromConfig(t *testing.T) {
	dir := t.TempDir()
	yaml := "tasks: t\nworkflows: w\nserve:\n  addr: 127.0.0.1:0\n  poll: 5s\n  protected_labels: [production, staging]\n  public_metrics: true\n  cache_size: 8\n"
	if err := os.WriteFile(filepath.Join(dir, "tessera.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TESSERA_CACHE_SIZE", "16")
	a := &app{root: dir, engine: &engine.Engine{Registry: presets.Default()}}
	cmd := a.serveCmd()
	if err := cmd.ParseFlags([]string{"--addr", "127.0.0.1:9"}); err != nil {
		t.Fatal(err)
	}
	fl := cmd.Flags()
	if err := serveFromEnv(fl); err != nil {
		t.Fatal(err)
	}
	if err := a.serveFromConfig(fl); err != nil {
		t.Fatal(err)
	}
	for flag, want := range map[string]string{
		"addr":             "127.0.0.1:9", // the flag wins
		"cache-size":       "16",          // then the variable
		"poll":             "5s",          // then tessera.yaml
		"protected-labels": "[production,staging]",
		"public-metrics":   "true",
		"gated-labels":     "[]", // and the default
	} {
		if got := fl.Lookup(flag).Value.String(); got != want {
			t.Errorf("--%s = %s, want %s", flag, got, want)
		}
	}
	bad := "tasks: t\nworkflows: w\nserve:\n  poll: soon\n"
	if err := os.WriteFile(filepath.Join(dir, "tessera.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	err := a.serveFromConfig(a.serveCmd().Flags())
	if err == nil || !strings.Contains(err.Error(), "tessera.yaml:4:9") || !strings.Contains(err.Error(), "a duration such as 1s") {
		t.Errorf("a bad duration: %v", err)
	}
}

// TestDBStoreDeliveries: the database store keeps serve's webhook
// delivery log, every field as given.
func TestDBStoreDeliveries(t *testing.T) {
	ctx := context.Background()
	db, err := auditdb.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := dbStore{db}
	var _ serve.DeliveryStore = s
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	d := serve.Delivery{EventID: "ev", URL: "https://a.example", Action: "updated", Prompt: "p/q", Version: 3, Attempts: 4, Status: 502, Error: "502 Bad Gateway", At: at}
	if err := s.AddDelivery(ctx, d); err != nil {
		t.Fatal(err)
	}
	got, err := s.Deliveries(ctx, 10)
	if err != nil || len(got) != 1 || got[0] != d {
		t.Errorf("Deliveries: %+v %v, want %+v", got, err, d)
	}
}
