package auditdb

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/audit"
)

// parseLog accepts a log only when every line is a valid record and the
// chain holds, and then keeps every line byte for byte.
func FuzzParseLog(f *testing.F) {
	files, _ := filepath.Glob("../engine/testdata/logs/*.jsonl")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	l := &audit.Log{Path: filepath.Join(f.TempDir(), "a.jsonl")}
	if err := l.Add(context.Background(), record("a", "one"), record("b", "two")); err == nil {
		data, _ := os.ReadFile(l.Path)
		f.Add(data)
		f.Add(append(data, `{"task_ref":"x`...))
	}
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := parseLog(context.Background(), "log.jsonl", data)
		if err != nil {
			return
		}
		var joined [][]byte
		for _, l := range lines {
			r, err := audit.ParseRecord(l.line)
			if err == nil {
				err = r.Validate()
			}
			if err != nil || r.CorrelationID != l.rec.CorrelationID || r.PrevHash != l.rec.PrevHash {
				t.Fatalf("line %d accepted, yet: %v", l.no, err)
			}
			joined = append(joined, l.line)
		}
		var want [][]byte
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			if len(l) > 0 {
				want = append(want, l)
			}
		}
		if !bytes.Equal(bytes.Join(joined, []byte{'\n'}), bytes.Join(want, []byte{'\n'})) {
			t.Fatal("the lines kept are not the log's")
		}
	})
}
