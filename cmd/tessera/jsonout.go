package main

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/guard"
)

// The --json outputs of compile, replay, tokens and redact: one JSON
// object on one line of standard output. The field names are stable and
// documented in docs/CLI.md ("JSON output"); keys come in the order of
// the structs below and lists in the order the text output has, so the
// output is the same bytes for the same input.

// writeJSON writes v as one line of JSON, without escaping <, > and &.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// jsonProblem is one problem: where, and what.
type jsonProblem struct {
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Message string `json:"message"`
}

// problems lists err's problems as a.fail shows them: paths from the
// current directory, files named on the command line (keep) as given.
func (a *app) problems(err error, keep ...string) []jsonProblem {
	var out []jsonProblem
	for _, e := range a.diags(err, keep...) {
		at := (&diag.Error{Path: e.Path, Line: e.Line, Col: e.Col}).Error()
		out = append(out, jsonProblem{Path: e.Path, Line: e.Line, Col: e.Col, Message: missingPath(err, strings.TrimPrefix(e.Error(), at))})
	}
	return out
}

// compileJSON is compile --json: the prompts written (or, with --check,
// built), or the problems.
type compileJSON struct {
	OK       bool                    `json:"ok"`
	Check    bool                    `json:"check"`
	Dir      string                  `json:"dir,omitempty"`
	Prompts  []catalog.ManifestEntry `json:"prompts"`
	Removed  []string                `json:"removed,omitempty"`
	Problems []jsonProblem           `json:"problems,omitempty"`
}

// builtEntries describes what Build built as compile's manifest would.
func builtEntries(built []engine.Built) []catalog.ManifestEntry {
	out := make([]catalog.ManifestEntry, 0, len(built))
	for _, b := range built {
		e := b.Unit.Entry
		e.Path, e.Hash, e.Bytes = b.Unit.Out, b.Result.Prompt.Hash, len(b.Result.Prompt.Text)
		out = append(out, e)
	}
	return out
}

// replayJSON is replay --json.
type replayJSON struct {
	OK       bool            `json:"ok"`
	Log      string          `json:"log"`
	Records  []replayRecord  `json:"records"`
	BadLines []jsonLineError `json:"bad_lines,omitempty"`
	Chain    *replayChain    `json:"chain,omitempty"`
}

// replayRecord is one record replayed.
type replayRecord struct {
	Line          int            `json:"line"`
	Prompt        string         `json:"prompt"`
	CorrelationID string         `json:"correlation_id"`
	Status        string         `json:"status"`
	LoggedHash    string         `json:"logged_hash"`
	Hash          string         `json:"hash,omitempty"`
	Diff          *replayDiff    `json:"diff,omitempty"`
	Changed       []replayChange `json:"changed,omitempty"`
	Error         string         `json:"error,omitempty"`
}

// replayDiff is the first line that differs; a side is null when the
// text ends before that line.
type replayDiff struct {
	Line   int     `json:"line"`
	Logged *string `json:"logged"`
	Now    *string `json:"now"`
}

// replayChange is a source file that changed, was added or was removed.
type replayChange struct {
	Path   string `json:"path"`
	Change string `json:"change"`
}

// jsonLineError is a line of the log and what is wrong with it.
type jsonLineError struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// replayChain is what replay found of the log's chain.
type replayChain struct {
	Break     *jsonLineError `json:"break,omitempty"`
	Unchained int            `json:"unchained,omitempty"`
}

// replayRecord describes one verdict, without the record's text.
func (a *app) replayRecord(v audit.Verdict) replayRecord {
	r := replayRecord{Line: v.Line, Prompt: engine.Describe(v.Record), CorrelationID: v.Record.CorrelationID, Status: v.Status.String(), LoggedHash: v.Record.AssembledPromptHash, Hash: v.NewHash}
	if d := v.Diff; d != nil {
		r.Diff = &replayDiff{Line: d.Line}
		if d.Missing != "stored" {
			r.Diff.Logged = &d.Stored
		}
		if d.Missing != "current" {
			r.Diff.Now = &d.Current
		}
	}
	for _, ch := range v.Changed {
		kind := "changed"
		switch {
		case ch.OldHash == "":
			kind = "added"
		case ch.NewHash == "":
			kind = "removed"
		}
		r.Changed = append(r.Changed, replayChange{Path: ch.Path, Change: kind})
	}
	if v.Err != nil {
		r.Error = a.fail(v.Err).Error()
	}
	return r
}

// replayOutput is replay --json's object, from the records replayed
// (each OK when ok) and the rest of the report.
func replayOutput(rep *audit.Report, logPath string, records []replayRecord, ok bool) replayJSON {
	out := replayJSON{OK: ok && (rep.Chain == nil || rep.Chain.OK()), Log: filepath.ToSlash(logPath), Records: records}
	if out.Records == nil {
		out.Records = []replayRecord{}
	}
	for _, b := range rep.BadLines {
		out.BadLines = append(out.BadLines, jsonLineError{b.Line, b.Err.Error()})
	}
	if ch := rep.Chain; ch != nil && (ch.Break != nil || ch.Unchained > 0) {
		out.Chain = &replayChain{Unchained: ch.Unchained}
		if ch.Break != nil {
			out.Chain.Break = &jsonLineError{ch.Break.Line, ch.Break.Err.Error()}
		}
	}
	return out
}

// tokensJSON is tokens --json.
type tokensJSON struct {
	Input   string `json:"input"`
	Tokens  int    `json:"tokens"`
	Counter string `json:"counter"`
	Exact   bool   `json:"exact"`
}

// redactJSON is redact --json: the redacted text and the report.
type redactJSON struct {
	Text   string       `json:"text"`
	Counts []labelCount `json:"counts"`
	Total  int          `json:"total"`
}

// labelCount is how many times one label's pattern was redacted.
type labelCount struct {
	Label string `json:"label"`
	Count int    `json:"count"`
}

func newRedactJSON(text string, counts guard.Counts) redactJSON {
	out := redactJSON{Text: text, Counts: []labelCount{}, Total: counts.Total()}
	for _, c := range counts {
		out.Counts = append(out.Counts, labelCount{c.Label, c.N})
	}
	return out
}
