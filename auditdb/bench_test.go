package auditdb

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tessera-dev/tessera/audit"
)

// benchAppend appends b.N records of about 2 KB from writers goroutines
// at once and reports records/s.
func benchAppend(b *testing.B, url string, writers int) {
	db := open(b, url)
	text := strings.Repeat("You are a careful reviewer. ", 70) // ~2 KB
	var next atomic.Int64
	ctx := context.Background()
	b.ResetTimer()
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				if err := db.Append(ctx, record(fmt.Sprintf("bench-%d", i), text)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkAppendSQLite: durable appends (WAL, synchronous=FULL) to a
// SQLite file, from 1, 16 and 64 writers; group commit shares each
// commit between the writers waiting for it.
func BenchmarkAppendSQLite(b *testing.B) {
	for _, w := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("writers=%d", w), func(b *testing.B) {
			benchAppend(b, "sqlite:"+filepath.Join(b.TempDir(), "audit.db"), w)
		})
	}
}

// BenchmarkAppendPostgres is BenchmarkAppendSQLite on the PostgreSQL
// server TESSERA_TEST_POSTGRES names.
func BenchmarkAppendPostgres(b *testing.B) {
	for _, w := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("writers=%d", w), func(b *testing.B) {
			benchAppend(b, freshPostgres(b), w)
		})
	}
}

// BenchmarkRecord looks a record up by correlation id among 10,000.
func BenchmarkRecord(b *testing.B) {
	db := open(b, "sqlite:"+filepath.Join(b.TempDir(), "audit.db"))
	ctx := context.Background()
	const n = 10000
	for i := 0; i < n; i += 500 {
		recs := make([]*audit.Record, 0, 500)
		for j := i; j < i+500; j++ {
			recs = append(recs, record(fmt.Sprintf("id-%d", j), "x"))
		}
		if err := db.Append(ctx, recs...); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := db.Record(ctx, fmt.Sprintf("id-%d", i%n)); err != nil {
			b.Fatal(err)
		}
	}
}
