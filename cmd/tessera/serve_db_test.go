package main

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/auditdb"
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
			WorkflowID:          wf,
			NodeID:              node,
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
