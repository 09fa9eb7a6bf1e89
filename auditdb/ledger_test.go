package auditdb

import (
	"context"
	"sync"
	"testing"
)

// TestLabelLedger: a pending move is kept, listed and turned into a
// move of the history in the transaction that advances its ref; of two
// servers (two DBs on one database) advancing a ref from one seq, one
// does, so the move is recorded once; a ref that was removed keeps its
// row, so a later setting advances from its seq.
func TestLabelLedger(t *testing.T) {
	eachDialect(t, func(t *testing.T, url string) {
		ctx := context.Background()
		a, b := open(t, url), open(t, url)
		const ref = "refs/tessera/prompts/review/code/labels/production"
		ps, err := a.AddPendingMoves(ctx, []PendingMove{{Ref: ref, New: "bbb", Move: LabelMove{Prompt: "review/code", Label: "production", ToVersion: 2, ToCommit: "bbb", Actor: "pk-1", Reason: "ship"}}})
		if err != nil || len(ps) != 1 || ps[0].ID == 0 || ps[0].Move.At.IsZero() {
			t.Fatalf("AddPendingMoves: %+v %v", ps, err)
		}
		if _, err := a.AddPendingMoves(ctx, []PendingMove{{Move: LabelMove{Prompt: "x", Label: "y"}}}); err == nil {
			t.Error("a pending move without a ref was kept")
		}
		got, err := b.PendingMoves(ctx)
		if err != nil || len(got) != 1 || got[0] != ps[0] {
			t.Fatalf("PendingMoves: %+v %v, want %+v", got, err, ps)
		}
		refs, err := b.LabelRefs(ctx)
		if err != nil || len(refs) != 0 {
			t.Fatalf("LabelRefs before any: %v %v", refs, err)
		}
		// Both record the move from seq 0: one does.
		wins := make([]bool, 2)
		var wg sync.WaitGroup
		for i, db := range []*DB{a, b} {
			wg.Go(func() {
				ok, err := db.AdvanceLabelRef(ctx, ref, 0, "bbb", []LabelMove{ps[0].Move}, []int64{ps[0].ID})
				if err != nil {
					t.Error(err)
				}
				wins[i] = ok
			})
		}
		wg.Wait()
		if wins[0] == wins[1] {
			t.Fatalf("wins %v: want exactly one", wins)
		}
		moves, err := a.LabelMoves(ctx, "review/code", 0)
		if err != nil || len(moves) != 1 || moves[0].Actor != "pk-1" || moves[0].ToCommit != "bbb" {
			t.Fatalf("history: %+v %v", moves, err)
		}
		if got, err := a.PendingMoves(ctx); err != nil || len(got) != 0 {
			t.Fatalf("pending after the move: %+v %v", got, err)
		}
		refs, err = a.LabelRefs(ctx)
		if err != nil || refs[ref] != (LabelRef{Ref: ref, Commit: "bbb", Seq: 1}) {
			t.Fatalf("LabelRefs: %+v %v", refs, err)
		}
		// A removal, then a stale writer from seq 1 loses.
		if ok, err := b.AdvanceLabelRef(ctx, ref, 1, "", []LabelMove{{Prompt: "review/code", Label: "production", FromVersion: 2, FromCommit: "bbb", Actor: "git"}}, nil); !ok || err != nil {
			t.Fatalf("removal: %v %v", ok, err)
		}
		if ok, err := a.AdvanceLabelRef(ctx, ref, 1, "ccc", []LabelMove{{Prompt: "review/code", Label: "production", ToCommit: "ccc"}}, nil); ok || err != nil {
			t.Fatalf("a stale advance: %v %v", ok, err)
		}
		if ok, err := a.AdvanceLabelRef(ctx, ref, 0, "ccc", nil, nil); ok || err != nil {
			t.Fatalf("an advance from no row, of a ref that has one: %v %v", ok, err)
		}
		refs, _ = a.LabelRefs(ctx)
		if refs[ref] != (LabelRef{Ref: ref, Commit: "", Seq: 2}) {
			t.Fatalf("after the removal: %+v", refs[ref])
		}
		if moves, _ := a.LabelMoves(ctx, "review/code", 0); len(moves) != 2 {
			t.Fatalf("history: %+v", moves)
		}
		// Dropping a pending move that was not made.
		ps, err = a.AddPendingMoves(ctx, []PendingMove{{Ref: ref, Move: LabelMove{Prompt: "review/code", Label: "production", ToCommit: "ddd"}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.DropPendingMoves(ctx, ps[0].ID, ps[0].ID); err != nil {
			t.Fatal(err)
		}
		if got, _ := a.PendingMoves(ctx); len(got) != 0 {
			t.Fatalf("pending after the drop: %+v", got)
		}
	})
}
