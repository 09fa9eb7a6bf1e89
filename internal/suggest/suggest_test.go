package suggest

import "testing"

func TestNearest(t *testing.T) {
	cands := []string{"OUTPUT_SCHEMA", "PGC_CONTEXT", "REVIEW_CONTEXT"}
	for name, want := range map[string]string{
		"OUTPUT_SCHEME":  "OUTPUT_SCHEMA",
		"output_schema":  "OUTPUT_SCHEMA", // case is ignored
		"PGC_CONTEX":     "PGC_CONTEXT",
		"PCG_CONTEXT":    "PGC_CONTEXT", // a swap of two letters is one edit
		"SOMETHING_ELSE": "",
		"":               "",
	} {
		if got := Nearest(name, cands); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", name, got, want)
		}
	}
	if got := Nearest("pcg", []string{"intake", "pgc", "review"}); got != "pgc" {
		t.Errorf("Nearest(pcg) = %q, want pgc", got)
	}
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"pgc", "pcg", 1}, {"goal", "gaol", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3}} {
		if got := distance(c.a, c.b); got != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
	if got := Nearest("ABCD", []string{"ABCE", "ABCF"}); got != "ABCE" {
		t.Errorf("ties go to the first candidate: got %q", got)
	}
}
