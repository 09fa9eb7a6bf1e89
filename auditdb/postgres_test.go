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
}
