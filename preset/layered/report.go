package layered

import (
	"math"
	"slices"
	"time"

	"github.com/tessera-dev/tessera/preset/layered/untrusted"
)

// Report is design 002's report of one assembly, the --json output of
// "tessera layered assemble": the mode and why, the names of the tools
// and skills, the context (git, env, the memories and activity kept,
// what was filtered), and the metrics, beside the record's correlation
// id and prompt hash that find the audit record for replay.
type Report struct {
	Mode       string   `json:"mode"`
	ModeReason string   `json:"mode_reason"`
	Task       string   `json:"task"`
	Tools      []string `json:"tools"`
	Skills     []string `json:"skills"`
	// Concepts are those the task names; Picked are the tools and
	// skills picked with their scores and why, Passed the best of those
	// not picked with why (see Selection).
	Concepts []string `json:"concepts,omitempty"`
	Picked   Picks    `json:"picked"`
	Passed   Picks    `json:"passed"`
	// Context holds the memories and activity kept, as "id: text" in
	// the prompt's order, and what was filtered.
	Context struct {
		Git           *untrusted.Git `json:"git"`
		Env           *untrusted.Env `json:"env"`
		Memories      []string       `json:"memories"`
		Activity      []string       `json:"activity"`
		FilteredCount int            `json:"filtered_count"`
		Filtered      []string       `json:"filtered,omitempty"`
	} `json:"context"`
	// Metrics are the prompt's tokens (counted by TokenCounter), the
	// assembly's wall time, and the selection's Metrics.
	Metrics struct {
		EstimatedTokens int     `json:"estimated_tokens"`
		TokenCounter    string  `json:"token_counter,omitempty"`
		LatencyMS       float64 `json:"latency_ms"`
		Embedder        string  `json:"embedder"`
		EmbeddingCalls  int     `json:"embedding_calls"`
		EntriesEmbedded int     `json:"entries_embedded"`
		Fallback        string  `json:"fallback,omitempty"`
		Ranker          string  `json:"ranker,omitempty"`
	} `json:"metrics"`
	// Defaults name the built-in layer files used (see Setup.Defaults).
	Defaults []string `json:"defaults,omitempty"`
	// CorrelationID and PromptSHA256 are the audit record's.
	CorrelationID string `json:"correlation_id,omitempty"`
	PromptSHA256  string `json:"prompt_sha256,omitempty"`
}

// Report returns the selection's report, with the prompt's tokens as
// counter counted them and the assembly's latency (kept to a tenth of a
// millisecond). A nil selection has none: nil.
func (s *Selection) Report(tokens int, counter string, latency time.Duration) *Report {
	if s == nil {
		return nil
	}
	r := &Report{
		Mode: s.Mode, ModeReason: s.ModeReason, Task: s.Task,
		Tools: []string{}, Skills: []string{},
		Concepts: slices.Clone(s.Concepts),
		Picked:   Picks{Tools: slices.Clone(s.Tools), Skills: slices.Clone(s.Skills)},
		Passed:   Picks{Tools: slices.Clone(s.Passed.Tools), Skills: slices.Clone(s.Passed.Skills)},
		Defaults: slices.Clone(s.Defaults),
	}
	r.Context.Git, r.Context.Env = s.Context.Git, s.Context.Env
	r.Context.Memories, r.Context.Activity = []string{}, []string{}
	r.Context.FilteredCount, r.Context.Filtered = s.Context.Filtered, slices.Clone(s.Context.FilteredIDs)
	r.Metrics.EstimatedTokens, r.Metrics.TokenCounter = tokens, counter
	r.Metrics.LatencyMS = math.Round(float64(latency.Microseconds())/100) / 10
	r.Metrics.Embedder, r.Metrics.EmbeddingCalls = s.Metrics.Embedder, s.Metrics.EmbeddingCalls
	r.Metrics.EntriesEmbedded, r.Metrics.Fallback, r.Metrics.Ranker = s.Metrics.EntriesEmbedded, s.Metrics.Fallback, s.Metrics.Ranker
	for _, p := range s.Tools {
		r.Tools = append(r.Tools, p.Name)
	}
	for _, p := range s.Skills {
		r.Skills = append(r.Skills, p.Name)
	}
	for _, k := range s.Context.Memories {
		r.Context.Memories = append(r.Context.Memories, k.ID+": "+oneLine(k.Text))
	}
	for _, k := range s.Context.Activity {
		r.Context.Activity = append(r.Context.Activity, k.ID+": "+oneLine(k.Text))
	}
	return r
}
