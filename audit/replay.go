package audit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/prompt"
)

// RebuildFunc assembles the prompt a record describes, from the catalog as
// it is now.
type RebuildFunc func(ctx context.Context, r *Record) (*prompt.Prompt, error)

// Status is the outcome of replaying one record.
type Status int

const (
	// Match: the rebuilt prompt has the stored hash.
	Match Status = iota
	// Mismatch: the rebuilt prompt differs from the stored one.
	Mismatch
	// Tampered: the stored text does not hash to the stored hash.
	Tampered
	// Failed: the prompt could not be rebuilt (a file is gone, say).
	Failed
)

func (s Status) String() string {
	switch s {
	case Match:
		return "match"
	case Mismatch:
		return "mismatch"
	case Tampered:
		return "tampered"
	default:
		return "failed"
	}
}

// LineDiff is the first line where two texts differ.
type LineDiff struct {
	// Line is 1-based.
	Line int
	// Stored and Current are that line in each text; Missing says which
	// text ended before it ("stored" or "current"), if either.
	Stored, Current string
	Missing         string
}

// SourceChange is a file whose content or place differs between a record
// and its replay.
type SourceChange struct {
	Kind    prompt.SourceKind
	Token   string
	Path    string
	OldHash string // empty if the file was not used before
	NewHash string // empty if the file is no longer used
}

// Verdict is the result of replaying one record.
type Verdict struct {
	Entry
	Status Status
	// NewHash is the hash of the rebuilt prompt, for Match and Mismatch.
	NewHash string
	// Diff is the first differing line, for Mismatch.
	Diff *LineDiff
	// Changed lists the source files that changed, for Mismatch.
	Changed []SourceChange
	// Err says why, for Tampered and Failed.
	Err error
}

// OK reports whether the record replayed to the same bytes.
func (v *Verdict) OK() bool { return v.Status == Match }

// Report is the result of a replay.
type Report struct {
	// Verdicts has one entry per record with the correlation id, in log
	// order.
	Verdicts []Verdict
	// BadLines are log lines that are not records (a torn write, an edit):
	// not part of any verdict, but worth reporting in an audit trail.
	BadLines []BadLine
	// Chain is the check of the whole log's chain and signatures (see
	// Log.VerifyChain): a break anywhere fails the replay, since a log
	// that was changed cannot vouch for the records it holds.
	Chain *ChainReport
}

// OK reports whether every record replayed to the same bytes.
func (r *Report) OK() bool {
	for i := range r.Verdicts {
		if !r.Verdicts[i].OK() {
			return false
		}
	}
	return len(r.Verdicts) > 0 && (r.Chain == nil || r.Chain.OK())
}

// Replay finds every record with the correlation id id and verifies each:
// first that its stored text still hashes to its stored hash, then that
// rebuild produces the same text now. It also checks the log's chain and,
// when l has a Key, its signatures (Report.Chain), so that a record
// changed consistently (inputs, text and hash together) is caught by the
// record after it. It returns an error only when the log cannot be read
// or holds no record with that id.
func Replay(ctx context.Context, l *Log, id string, rebuild RebuildFunc) (*Report, error) {
	return collect(ctx, l, Query{ID: id}, rebuild)
}

// ReplayHash is Replay for the records whose prompt hash is hash.
func ReplayHash(ctx context.Context, l *Log, hash string, rebuild RebuildFunc) (*Report, error) {
	return collect(ctx, l, Query{Hash: hash}, rebuild)
}

// A Query selects the records a replay verifies: those whose correlation
// id is ID or, when Hash is set instead, whose prompt hash is Hash.
type Query struct {
	ID   string
	Hash string
}

// lookup returns the kind of key and the value q looks up, and how a
// message names them.
func (q Query) lookup() (kind byte, value, what string, err error) {
	switch {
	case (q.ID == "") == (q.Hash == ""):
		return 0, "", "", errors.New("a replay query needs a correlation id or a prompt hash, not both")
	case q.Hash != "":
		return kindHash, q.Hash, "prompt hash " + q.Hash, nil
	}
	return kindID, q.ID, "correlation id " + strconv.Quote(q.ID), nil
}

// ReplayEach is Replay for the records q selects that hands each verdict
// to fn as it is made, in log order, instead of collecting them. It reads
// and holds one record at a time, so a replay of many large records takes
// the memory of one. The report it returns has the lines that are not
// records and the chain, and no verdicts (its OK is false: the caller
// judges the verdicts it was given and Chain.OK). fn's first error stops
// the replay and is returned.
func ReplayEach(ctx context.Context, l *Log, q Query, rebuild RebuildFunc, fn func(Verdict) error) (*Report, error) {
	kind, value, what, err := q.lookup()
	if err != nil {
		return nil, err
	}
	n := 0
	bad, err := l.each(ctx, kind, value, func(e Entry) error {
		n++
		v := Verify(ctx, e, rebuild)
		return fn(v)
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		msg := fmt.Sprintf("no record with %s in %s", what, l.Path)
		if len(bad) > 0 {
			msg += fmt.Sprintf(" (%d unreadable lines, the first at line %d: %v)", len(bad), bad[0].Line, bad[0].Err)
		}
		return nil, errors.New(msg)
	}
	chain, err := l.VerifyChain(ctx)
	if err != nil {
		return nil, err
	}
	return &Report{BadLines: bad, Chain: chain}, nil
}

// collect is ReplayEach with the verdicts collected in the report.
func collect(ctx context.Context, l *Log, q Query, rebuild RebuildFunc) (*Report, error) {
	var verdicts []Verdict
	rep, err := ReplayEach(ctx, l, q, rebuild, func(v Verdict) error {
		verdicts = append(verdicts, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Verdicts = verdicts
	return rep, nil
}

// Verify replays one record.
func Verify(ctx context.Context, e Entry, rebuild RebuildFunc) Verdict {
	v := Verdict{Entry: e}
	r := e.Record
	if got := prompt.Hash(r.AssembledPrompt); got != r.AssembledPromptHash {
		v.Status = Tampered
		v.Err = fmt.Errorf("the stored prompt hashes to %s, not to the stored %s: the record was changed after it was written", got, r.AssembledPromptHash)
		return v
	}
	p, err := rebuild(ctx, r)
	if err != nil {
		v.Status, v.Err = Failed, err
		return v
	}
	v.NewHash = p.Hash
	if p.Hash == r.AssembledPromptHash {
		v.Status = Match
		return v
	}
	v.Status = Mismatch
	v.Diff = FirstDiff(r.AssembledPrompt, p.Text)
	v.Changed = changedSources(r.Sources, p.Sources)
	return v
}

// FirstDiff returns the first line at which a and b differ, or nil if
// they are equal.
func FirstDiff(a, b string) *LineDiff {
	if a == b {
		return nil
	}
	for n := 1; ; n++ {
		la, ra, okA := strings.Cut(a, "\n")
		lb, rb, okB := strings.Cut(b, "\n")
		if la == lb && okA != okB {
			// Same line, but only one text goes on past it.
			d := &LineDiff{Line: n + 1}
			if okA {
				d.Stored, _, _ = strings.Cut(ra, "\n")
				d.Missing = "current"
			} else {
				d.Current, _, _ = strings.Cut(rb, "\n")
				d.Missing = "stored"
			}
			return d
		}
		if la != lb {
			d := &LineDiff{Line: n, Stored: la, Current: lb}
			if a == "" && !okA {
				d.Missing = "stored"
			} else if b == "" && !okB {
				d.Missing = "current"
			}
			return d
		}
		a, b = ra, rb
	}
}

// changedSources compares the sources of a record and its rebuild by
// kind, token and path.
func changedSources(old, cur []prompt.Source) []SourceChange {
	type key struct {
		kind        prompt.SourceKind
		token, path string
	}
	before := map[key]string{}
	for _, s := range old {
		before[key{s.Kind, s.Token, s.Path}] = s.Hash
	}
	var out []SourceChange
	seen := map[key]bool{}
	for _, s := range cur {
		k := key{s.Kind, s.Token, s.Path}
		if seen[k] {
			continue
		}
		seen[k] = true
		if h, ok := before[k]; !ok || h != s.Hash {
			out = append(out, SourceChange{Kind: s.Kind, Token: s.Token, Path: s.Path, OldHash: h, NewHash: s.Hash})
		}
	}
	for _, s := range old {
		k := key{s.Kind, s.Token, s.Path}
		if !seen[k] {
			seen[k] = true
			out = append(out, SourceChange{Kind: s.Kind, Token: s.Token, Path: s.Path, OldHash: s.Hash})
		}
	}
	return out
}
