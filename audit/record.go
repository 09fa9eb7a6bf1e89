package audit

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode"

	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/prompt"
)

// TimeFormat is the layout of AssemblyTimestamp: RFC 3339 in UTC with
// millisecond precision.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// Record is one assembly as logged: the prompt, its hash, when and under
// which correlation id it was made (design 001's execution record), and
// where it came from in enough detail to replay it and to say which file
// changed. What a preset needs to lay the prompt out again is its own,
// in Inputs: the template preset's task_ref and includes_resolved, the
// rest of design 001's record, are there.
type Record struct {
	AssembledPrompt     string `json:"assembled_prompt"`
	AssembledPromptHash string `json:"assembled_prompt_hash"`
	AssemblyTimestamp   string `json:"assembly_timestamp"`
	CorrelationID       string `json:"correlation_id"`
	// Preset names the preset that laid the prompt out; replay asks it
	// to lay the prompt out again.
	Preset string `json:"preset"`
	// Name is the prompt's name as compile names its unit, when its
	// preset gives one: "<workflow>/<node>" for a workflow node. tessera
	// serve and the audit database find records by it.
	Name string `json:"name,omitempty"`
	// Label names the prompt for people, as its preset does
	// ("review/code-review", "layered act", a spec's path); replay's
	// messages use it.
	Label   string          `json:"label,omitempty"`
	Sources []prompt.Source `json:"sources,omitempty"`
	// Inputs are the preset's own inputs, as the preset wrote them
	// (redacted): opaque here, enough for the preset to lay the prompt
	// out again. Records written before a preset kept its inputs here
	// carry them elsewhere, and ParseRecord reads them into Inputs: the
	// canonical preset's as "spec"; the template preset's as the
	// top-level "task_ref" and "includes_resolved" of design 001's
	// execution record, with the node in "workflow_id" and "node_id"
	// (read into Name).
	Inputs json.RawMessage `json:"inputs,omitempty"`
	// Redactions counts what redaction replaced, per label; the secrets
	// themselves are never recorded.
	Redactions map[string]int `json:"redactions,omitempty"`
	// Sections locates each rendered section in the prompt, with its
	// hash, for presets that have sections.
	Sections []prompt.SectionSpan `json:"sections,omitempty"`
	// Delivery says what was sent to a provider, when a request body was
	// made.
	Delivery *Delivery `json:"delivery,omitempty"`
	// Budget is the budget report when the prompt was fitted to a token
	// budget: the counter, the limits and every trimming decision.
	Budget         *budget.Report `json:"budget,omitempty"`
	TesseraVersion string         `json:"tessera_version"`
	// PrevHash chains the record to the line before it in its log, and
	// Sig signs the record when the log has a key: see VerifyChain for
	// how each is computed. Append writes both as the last members of
	// the line, whatever the record holds; they are set on records read
	// from a log.
	PrevHash string `json:"prev_hash,omitempty"`
	Sig      string `json:"sig,omitempty"`
}

// Delivery records the provider request a prompt was sent as.
type Delivery struct {
	// Provider is the API the body is for ("openai", "anthropic", ...).
	Provider string `json:"provider"`
	// Model is the model the body names (for Gemini, the model of the
	// URL).
	Model string `json:"model,omitempty"`
	// BodyHash is the SHA-256 of the exact body bytes.
	BodyHash string `json:"body_hash"`
	// StablePrefixHash and StablePrefixTokens describe the cacheable
	// prefix of the request; equal hashes can share a provider's cache.
	StablePrefixHash   string `json:"stable_prefix_hash,omitempty"`
	StablePrefixTokens int    `json:"stable_prefix_tokens,omitempty"`
	// Counter names the counter of StablePrefixTokens.
	Counter string `json:"counter,omitempty"`
	// CacheBreakpoints is the number of Anthropic cache_control marks.
	CacheBreakpoints int `json:"cache_breakpoints,omitempty"`
	// BreakpointsDropped says which cache breakpoints were left out and
	// why, such as a stable prefix under the model's minimum cacheable
	// length; empty when none were.
	BreakpointsDropped string `json:"breakpoints_dropped,omitempty"`
}

// Timestamp formats t as an AssemblyTimestamp.
func Timestamp(t time.Time) string { return t.UTC().Format(TimeFormat) }

// NewCorrelationID returns a random (version 4) UUID.
func NewCorrelationID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// CheckCorrelationID reports whether id can be used as a correlation id: 1
// to 256 bytes of printable text without spaces. Callers may pass their own
// ids (a request or run id); the check keeps them greppable and single-line.
func CheckCorrelationID(id string) error {
	if id == "" || len(id) > 256 {
		return errors.New("correlation id must be 1 to 256 bytes long")
	}
	for _, r := range id {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return fmt.Errorf("correlation id %q holds a space or control character", id)
		}
	}
	return nil
}

// Validate checks that r has the fields replay needs and that its stored
// text hashes to its stored hash.
func (r *Record) Validate() error {
	var errs []error
	if r.CorrelationID == "" {
		errs = append(errs, errors.New("no correlation_id"))
	}
	if r.AssembledPromptHash == "" {
		errs = append(errs, errors.New("no assembled_prompt_hash"))
	} else if got := prompt.Hash(r.AssembledPrompt); got != r.AssembledPromptHash {
		errs = append(errs, fmt.Errorf("assembled_prompt hashes to %s, not to the stored %s: the record was changed after it was written", got, r.AssembledPromptHash))
	}
	if _, err := time.Parse(time.RFC3339Nano, r.AssemblyTimestamp); err != nil {
		errs = append(errs, fmt.Errorf("assembly_timestamp %q is not RFC 3339", r.AssemblyTimestamp))
	}
	return errors.Join(errs...)
}

// Marshal returns r as one line of JSON with a final newline. HTML
// characters are not escaped, so prompt text stays readable in the log.
func (r *Record) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(r.AssembledPrompt)*5/4 + 1024) // room for escapes and the other fields
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encode audit record: %w", err)
	}
	return buf.Bytes(), nil
}

// olderTemplateInputs are the template preset's inputs as ParseRecord
// makes them from a record written before the preset kept them in
// Inputs: the same members the preset writes there now.
type olderTemplateInputs struct {
	TaskRef          string            `json:"task_ref"`
	IncludesResolved map[string]string `json:"includes_resolved,omitempty"`
}

// ParseRecord decodes one log line. Fields it does not know are ignored,
// so a log written by a newer version can still be read.
func ParseRecord(line []byte) (*Record, error) {
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, errors.New("empty line")
	}
	var r struct {
		Record
		Spec json.RawMessage `json:"spec"`
		// The template preset's members before it kept them in inputs.
		TaskRef          string            `json:"task_ref"`
		IncludesResolved map[string]string `json:"includes_resolved"`
		WorkflowID       string            `json:"workflow_id"`
		NodeID           string            `json:"node_id"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("not a JSON record (a torn or edited line?): %v at byte %d", se, se.Offset)
		}
		return nil, fmt.Errorf("not a valid record: %v", err)
	}
	if r.CorrelationID == "" {
		return nil, errors.New("record has no correlation_id")
	}
	if len(r.Inputs) == 0 && len(r.Spec) > 0 {
		r.Inputs = r.Spec
	}
	if len(r.Inputs) == 0 && r.TaskRef != "" {
		in, err := json.Marshal(olderTemplateInputs{r.TaskRef, r.IncludesResolved})
		if err != nil {
			return nil, fmt.Errorf("not a valid record: task_ref: %v", err)
		}
		r.Inputs = in
	}
	if r.Name == "" && r.WorkflowID != "" && r.NodeID != "" {
		r.Name = r.WorkflowID + "/" + r.NodeID
	}
	return &r.Record, nil
}
