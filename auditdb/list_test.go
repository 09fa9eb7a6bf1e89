package auditdb

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/audit"
)

func TestList(t *testing.T) {
	eachDialect(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := open(t, url)
		start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
		for i := range 10 {
			r := record(fmt.Sprintf("id-%d", i%4), fmt.Sprintf("text %d", i%3))
			r.AssemblyTimestamp = audit.Timestamp(start.Add(time.Duration(i) * time.Minute))
			if i%2 == 1 {
				r.Preset, r.Name = "canonical", "wf/n"
			}
			if err := db.Append(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		lines := func(f Filter) string {
			t.Helper()
			es, err := db.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, e := range es {
				got = append(got, e.Line)
			}
			return fmt.Sprint(got)
		}
		for _, c := range []struct {
			f    Filter
			want string
		}{
			{Filter{}, "[10 9 8 7 6 5 4 3 2 1]"},
			{Filter{Limit: 3}, "[10 9 8]"},
			{Filter{Limit: 3, Before: 8}, "[7 6 5]"},
			{Filter{ID: "id-1"}, "[10 6 2]"},
			{Filter{Preset: "canonical", ID: "id-1"}, "[10 6 2]"},
			{Filter{Preset: "template"}, "[9 7 5 3 1]"},
			{Filter{WorkflowID: "wf", NodeID: "n", Limit: 2}, "[10 8]"},
			{Filter{Since: start.Add(3 * time.Minute), Until: start.Add(5 * time.Minute)}, "[5 4]"},
			{Filter{Hash: record("x", "text 0").AssembledPromptHash, Label: "wf/node <&>"}, "[10 7 4 1]"},
			{Filter{ID: "none"}, "[]"},
		} {
			if got := lines(c.f); got != c.want {
				t.Errorf("%+v: %s, want %s", c.f, got, c.want)
			}
		}
		if _, err := db.List(ctx, Filter{Limit: MaxList + 1}); err == nil {
			t.Error("a limit over MaxList was taken")
		}
	})
}
