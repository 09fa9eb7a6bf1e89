package auditdb

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestDeliveries: webhook deliveries are kept and listed newest first,
// every field as it was given, on both dialects.
func TestDeliveries(t *testing.T) {
	eachDialect(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := open(t, url)
		at := time.Date(2026, 11, 27, 12, 0, 0, 123456789, time.UTC)
		d1, err := db.AddDelivery(ctx, Delivery{EventID: "ev-1", URL: "https://a.example/hook", Action: "created", Prompt: "review/code", Version: 2, Attempts: 1, Status: 200, OK: true, At: at})
		if err != nil || d1.ID == 0 || !d1.At.Equal(at.Truncate(time.Microsecond)) {
			t.Fatalf("AddDelivery: %+v %v", d1, err)
		}
		d2, err := db.AddDelivery(ctx, Delivery{EventID: "ev-2", URL: "https://b.example/hook", Action: "updated", Prompt: "other", Attempts: 4, Status: 502, Error: "502 Bad Gateway"})
		if err != nil || d2.ID <= d1.ID || d2.At.IsZero() {
			t.Fatalf("second delivery: %+v %v", d2, err)
		}
		all, err := db.Deliveries(ctx, 0)
		if err != nil || len(all) != 2 || all[0] != d2 || all[1] != d1 {
			t.Fatalf("deliveries: %+v %v, want %+v then %+v", all, err, d2, d1)
		}
		if one, err := db.Deliveries(ctx, 1); err != nil || len(one) != 1 || one[0] != d2 {
			t.Fatalf("limit 1: %+v %v", one, err)
		}
	})
}

// TestClaimEvent: of several claims of one event, at once, exactly one
// gets it; another key is claimed afresh.
func TestClaimEvent(t *testing.T) {
	eachDialect(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := open(t, url)
		const n = 8
		got := make([]bool, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { got[i], errs[i] = db.ClaimEvent(ctx, "created review/code@2 abc") })
		}
		wg.Wait()
		won := 0
		for i := range n {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if got[i] {
				won++
			}
		}
		if won != 1 {
			t.Errorf("%d claims of one event won", won)
		}
		if ok, err := db.ClaimEvent(ctx, "created review/code@3 def"); !ok || err != nil {
			t.Errorf("another event: %v %v", ok, err)
		}
	})
}
