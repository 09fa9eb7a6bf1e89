package tools_test

import (
	"testing"

	"github.com/tessera-dev/tessera/preset/presettest"
	"github.com/tessera-dev/tessera/preset/typed/tools"
)

// TestZeroValues: no exported function or method of the package panics
// on zero values. Every exported function must be listed.
func TestZeroValues(t *testing.T) {
	presettest.CheckZeroValues(t, ".", map[string]any{
		"Bind":               tools.Bind[struct{}, struct{}],
		"Get":                tools.Get[int],
		"New":                tools.New,
		"OpenWorkspace":      tools.OpenWorkspace,
		"Runtime.Open":       (*tools.Runtime).Open,
		"Scope.Close":        (*tools.Scope).Close,
		"Scope.Dispatch":     (*tools.Scope).Dispatch,
		"Scope.Restore":      (*tools.Scope).Restore,
		"Scope.Session":      (*tools.Scope).Session,
		"Scope.Snapshot":     (*tools.Scope).Snapshot,
		"Session.Get":        (*tools.Session).Get,
		"Session.Restore":    (*tools.Session).Restore,
		"Session.Set":        (*tools.Session).Set,
		"Session.Snapshot":   (*tools.Session).Snapshot,
		"ToolResult.Message": tools.ToolResult.Message,
		"Workspace.Close":    (*tools.Workspace).Close,
		"Workspace.Restore":  (*tools.Workspace).Restore,
		"Workspace.Root":     (*tools.Workspace).Root,
		"Workspace.Snapshot": (*tools.Workspace).Snapshot,
	})
}
