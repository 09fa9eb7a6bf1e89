package inspector

import (
	"context"
	"errors"
	"time"
)

// Errors a Source wraps so that the pages answer with the right status.
var (
	// ErrNotFound: the prompt, version, label or record does not exist
	// (404).
	ErrNotFound = errors.New("not found")
	// ErrForbidden: the key may not do this (403).
	ErrForbidden = errors.New("forbidden")
	// ErrInvalid: the request is malformed (400).
	ErrInvalid = errors.New("invalid")
	// ErrConflict: what the form changes changed since the page was read,
	// such as a label another server moved (409).
	ErrConflict = errors.New("conflict")
)

// Source is what the pages show and do. Every method gets the request's
// context, which carries whatever the mounting server put there (such as
// the key that authenticated).
type Source interface {
	// Prompts lists the prompts with their labels, sorted by name.
	Prompts(ctx context.Context) ([]Prompt, error)
	// Prompt returns one prompt with its versions, oldest first.
	Prompt(ctx context.Context, name string) (*PromptDetail, error)
	// Assembled returns version n of the prompt, assembled, section by
	// section.
	Assembled(ctx context.Context, name string, n int) (*Assembled, error)
	// Diff returns the unified diff of versions from and to of the
	// prompt's assembled text, "" when they are equal.
	Diff(ctx context.Context, name string, from, to int) (string, error)
	// LabelHistory lists the moves of the prompt's labels, newest first.
	LabelHistory(ctx context.Context, name string) ([]LabelMove, error)
	// MoveLabel puts label on version n of the prompt, moving it from
	// the version it was on, with reason kept in the history.
	MoveLabel(ctx context.Context, name, label string, n int, reason string) error
	// RemoveLabel takes label off the prompt, with reason kept in the
	// history.
	RemoveLabel(ctx context.Context, name, label, reason string) error
	// Audit lists the audit records q selects, newest first.
	Audit(ctx context.Context, q AuditQuery) (*AuditResult, error)
	// Replay lays audit record id out again from the catalog at against
	// (a label or a commit hash; "" for the default branch's head) and
	// compares it.
	Replay(ctx context.Context, id, against string) (*Replay, error)
}

// Prompt is one prompt of the list.
type Prompt struct {
	Name   string
	Preset string
	// Versions is how many versions it has; Latest is when the newest
	// was made.
	Versions int
	Latest   time.Time
	// Labels are the labels on any of its versions, each with the
	// version it selects, sorted by label.
	Labels []Label
}

// Label is a label and the version it selects.
type Label struct {
	Name    string
	Version int
}

// PromptDetail is a prompt with its versions.
type PromptDetail struct {
	Name     string
	Preset   string
	Versions []Version
}

// Version is one version of a prompt.
type Version struct {
	Number  int
	Commit  string
	Hash    string
	Time    time.Time
	Message string
	Labels  []string
}

// Assembled is a version of a prompt, assembled.
type Assembled struct {
	Name    string
	Version int
	Commit  string
	Hash    string
	Preset  string
	Labels  []string
	// Counter names the tokenizer the counts come from.
	Counter string
	// Sections are the top-level sections in order; a prompt laid out in
	// one piece has one section with an empty key.
	Sections []Section
	// Cut is what the budget removed, in the budget report's order; nil
	// when no budget was applied or nothing was cut.
	Cut []Cut
	// Budgeted says a budget was applied; Limit and Final are its limit
	// and the fitted prompt's tokens.
	Budgeted     bool
	Limit, Final int
	// Selection is a layered prompt's selection report, or nil.
	Selection *Selection
}

// Section is one section of an assembled prompt.
type Section struct {
	Key    string
	Role   string
	Tokens int
	Text   string
}

// Cut is one thing the budget removed from a section.
type Cut struct {
	Key string
	// What says what: "dropped", "dropped with <key>", "items a, b",
	// "truncated by N tokens".
	What string
	// Tokens is how many tokens it saved.
	Tokens int
}

// Selection is a layered prompt's selection report.
type Selection struct {
	Task       string
	Mode       string
	ModeReason string
	Tools      []Pick
	Skills     []Pick
	// Passed are the best tools and skills not picked.
	Passed []Pick
	// Filtered are the untrusted entries dropped, with why.
	Filtered      []string
	FilteredCount int
}

// Pick is a tool or skill with its score and why.
type Pick struct {
	Kind  string // "tool" or "skill"
	Name  string
	Score float64
	Base  bool
	Why   string
}

// LabelMove is one move in a label's history. A removal has To 0; a
// first setting has From 0.
type LabelMove struct {
	Label    string
	From, To int
	Actor    string
	Reason   string
	At       time.Time
}

// AuditQuery selects audit records; empty fields match every record.
type AuditQuery struct {
	// Prompt is a prompt's name (or a record's label).
	Prompt string
	// Hash is the assembled prompt's SHA-256.
	Hash string
	// ID is a correlation id.
	ID string
	// Limit is the most records wanted, newest first; 0 means 100.
	Limit int
}

// AuditResult is the audit records a query selects.
type AuditResult struct {
	Records []AuditRecord
	// Note says what the list leaves out, such as a store that finds
	// records by id only.
	Note string
}

// AuditRecord is one audit record as listed.
type AuditRecord struct {
	ID     string
	Prompt string
	Preset string
	Hash   string
	Time   string
}

// Replay is the outcome of a replay.
type Replay struct {
	ID string
	// Against is the label or commit the record was replayed against, ""
	// for the default branch's head; Commit is the commit that was.
	Against, Commit string
	// Match says the hashes are equal.
	Match        bool
	Status       string
	ExpectedHash string
	ActualHash   string
	// Line is the first line (from 1) where the texts differ, with the
	// recorded and the new text of it; 0 when they match or the replay
	// failed.
	Line             int
	Expected, Actual string
	// Error says why the replay could not run.
	Error string
}
