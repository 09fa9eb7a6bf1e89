package main

import (
	"strings"
	"testing"
)

// FuzzReadSelectionCases: a selection set is read or refused with an
// error naming its file and line, never a panic; every case read has a
// task and the tools it wants.
func FuzzReadSelectionCases(f *testing.F) {
	f.Add([]byte(`{"id": "t1", "lang": "en", "task": "Fix the failing tests", "mode": "act", "want": ["run_tests", "edit_file"]}` + "\n"))
	f.Add([]byte("\n\n{\"task\": \"x\", \"want\": []}\n"))
	f.Add([]byte(`{"task": "x", "want": ["a"], "extra": 1}`))
	f.Add([]byte("{\"task\": \"\\u0000\", \"want\": [\"\"]}\r\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cases, err := readSelectionCases("set.jsonl", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "set.jsonl:") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, c := range cases {
			if strings.TrimSpace(c.Task) == "" || len(c.Want) == 0 {
				t.Fatalf("read a case with no task or no tool: %+v", c)
			}
		}
	})
}
