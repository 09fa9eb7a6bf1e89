package injection

import (
	"context"
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"
)

var heldOut = flag.Bool("held-out", false, "evaluate on the held-out part of the evaluation set as well (for the final figures only, never for tuning)")

// evalSet is the project's evaluation set, written for it before the
// detector was tuned (see its README).
const evalSet = "../../preset/layered/testdata/eval/injections.jsonl"

// tuneSet is the second tuning set, written by hand after the first
// without reading the detector; measured once before it was tuned on
// (see docs/SECURITY.md).
const tuneSet = "../../preset/layered/testdata/eval/tune2/injections.jsonl"

// heldOutSet was written after the first set and never tuned on: the
// figures to trust (see docs/SECURITY.md).
const heldOutSet = "../../preset/layered/testdata/eval/heldout/injections.jsonl"

// split divides the cases: those whose id's number is divisible by 5 are
// held out, the rest are for development.
func split(cases []Case) (dev, held []Case) {
	for _, c := range cases {
		n, _ := strconv.Atoi(strings.TrimLeft(c.ID, "abcdefghijklmnopqrstuvwxyz"))
		if n%5 == 0 {
			held = append(held, c)
		} else {
			dev = append(dev, c)
		}
	}
	return dev, held
}

// TestEvaluationSet holds the built-in detector to TPR at least 0.90 at
// FPR at most 0.02 on the development part of the evaluation set and on
// the second tuning set. With
// -held-out it reports the held-out part and the second held-out set
// too, against the same targets, which they miss (docs/SECURITY.md has
// the figures).
func TestEvaluationSet(t *testing.T) {
	data, err := os.ReadFile(evalSet)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := ReadCases(evalSet, data)
	if err != nil {
		t.Fatal(err)
	}
	dev, held := split(cases)
	d := newDetector(t)
	parts := []struct {
		name  string
		cases []Case
	}{{"development", dev}}
	data, err = os.ReadFile(tuneSet)
	if err != nil {
		t.Fatal(err)
	}
	tune, err := ReadCases(tuneSet, data)
	if err != nil {
		t.Fatal(err)
	}
	parts = append(parts, struct {
		name  string
		cases []Case
	}{"second tuning set", tune})
	if *heldOut {
		parts = append(parts, struct {
			name  string
			cases []Case
		}{"held out", held})
		data, err := os.ReadFile(heldOutSet)
		if err != nil {
			t.Fatal(err)
		}
		second, err := ReadCases(heldOutSet, data)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, struct {
			name  string
			cases []Case
		}{"second held-out set", second})
	}
	for _, p := range parts {
		r, err := Evaluate(context.Background(), d, p.cases, DefaultThreshold)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s:\n%s", p.name, r)
		if testing.Verbose() {
			for _, m := range r.Missed {
				t.Logf("missed %s %s %.2f %v %q", m.ID, m.Lang, m.Verdict.Score, m.Verdict.Names(), m.Text)
			}
			for _, m := range r.FalseAlarms {
				t.Logf("false alarm %s %s %.2f %v %q", m.ID, m.Lang, m.Verdict.Score, m.Verdict.Names(), m.Text)
			}
		}
		if r.TPR < 0.90 || r.FPR > 0.02 {
			t.Errorf("%s: TPR %.3f, FPR %.3f: want TPR >= 0.90 at FPR <= 0.02", p.name, r.TPR, r.FPR)
		}
	}
}
