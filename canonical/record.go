package canonical

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tessera-dev/tessera"
	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
	"github.com/tessera-dev/tessera/tokenizer"
)

// StableKeys are the keys of the sections that stay the same from one
// request to the next for a given assistant and user: the system prompt,
// the identity, the requesting user and the constraints. A provider
// request keeps its longest stable prefix first, for caching.
func StableKeys() []string {
	return []string{KeySystemPrompt, KeyIdentity, KeyRequestingUser, KeyConstraints}
}

// Messages is the number of messages a canonical prompt is sent as: the
// system side (system prompt and identity) and the user side.
const Messages = 2

// Fit fits the prompt into a token budget, trimming its sections in the
// design's preservation order (their priorities and trim rules), and
// records the report in r.Budget. On error r is unchanged.
func (r *Result) Fit(ctx context.Context, b budget.Budget, opts budget.Options) error {
	st := Style(r.Config)
	res, err := budget.Fit(ctx, r.Sections, func(s []prompt.Section) prompt.Prompt { return render.Render(s, st) }, b, opts)
	if err != nil {
		return err
	}
	r.Prompt, r.Sections, r.Budget = res.Prompt, res.Sections, &res.Report
	return nil
}

// Record returns the audit record of the assembly, made at now with the
// given correlation id. It holds the redacted spec with the rendering
// settings written into its assembler block, so Rebuild can assemble it
// again without the original file; what was redacted is counted, never
// kept.
func (r *Result) Record(now time.Time, correlationID string) (*audit.Record, error) {
	spec := *r.Spec
	show := !r.Config.HideEmptySections
	spec.Assembler = &AssemblerConfig{HeadingLevel: r.Config.HeadingLevel, ShowEmptySections: &show}
	if spec.Assembler.HeadingLevel == 0 {
		spec.Assembler.HeadingLevel = 2
	}
	data, err := json.Marshal(&spec)
	if err != nil {
		return nil, fmt.Errorf("canonical: recording the spec: %w", err)
	}
	rec := &audit.Record{
		AssembledPrompt:     r.Prompt.Text,
		AssembledPromptHash: r.Prompt.Hash,
		AssemblyTimestamp:   audit.Timestamp(now),
		CorrelationID:       correlationID,
		Preset:              audit.PresetCanonical,
		Spec:                data,
		Sections:            r.Prompt.Sections,
		Budget:              r.Budget,
		TesseraVersion:      tessera.Version,
	}
	if len(r.Redactions) > 0 {
		rec.Redactions = map[string]int{}
		for _, c := range r.Redactions {
			rec.Redactions[c.Label] = c.N
		}
	}
	return rec, nil
}

// Rebuild assembles a canonical record again from the spec it holds,
// with the same rendering settings and, when the record was fitted, the
// same budget and counter. It is an audit.RebuildFunc.
func Rebuild(ctx context.Context, rec *audit.Record) (*prompt.Prompt, error) {
	if rec.Preset != audit.PresetCanonical {
		return nil, fmt.Errorf("record uses preset %q, not %q", rec.Preset, audit.PresetCanonical)
	}
	if len(rec.Spec) == 0 {
		return nil, fmt.Errorf("record has no spec to rebuild from")
	}
	spec, err := ParseSpec("record spec", rec.Spec)
	if err != nil {
		return nil, err
	}
	// The recorded spec is already redacted; redacting it again could
	// only differ if the patterns changed since.
	none, err := guard.NewRedactor(nil, false)
	if err != nil {
		return nil, err
	}
	res, err := Assemble(ctx, spec, Config{Redactor: none})
	if err != nil {
		return nil, err
	}
	if rec.Budget != nil {
		counter, err := tokenizer.CounterNamed(rec.Budget.Counter)
		if err != nil {
			return nil, fmt.Errorf("record's budget: %w", err)
		}
		if err := res.Fit(ctx, rec.Budget.Budget(), budget.Options{Counter: counter}); err != nil {
			return nil, fmt.Errorf("record's budget: %w", err)
		}
	}
	return &res.Prompt, nil
}
