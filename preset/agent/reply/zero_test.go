package reply_test

import (
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/preset/agent/reply"
	"github.com/tessera-dev/tessera/preset/presettest"
)

// TestZeroValues: no exported function or method of the package panics
// on zero values (nil pointers, empty strings); each returns an error or
// an empty result instead. Every exported function must be listed.
func TestZeroValues(t *testing.T) {
	presettest.CheckZeroValues(t, ".", map[string]any{
		"ExtractJSON":        reply.ExtractJSON,
		"MemoryTypes":        reply.MemoryTypes,
		"ParseExecutorReply": reply.ParseExecutorReply,
		"ParseExtraction":    reply.ParseExtraction,
		"ParsePlan":          reply.ParsePlan,
		"ParseVerdict":       reply.ParseVerdict,
		"Plan.Subtask":       (*reply.Plan).Subtask,
		"SplitList":          reply.SplitList,
		"ValidatePlan":       reply.ValidatePlan,
		"ValidateReplan":     reply.ValidateReplan,
	})
}

// TestNilInputsAreErrors: the functions that check a plan say, as an
// error, that they were given none.
func TestNilInputsAreErrors(t *testing.T) {
	if err := reply.ValidatePlan(nil); err == nil || !strings.Contains(err.Error(), "no plan to check") {
		t.Errorf("ValidatePlan(nil): %v", err)
	}
	if err := reply.ValidateReplan(nil, nil); err == nil || !strings.Contains(err.Error(), "no original plan") || !strings.Contains(err.Error(), "no revised plan") {
		t.Errorf("ValidateReplan(nil, nil): %v", err)
	}
}
