package serve_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/serve"
)

func TestMemStore(t *testing.T) {
	ctx := t.Context()
	s := serve.NewMemStore()
	if err := s.PutKey(ctx, "pk", "sk", "root"); err == nil {
		t.Error("an unknown role was accepted")
	}
	if err := s.PutKey(ctx, "pk", "", serve.RoleViewer); err == nil {
		t.Error("an empty secret was accepted")
	}
	if err := s.PutKey(ctx, "pk", "sk", serve.RoleViewer); err != nil {
		t.Fatal(err)
	}
	if k, err := s.Authenticate(ctx, "pk", "sk"); err != nil || k.Role != serve.RoleViewer || k.Public != "pk" {
		t.Errorf("Authenticate: %+v, %v", k, err)
	}
	for _, pair := range [][2]string{{"pk", "sk2"}, {"nope", "sk"}, {"", ""}} {
		if _, err := s.Authenticate(ctx, pair[0], pair[1]); !errors.Is(err, serve.ErrBadKey) {
			t.Errorf("Authenticate(%q, %q): %v", pair[0], pair[1], err)
		}
	}
	// Records: the oldest go once the store holds more than it keeps.
	n := serve.MaxRecords + serve.MaxRecords/10 + 1
	for i := range n {
		if err := s.Append(ctx, &audit.Record{CorrelationID: fmt.Sprint("r", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Record(ctx, "r0"); !errors.Is(err, serve.ErrNotFound) {
		t.Errorf("the oldest record is still there: %v", err)
	}
	if r, err := s.Record(ctx, fmt.Sprint("r", n-1)); err != nil || r.CorrelationID != fmt.Sprint("r", n-1) {
		t.Errorf("the newest record: %v, %v", r, err)
	}
	if err := s.Append(ctx, &audit.Record{}); err == nil {
		t.Error("a record without an id was accepted")
	}
	for i, p := range []string{"a", "b", "a"} {
		if m, err := s.AddLabelMove(ctx, serve.LabelMove{Prompt: p, Label: "production", ToVersion: i + 1}); err != nil || m.ID != int64(i+1) {
			t.Fatalf("AddLabelMove: %+v, %v", m, err)
		}
	}
	if ms, _ := s.LabelMoves(ctx, "a", 1); len(ms) != 1 || ms[0].ToVersion != 3 {
		t.Errorf("LabelMoves(a, 1): %+v", ms)
	}
	if ms, _ := s.LabelMoves(ctx, "a", 0); len(ms) != 2 {
		t.Errorf("LabelMoves(a, 0): %+v", ms)
	}
}
