package reply

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/diag"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// TestReplyBounds checks that a hostile reply is refused at
// MaxReplyValues, before it is read further, with memory small beside
// its size; that a plan far over MaxSubtasks is one problem; and that
// the problems listed stop at maxProblems, with a count of the rest.
func TestReplyBounds(t *testing.T) {
	ones := strings.Repeat("1,", 1<<20) + "1"
	data := []byte(`{"subtasks": [` + ones + `]}`)
	var err error
	if n := allocated(func() { _, err = parseJSON(data) }); n > 16<<20 {
		t.Errorf("parseJSON of a 2 MiB list allocated %d MB", n>>20)
	}
	if err == nil || !strings.Contains(err.Error(), "the reply holds more than 20000 JSON values") {
		t.Errorf("parseJSON of a 2 MiB list: %v", err)
	}
	// Each check of a reply refuses it before searching it for its JSON.
	for name, check := range map[string]func() error{
		"plan":    func() error { _, err := ParsePlan("r.json", data); return err },
		"extract": func() error { _, err := ParseExtraction("r.json", data); return err },
		"verdict": func() error { _, err := ParseVerdict("r.json", data); return err },
	} {
		if n := allocated(func() { err = check() }); n > 8<<20 {
			t.Errorf("%s of a 2 MiB list allocated %d MB", name, n>>20)
		}
		if err == nil || !strings.Contains(err.Error(), "r.json: the reply holds 1048578 commas and brackets, more than a reply of at most 20000 JSON values needs") {
			t.Errorf("%s of a 2 MiB list: %v", name, err)
		}
	}
	if rep := ParseExecutorReply(string(data)); rep.Blocked || len(rep.Summary) != len(data) {
		t.Errorf("an executor's 2 MiB reply: blocked %v, summary of %d bytes", rep.Blocked, len(rep.Summary))
	}

	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	if _, err := parseJSON([]byte(deep)); err == nil || !strings.Contains(err.Error(), "nest over 64 levels") {
		t.Errorf("parseJSON nested %d deep: %v", maxDepth+1, err)
	}
	if _, err := parseJSON([]byte(deep[1 : len(deep)-1])); err != nil {
		t.Errorf("parseJSON nested %d deep: %v", maxDepth, err)
	}

	// 101 subtasks: the plan's length is its one problem.
	plan := `{"subtasks": [` + strings.Repeat(`{"id": 1},`, maxPlanItems) + `{"id": 1}]}`
	_, err = ParsePlan("r.json", []byte(plan))
	if got := problemList(err); len(got) != 1 || !strings.Contains(got[0], "r.json:1:2: the plan has 101 subtasks: make it 3 to 15") {
		t.Errorf("a plan of 101 subtasks: %q", got)
	}

	// 500 entries that are not objects: 100 listed, and a count.
	_, err = ParseExtraction("r.json", []byte("["+strings.Repeat("1,", 499)+"1]"))
	got := problemList(err)
	if len(got) != maxProblems+1 || got[len(got)-1] != "r.json: 400 more problems not listed: fix those above and check again" {
		t.Errorf("500 bad entries: %d problems, last %q", len(got), got[len(got)-1])
	}
}

func problemList(err error) []string {
	var l diag.List
	if !errors.As(err, &l) {
		return nil
	}
	var out []string
	for _, e := range l {
		out = append(out, e.Error())
	}
	return out
}
