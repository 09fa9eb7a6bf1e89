package reply

import "strings"

// Subtask is one step of a plan, with the fields of the design's planner
// output. Status is the orchestrator's (pending, completed, ...), not the
// planner's; Tools, when set, names the tools the executor is shown.
type Subtask struct {
	ID                 string   `json:"id"`
	Description        string   `json:"description"`
	DependsOn          []string `json:"depends_on"`
	ModelTier          int      `json:"model_tier"`
	VerificationTier   int      `json:"verification_tier"`
	IsCriticalPath     bool     `json:"is_critical_path"`
	AcceptanceCriteria string   `json:"acceptance_criteria"`
	Status             string   `json:"status,omitempty"`
	Tools              []string `json:"tools,omitempty"`

	at *subtaskAt // where it was read, for messages; nil when unknown
}

// part is a part of a subtask that a message may point at.
type part uint8

const (
	partSubtask part = iota
	partID
	partDescription
	partDependsOn
	partModelTier
	partVerificationTier
	partCriticalPath
	partAcceptanceCriteria
	partTools
	numParts
)

// place is a line and column (in bytes) of a file; zero when unknown.
type place struct{ line, col int }

// subtaskAt is where a subtask's parts were read in a reply: the subtask
// itself, the value of each field, and each id of depends_on.
type subtaskAt struct {
	parts [numParts]place
	deps  []place
}

// pos returns where part p of s was read, or the subtask's place when
// that is not known; 0, 0 when s was not read from a reply.
func (s *Subtask) pos(p part) (line, col int) {
	if s.at == nil {
		return 0, 0
	}
	pl := s.at.parts[p]
	if pl.line == 0 {
		pl = s.at.parts[partSubtask]
	}
	return pl.line, pl.col
}

// depPos returns where depends_on's item i was read, or depends_on's
// place when that is not known.
func (s *Subtask) depPos(i int) (line, col int) {
	if s.at != nil && i < len(s.at.deps) && s.at.deps[i].line > 0 {
		return s.at.deps[i].line, s.at.deps[i].col
	}
	return s.pos(partDependsOn)
}

// StatusCompleted is the status of a subtask that is done; a revised plan
// must keep such subtasks unchanged.
const StatusCompleted = "completed"

// Plan is the planner's output: the subtasks in order.
type Plan struct {
	Subtasks []Subtask `json:"subtasks"`

	source    string // the file it was read from, for messages
	line, col int    // where its subtasks are in source; 0 when unknown
}

// Subtask returns the subtask with the given id, or nil (also for a nil
// plan).
func (p *Plan) Subtask(id string) *Subtask {
	if p == nil {
		return nil
	}
	for i := range p.Subtasks {
		if p.Subtasks[i].ID == id {
			return &p.Subtasks[i]
		}
	}
	return nil
}

// The memory entry types of the design's extractor.
const (
	TypeDecision   = "decision"
	TypeError      = "error"
	TypeToolResult = "tool_result"
	TypeDiscovery  = "discovery"
	TypeArtifact   = "artifact"
	TypeContext    = "context"
)

// MemoryTypes returns the memory entry types, in the design's order.
func MemoryTypes() []string {
	return []string{TypeDecision, TypeError, TypeToolResult, TypeDiscovery, TypeArtifact, TypeContext}
}

// MaxSummary is the most characters a memory entry's summary may have.
const MaxSummary = 150

// MemoryEntry is one entry of the agent's memory (Layer 2), as the
// extractor writes it. Tags and RelevanceTo are lists; in JSON each may
// also be written as one comma-separated string. Score, when set, is the
// retrieval's relevance (higher is more relevant) and orders what the
// budget drops; ID and Subtask are the store's.
type MemoryEntry struct {
	ID          string   `json:"id,omitempty"`
	Type        string   `json:"type"`
	Summary     string   `json:"summary"`
	Detail      string   `json:"detail,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	RelevanceTo []string `json:"relevance_to,omitempty"`
	Subtask     string   `json:"subtask,omitempty"`
	Score       *float64 `json:"score,omitempty"`
}

// SplitList splits a comma-separated list, trimming each item and leaving
// out empty ones.
func SplitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// subtaskFields are the keys of a plan's subtask that a message may
// point at, with their parts.
var subtaskFields = [...]struct {
	key  string
	part part
}{
	{"id", partID}, {"description", partDescription}, {"depends_on", partDependsOn}, {"model_tier", partModelTier},
	{"verification_tier", partVerificationTier}, {"is_critical_path", partCriticalPath},
	{"acceptance_criteria", partAcceptanceCriteria}, {"tools", partTools},
}
