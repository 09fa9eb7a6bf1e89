package canonical_test

import (
	"context"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset/canonical"
	"github.com/tessera-dev/tessera/presets"
)

// BenchmarkAssembly times the assembly fixture (testdata/assembly, see
// assembly_fixture_test.go): the same 8.5 KB prompt from an 11 KB
// canonical spec and from a catalog template with includes. Every op
// goes from files on disk to the final text through engine.Assemble, the
// library call behind tessera assemble, with no budget and no log:
//
//   - canonical: read the spec, parse and validate it, redact it with
//     the built-in patterns, lay it out, render, hash, record;
//   - catalog: open the catalog (read and parse tessera.yaml), read and
//     parse the workflow and the template, read the two token files and
//     the included one, resolve, hash, record;
//   - catalog-warm: the same with the catalog already open, as a
//     long-running program keeps it (the files are read once per
//     Catalog), for reference: a spec has no such cache, it is read on
//     every call.
//
// Target: canonical within 2× of catalog in time and in allocations
// (docs/PERFORMANCE.md, "Canonical prompts"). "ratio" runs the two
// interleaved in one loop, so both see the same machine, and reports
// canonical÷catalog for time (x-time: the median of the pairs' ratios),
// bytes (x-B) and allocations (x-allocs), and the same against the warm
// catalog (x-warm-time, x-warm-B, x-warm-allocs).
func BenchmarkAssembly(b *testing.B) {
	ctx := context.Background()
	e := engine.Engine{Registry: presets.Default()}
	canonReq, _ := assemblyRequests(nil)
	cold := func() error {
		c, err := catalog.Open(ctx, assemblyDir, presets.Default().Sections()...)
		if err != nil {
			return err
		}
		defer c.Close()
		_, req := assemblyRequests(c)
		_, err = e.Assemble(ctx, req)
		return err
	}
	canon := func() error {
		_, err := e.Assemble(ctx, canonReq)
		return err
	}
	warm, err := catalog.Open(ctx, assemblyDir, presets.Default().Sections()...)
	if err != nil {
		b.Fatal(err)
	}
	defer warm.Close()
	_, warmReq := assemblyRequests(warm)
	warmOp := func() error {
		_, err := e.Assemble(ctx, warmReq)
		return err
	}
	res, err := e.Assemble(ctx, warmReq)
	if err != nil {
		b.Fatal(err)
	}
	size := int64(len(res.Prompt.Text))
	data, err := os.ReadFile(assemblySpec)
	if err != nil {
		b.Fatal(err)
	}
	parsed, err := canonical.ParseSpec(assemblySpec, data)
	if err != nil {
		b.Fatal(err)
	}

	for _, bc := range []struct {
		name string
		op   func() error
	}{
		{"canonical", canon},
		{"catalog", cold},
		{"catalog-warm", warmOp},
		{"spec-parsed", func() error { _, err := canonical.Assemble(ctx, parsed, canonical.Config{}); return err }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.op(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}

	b.Run("ratio", func(b *testing.B) {
		cb, ca := memPerOp(b, canon)
		tb, ta := memPerOp(b, cold)
		wb, wa := memPerOp(b, warmOp)
		var tc, tt, tw, x, xw []float64
		for b.Loop() {
			t0 := time.Now()
			if err := canon(); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if err := cold(); err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			if err := warmOp(); err != nil {
				b.Fatal(err)
			}
			c, t, w := float64(t1.Sub(t0)), float64(t2.Sub(t1)), float64(time.Since(t2))
			tc, tt, tw = append(tc, c), append(tt, t), append(tw, w)
			x, xw = append(x, c/t), append(xw, c/w)
		}
		// Medians, so that a pause of the machine in one call does not
		// count for all of them.
		b.ReportMetric(median(tc), "canonical-ns/op")
		b.ReportMetric(median(tt), "catalog-ns/op")
		b.ReportMetric(median(tw), "warm-ns/op")
		b.ReportMetric(median(x), "x-time")
		b.ReportMetric(cb/tb, "x-B")
		b.ReportMetric(ca/ta, "x-allocs")
		b.ReportMetric(median(xw), "x-warm-time")
		b.ReportMetric(cb/wb, "x-warm-B")
		b.ReportMetric(ca/wa, "x-warm-allocs")
	})
}

// median returns the median of v, which it sorts.
func median(v []float64) float64 {
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// memPerOp returns the bytes and allocations of one call of op, averaged
// over 50 calls.
func memPerOp(b *testing.B, op func() error) (bytes, allocs float64) {
	const runs = 50
	if err := op(); err != nil {
		b.Fatal(err)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range runs {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&m1)
	return float64(m1.TotalAlloc-m0.TotalAlloc) / runs, float64(m1.Mallocs-m0.Mallocs) / runs
}
