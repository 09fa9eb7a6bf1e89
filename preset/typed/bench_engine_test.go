package typed_test

import (
	"context"
	"testing"

	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset"
)

// BenchmarkAssemble assembles the example template's small-change
// fixture through the engine, as "tessera assemble --typed ...
// --typed-fixture small-change" does without a log: read and parse the
// file, lay out, render, hash and record. It is in package typed_test
// because the engine imports this package. Target: TBD.
func BenchmarkAssemble(b *testing.B) {
	ctx := context.Background()
	req := engine.Request{
		Args:  preset.Args{"typed": "../../examples/typed/code-review.yaml", "typed-fixture": "small-change"},
		NoLog: true,
	}
	e := &engine.Engine{}
	if _, err := e.Assemble(ctx, req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Assemble(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
