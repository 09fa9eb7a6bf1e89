package audit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/prompt"
)

// memStore is a Store held in memory, as a database keeps one: lines
// sealed with Seal, looked up by parsing them.
type memStore struct {
	key   []byte
	lines [][]byte
}

func (m *memStore) Add(ctx context.Context, recs ...*Record) error {
	for _, r := range recs {
		prev := GenesisHash
		if n := len(m.lines); n > 0 {
			prev = LineHash(m.lines[n-1])
		}
		line, err := Seal(r, prev, m.key)
		if err != nil {
			return err
		}
		m.lines = append(m.lines, bytes.TrimSuffix(line, []byte{'\n'}))
	}
	return nil
}

func (m *memStore) Record(ctx context.Context, id string) (*Record, error) {
	var found *Record
	err := m.Each(ctx, Query{ID: id}, func(e Entry) error {
		if found == nil {
			found = e.Record
		}
		return nil
	})
	if err == nil && found == nil {
		err = ErrNotFound
	}
	return found, err
}

func (m *memStore) Each(ctx context.Context, q Query, fn func(Entry) error) error {
	for i, l := range m.lines {
		r, err := ParseRecord(l)
		if err != nil {
			return err
		}
		if q.ID != "" && r.CorrelationID != q.ID || q.Hash != "" && r.AssembledPromptHash != q.Hash {
			continue
		}
		if err := fn(Entry{Line: i + 1, Record: r}); err != nil {
			return err
		}
	}
	return nil
}

func (m *memStore) Lines(ctx context.Context, fn func([]byte) error) error {
	for _, l := range m.lines {
		if err := fn(l); err != nil {
			return err
		}
	}
	return nil
}

var (
	_ Store = (*Log)(nil)
	_ Store = (*memStore)(nil)
)

// A store built with Seal holds the very lines a Log holds for the same
// records, and both verify.
func TestSealMatchesAppend(t *testing.T) {
	ctx := context.Background()
	key := bytes.Repeat([]byte("k"), MinKeyBytes)
	for _, k := range [][]byte{nil, key} {
		l := &Log{Path: filepath.Join(t.TempDir(), "a.jsonl"), Key: k}
		m := &memStore{key: k}
		for i, id := range []string{"a", "b", "a"} {
			r1, r2 := record(id, strings.Repeat("x", i+1)), record(id, strings.Repeat("x", i+1))
			if err := l.Add(ctx, r1); err != nil {
				t.Fatal(err)
			}
			if err := m.Add(ctx, r2); err != nil {
				t.Fatal(err)
			}
			if r1.PrevHash != r2.PrevHash || r1.Sig != r2.Sig || r1.PrevHash == "" {
				t.Fatalf("record %d: Append set %q %q, Seal %q %q", i, r1.PrevHash, r1.Sig, r2.PrevHash, r2.Sig)
			}
		}
		data, err := os.ReadFile(l.Path)
		if err != nil {
			t.Fatal(err)
		}
		var got [][]byte
		if err := l.Lines(ctx, func(b []byte) error { got = append(got, bytes.Clone(b)); return nil }); err != nil {
			t.Fatal(err)
		}
		if want := bytes.Join(m.lines, []byte{'\n'}); !bytes.Equal(append(want, '\n'), data) || !bytes.Equal(bytes.Join(got, []byte{'\n'}), want) {
			t.Fatalf("the log and the store differ:\n%s\n%s", data, want)
		}
		rep, err := VerifyStoreChain(ctx, m, "mem", k)
		if err != nil || !rep.OK() || rep.Lines != 3 || rep.Checked != (k != nil) {
			t.Fatalf("chain of the store: %v %v", rep, err)
		}
	}
	if _, err := Seal(record("a", "x"), "sha256:zz", nil); err == nil {
		t.Error("a bad prev_hash was sealed")
	}
}

func TestLogStoreMethods(t *testing.T) {
	ctx := context.Background()
	l := &Log{Path: filepath.Join(t.TempDir(), "a.jsonl")}
	if err := l.Lines(ctx, func([]byte) error { t.Error("a missing log has lines"); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := l.Add(ctx, record("a", "one"), record("b", "two"), record("a", "three")); err != nil {
		t.Fatal(err)
	}
	r, err := l.Record(ctx, "a")
	if err != nil || r.AssembledPrompt != "one" {
		t.Fatalf("Record: %v %v", r, err)
	}
	if _, err := l.Record(ctx, "zz"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "a.jsonl") {
		t.Fatalf("missing record: %v", err)
	}
	count := func(q Query) (n int, lines []int) {
		if err := l.Each(ctx, q, func(e Entry) error { n++; lines = append(lines, e.Line); return nil }); err != nil {
			t.Fatal(err)
		}
		return n, lines
	}
	if n, lines := count(Query{}); n != 3 || lines[2] != 3 {
		t.Errorf("every record: %d %v", n, lines)
	}
	if n, lines := count(Query{ID: "a"}); n != 2 || lines[1] != 3 {
		t.Errorf("by id: %d %v", n, lines)
	}
	if n, _ := count(Query{Hash: prompt.Hash("two")}); n != 1 {
		t.Errorf("by hash: %d", n)
	}
}

// Replay through a store that is not a Log gives the verdicts ReplayEach
// gives for the same records in a Log, and catches a changed line.
func TestReplayStore(t *testing.T) {
	ctx := context.Background()
	rebuild := func(ctx context.Context, r *Record) (*prompt.Prompt, error) {
		return &prompt.Prompt{Text: "one", Hash: prompt.Hash("one")}, nil
	}
	m := &memStore{}
	if err := m.Add(ctx, record("a", "one"), record("b", "two"), record("a", "one")); err != nil {
		t.Fatal(err)
	}
	var got []Verdict
	rep, err := ReplayStore(ctx, m, "mem", nil, Query{ID: "a"}, rebuild, func(v Verdict) error { got = append(got, v); return nil })
	if err != nil || len(got) != 2 || !got[0].OK() || got[1].Line != 3 || !rep.Chain.OK() {
		t.Fatalf("replay: %+v %+v %v", got, rep, err)
	}
	if _, err := ReplayStore(ctx, m, "mem", nil, Query{ID: "zz"}, rebuild, func(Verdict) error { return nil }); err == nil || !strings.Contains(err.Error(), `"zz" in mem`) {
		t.Fatalf("missing id: %v", err)
	}
	m.lines[1] = bytes.Replace(m.lines[1], []byte(`"two"`), []byte(`"tw0"`), 1)
	rep, err = ReplayStore(ctx, m, "mem", nil, Query{ID: "a"}, rebuild, func(Verdict) error { return nil })
	if err != nil || rep.Chain.OK() || rep.Chain.Break.Line != 3 {
		t.Fatalf("a changed line is not caught: %+v %v", rep.Chain, err)
	}
	l := &Log{Path: filepath.Join(t.TempDir(), "a.jsonl")}
	if err := l.Add(ctx, record("a", "one")); err != nil {
		t.Fatal(err)
	}
	rep, err = ReplayStore(ctx, l, l.Path, nil, Query{ID: "a"}, rebuild, func(v Verdict) error { got = append(got, v); return nil })
	if err != nil || !rep.Chain.OK() || rep.Chain.Lines != 1 {
		t.Fatalf("replay of a log: %+v %v", rep, err)
	}
}
