package auditdb

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// Two DBs on one PostgreSQL database, as two server replicas hold, append
// at the same time: each sees every record, line numbers and ids are
// unique, and the chain is one.
func TestTwoReplicasPostgres(t *testing.T) {
	url := freshPostgres(t)
	// Open both at once: their migrations take turns.
	dbs := make([]*DB, 2)
	var wg sync.WaitGroup
	for i := range dbs {
		wg.Go(func() {
			db, err := Open(context.Background(), url)
			if err != nil {
				t.Error(err)
				return
			}
			dbs[i] = db
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	const writers, each = 4, 40
	for i, db := range dbs {
		defer db.Close()
		for w := range writers {
			wg.Go(func() {
				for n := range each {
					if err := db.Append(context.Background(), record(fmt.Sprintf("db%d-w%d-%d", i, w, n), "x")); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for _, db := range dbs {
		checkAll(t, db, len(dbs)*writers*each)
	}
	if a, b := lines(t, dbs[0]), lines(t, dbs[1]); a != b {
		t.Fatal("the two replicas read different lines")
	}
	// Label moves and keys made through one are seen through the other.
	ids := map[int64]bool{}
	var mu sync.Mutex
	for i, db := range dbs {
		wg.Go(func() {
			for n := range 10 {
				m, err := db.AddLabelMove(context.Background(), LabelMove{Prompt: "p", Label: "production", ToVersion: n + 1, Actor: fmt.Sprintf("db%d", i)})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if ids[m.ID] {
					t.Errorf("move id %d given twice", m.ID)
				}
				ids[m.ID] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	a, err := dbs[0].LabelMoves(context.Background(), "p", 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := dbs[1].LabelMoves(context.Background(), "p", 0)
	if err != nil || len(a) != 20 || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("the replicas see %d and %d moves (%v)", len(a), len(b), err)
	}
	if err := dbs[0].PutKey(context.Background(), "pk-shared", "sk-shared-0123456789", "member"); err != nil {
		t.Fatal(err)
	}
	if k, err := dbs[1].Authenticate(context.Background(), "pk-shared", "sk-shared-0123456789"); err != nil || k.Role != "member" {
		t.Fatalf("a key put through one replica, checked through the other: %+v %v", k, err)
	}
}
