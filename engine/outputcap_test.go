package engine

import (
	"runtime"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

// TestOutputCapBeforeRender checks that a prompt whose bodies alone are
// over the output cap is refused before its text is built: the error
// says so, and the assembly allocates far less than the text.
func TestOutputCapBeforeRender(t *testing.T) {
	body := strings.Repeat("x", 9<<20) // over the default 8 MiB cap
	secs := []prompt.Section{{Key: "a", Body: "A"}, {Key: "b", Children: []prompt.Section{{Key: "c", Body: body}}}}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := assembleTest(secs, render.Plain, nil)
	runtime.ReadMemStats(&m1)
	if err == nil || !strings.Contains(err.Error(), "the assembled prompt would be at least 9437185 bytes, over the 8388608-byte output cap: shorten its inputs, or raise limits.max_output_bytes in tessera.yaml") {
		t.Fatalf("err = %v", err)
	}
	if n := m1.TotalAlloc - m0.TotalAlloc; n > 4<<20 {
		t.Errorf("refusing the prompt allocated %d MB", n>>20)
	}
	if got := render.MinSize(secs); got != int64(len(body))+1 {
		t.Errorf("MinSize = %d", got)
	}
}
