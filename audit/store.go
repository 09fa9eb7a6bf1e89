package audit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// ErrNotFound is the error a Store's Record wraps when no record has the
// correlation id asked for.
var ErrNotFound = errors.New("no such audit record")

// A Store keeps audit records: the JSON Lines Log, and the databases of
// package auditdb. Every store holds the same records, one JSON line
// each, in the order they were added, and gives back the lines exactly as
// they were written, so that records move between stores without a byte
// changing and replay works from any of them.
type Store interface {
	// Add appends records, in order, chaining each to the line before
	// it (see VerifyChain); when Add returns nil every record is kept.
	// It sets each record's PrevHash (and Sig) to what its line holds.
	Add(ctx context.Context, recs ...*Record) error
	// Record returns the first record, in store order, whose correlation
	// id is id, or an error wrapping ErrNotFound.
	Record(ctx context.Context, id string) (*Record, error)
	// Each calls fn with each record q selects, in store order: those
	// whose correlation id is q.ID, or whose prompt hash is q.Hash, or
	// every record when both are empty. Entry.Line is the record's line
	// in the store (its position when exported as JSON Lines). fn's
	// first error stops Each and is returned.
	Each(ctx context.Context, q Query, fn func(Entry) error) error
	// Lines calls fn with every non-empty line of the store in order,
	// without its final newline, as a JSON Lines export holds them. The
	// slice is valid only during the call. fn's first error stops Lines
	// and is returned.
	Lines(ctx context.Context, fn func(line []byte) error) error
}

// Add appends each record in turn with Append. An error names the record
// that was not written; the records before it are in the log.
func (l *Log) Add(ctx context.Context, recs ...*Record) error {
	for i, r := range recs {
		if err := l.Append(ctx, r); err != nil {
			if len(recs) > 1 {
				return fmt.Errorf("record %d of %d: %w", i+1, len(recs), err)
			}
			return err
		}
	}
	return nil
}

// Record returns the first record in the log whose correlation id is id,
// or an error wrapping ErrNotFound.
func (l *Log) Record(ctx context.Context, id string) (*Record, error) {
	var found *Record
	stop := errors.New("stop")
	_, err := l.each(ctx, kindID, id, func(e Entry) error {
		found = e.Record
		return stop
	})
	if err != nil && err != stop {
		return nil, err
	}
	if found == nil {
		return nil, fmt.Errorf("audit log %s: correlation id %s: %w", l.Path, strconv.Quote(id), ErrNotFound)
	}
	return found, nil
}

// Each calls fn with each record q selects, in log order (see Store).
// Lines that are not records are skipped; Find and Scan report them.
func (l *Log) Each(ctx context.Context, q Query, fn func(Entry) error) error {
	if q.ID == "" && q.Hash == "" {
		return l.Scan(ctx, func(e Entry, perr error) error {
			if perr != nil {
				return nil
			}
			return fn(e)
		})
	}
	kind, value, _, err := q.lookup()
	if err != nil {
		return err
	}
	_, err = l.each(ctx, kind, value, fn)
	return err
}

// Lines calls fn with every non-empty line of the log, without its line
// end (see Store). A log that does not exist has no lines.
func (l *Log) Lines(ctx context.Context, fn func(line []byte) error) error {
	f, err := openLog(l.Path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	return scanLines(ctx, f, 0, 0, l.Path, func(li lineInfo) error {
		line := trimNewline(li.text)
		if len(line) == 0 {
			return nil
		}
		return fn(line)
	})
}

// trimNewline cuts the final '\n' of a line, and nothing else: the bytes
// of the chain.
func trimNewline(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return b[:len(b)-1]
	}
	return b
}

// Seal marshals r as the log line that follows a line hashing to prev
// (LineHash of it, or GenesisHash for a store's first line), signed with
// key when key is not nil, as Append writes it: with a final newline. It
// sets r's PrevHash and Sig to what the line holds. Stores other than the
// Log build their lines with it, so that every store chains alike.
func Seal(r *Record, prev string, key []byte) ([]byte, error) {
	if key != nil {
		if err := CheckKey(key); err != nil {
			return nil, err
		}
	}
	if len(prev) != len(GenesisHash) || prev[:len(ChainPrefix)] != ChainPrefix || !isHex([]byte(prev[len(ChainPrefix):])) {
		return nil, fmt.Errorf("seal audit record: prev_hash %q is not %q and 64 lowercase hex digits", prev, ChainPrefix)
	}
	line, err := sealable(r)
	if err != nil {
		return nil, err
	}
	line = seal(line, prev, key)
	link := parseLink(line[:len(line)-1])
	r.PrevHash, r.Sig = link.prev, ""
	if link.sig != nil {
		r.Sig = SigPrefix + string(link.sig)
	}
	return line, nil
}

// VerifyStoreChain checks the chain of every line of s, as VerifyChain
// does for a Log, with signatures checked when key is not nil. name names
// the store in errors.
func VerifyStoreChain(ctx context.Context, s Store, name string, key []byte) (*ChainReport, error) {
	if l, ok := s.(*Log); ok && key == nil {
		return l.VerifyChain(ctx)
	}
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 64<<10)
		err := s.Lines(ctx, func(line []byte) error {
			if _, err := bw.Write(line); err != nil {
				return err
			}
			return bw.WriteByte('\n')
		})
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
	}()
	rep, err := verifyChain(ctx, pr, name, key)
	// Drain what verifyChain left unread, so the writer ends.
	_, _ = io.Copy(io.Discard, pr)
	pr.Close()
	return rep, err
}

// ReplayStore is ReplayEach for any Store: it hands fn the verdict of
// each record q selects, in store order, then checks the store's chain,
// with signatures when key is not nil. name names the store in messages.
// For a *Log it is ReplayEach of the log (with key, when the log has none
// of its own), lines that are not records included.
func ReplayStore(ctx context.Context, s Store, name string, key []byte, q Query, rebuild RebuildFunc, fn func(Verdict) error) (*Report, error) {
	if l, ok := s.(*Log); ok {
		if l.Key == nil && key != nil {
			k := *l
			k.Key = key
			l = &k
		}
		return ReplayEach(ctx, l, q, rebuild, fn)
	}
	_, _, what, err := q.lookup()
	if err != nil {
		return nil, err
	}
	n := 0
	err = s.Each(ctx, q, func(e Entry) error {
		n++
		return fn(Verify(ctx, e, rebuild))
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("no record with %s in %s", what, name)
	}
	chain, err := VerifyStoreChain(ctx, s, name, key)
	if err != nil {
		return nil, err
	}
	return &Report{Chain: chain}, nil
}

// VerifyLines checks the chain of the JSON Lines log read from r, named
// name in errors, as Log.VerifyChain checks a log file, with signatures
// when key is not nil.
func VerifyLines(ctx context.Context, r io.Reader, name string, key []byte) (*ChainReport, error) {
	return verifyChain(ctx, r, name, key)
}
