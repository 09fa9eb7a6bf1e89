package catalog

import (
	"context"
	"fmt"
	"time"

	"github.com/tessera-dev/tessera"
	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/tokenizer"
)

// Record returns the audit record of the assembly, made at now with the
// given correlation id (see audit.NewCorrelationID).
func (a *Assembly) Record(now time.Time, correlationID string) *audit.Record {
	return &audit.Record{
		TaskRef:             a.TaskRef,
		IncludesResolved:    a.IncludesResolved(),
		AssembledPrompt:     a.Text,
		AssembledPromptHash: a.Hash,
		AssemblyTimestamp:   audit.Timestamp(now),
		CorrelationID:       correlationID,
		WorkflowID:          a.WorkflowID,
		NodeID:              a.NodeID,
		Preset:              audit.PresetTemplate,
		Sources:             a.Sources,
		Budget:              a.Budget,
		TesseraVersion:      tessera.Version,
	}
}

// Rebuild assembles the prompt a record describes, from the record's own
// task_ref and includes_resolved and the files as they are now. It is an
// audit.RebuildFunc: pass it to audit.Replay.
func (c *Catalog) Rebuild(ctx context.Context, r *audit.Record) (*prompt.Prompt, error) {
	if r.Preset != "" && r.Preset != audit.PresetTemplate {
		return nil, fmt.Errorf("record uses preset %q; this catalog replays %q records", r.Preset, audit.PresetTemplate)
	}
	if r.TaskRef == "" {
		return nil, fmt.Errorf("record has no task_ref to rebuild from")
	}
	a, err := c.AssembleTask(ctx, r.TaskRef, r.IncludesResolved)
	if err != nil {
		return nil, err
	}
	if r.Budget != nil {
		counter, err := tokenizer.CounterNamed(r.Budget.Counter)
		if err != nil {
			return nil, fmt.Errorf("record's budget: %w", err)
		}
		if err := a.Fit(ctx, r.Budget.Budget(), budget.Options{Counter: counter}); err != nil {
			return nil, fmt.Errorf("record's budget: %w", err)
		}
	}
	return &a.Prompt, nil
}
