package suggest

import "testing"

func TestNearest(t *testing.T) {
	cands := []string{"OUTPUT_SCHEMA", "PGC_CONTEXT", "REVIEW_CONTEXT"}
	for name, want := range map[string]string{
		"OUTPUT_SCHEME":  "OUTPUT_SCHEMA",
		"output_schema":  "OUTPUT_SCHEMA", // case is ignored
		"PGC_CONTEX":     "PGC_CONTEXT",
		"SOMETHING_ELSE": "",
		"":               "",
	} {
		if got := Nearest(name, cands); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", name, got, want)
		}
	}
	if got := Nearest("ABCD", []string{"ABCE", "ABCF"}); got != "ABCE" {
		t.Errorf("ties go to the first candidate: got %q", got)
	}
}
