package auditdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/prompt"
)

var _ audit.Store = (*DB)(nil)

// The database holds what a JSON Lines log holds for the same records,
// byte for byte, and answers the same lookups.
func TestStoreLikeLog(t *testing.T) {
	eachDialect(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := open(t, url)
		l := &audit.Log{Path: filepath.Join(t.TempDir(), "a.jsonl")}
		for i, id := range []string{"a", "b", "a", "c"} {
			text := fmt.Sprintf("prompt %d\n\"quoted\" <tag>", i)
			r1, r2 := record(id, text), record(id, text)
			if err := db.Append(ctx, r1); err != nil {
				t.Fatal(err)
			}
			if err := l.Append(ctx, r2); err != nil {
				t.Fatal(err)
			}
			if r1.PrevHash != r2.PrevHash {
				t.Fatalf("record %d: prev_hash %s in the database, %s in the log", i, r1.PrevHash, r2.PrevHash)
			}
		}
		data, err := os.ReadFile(l.Path)
		if err != nil {
			t.Fatal(err)
		}
		if got := lines(t, db); got != string(data) {
			t.Fatalf("database lines differ from the log's:\n%s\n%s", got, data)
		}
		r, err := db.Record(ctx, "a")
		if err != nil || r.AssembledPrompt != "prompt 0\n\"quoted\" <tag>" {
			t.Fatalf("Record: %+v %v", r, err)
		}
		if _, err := db.Record(ctx, "zz"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("missing record: %v", err)
		}
		var got []int
		if err := db.Each(ctx, audit.Query{ID: "a"}, func(e audit.Entry) error { got = append(got, e.Line); return nil }); err != nil || fmt.Sprint(got) != "[1 3]" {
			t.Fatalf("Each by id: %v %v", got, err)
		}
		got = nil
		if err := db.Each(ctx, audit.Query{Hash: prompt.Hash("prompt 1\n\"quoted\" <tag>")}, func(e audit.Entry) error { got = append(got, e.Line); return nil }); err != nil || fmt.Sprint(got) != "[2]" {
			t.Fatalf("Each by hash: %v %v", got, err)
		}
		if n, err := db.Count(ctx); n != 4 || err != nil {
			t.Fatalf("Count: %d %v", n, err)
		}
		rep, err := db.VerifyChain(ctx, nil)
		if err != nil || !rep.OK() || rep.Lines != 4 || rep.First != 1 {
			t.Fatalf("chain: %v %v", rep, err)
		}
		rebuild := func(ctx context.Context, r *audit.Record) (*prompt.Prompt, error) {
			return &prompt.Prompt{Text: r.AssembledPrompt, Hash: prompt.Hash(r.AssembledPrompt)}, nil
		}
		var verdicts []audit.Verdict
		rrep, err := audit.ReplayStore(ctx, db, db.Name(), nil, audit.Query{ID: "a"}, rebuild, func(v audit.Verdict) error { verdicts = append(verdicts, v); return nil })
		if err != nil || len(verdicts) != 2 || !verdicts[1].OK() || verdicts[1].Line != 3 || !rrep.Chain.OK() {
			t.Fatalf("replay: %+v %+v %v", verdicts, rrep, err)
		}
		if err := db.Append(ctx, &audit.Record{}); err == nil || !strings.Contains(err.Error(), "correlation id") {
			t.Fatalf("a record without an id: %v", err)
		}
	})
}

// Callers appending at once are all committed, in one chain, with line
// numbers 1 to n.
func TestConcurrentAppends(t *testing.T) {
	eachDialect(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := open(t, url)
		const writers, each = 8, 50
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					if err := db.Append(ctx, record(fmt.Sprintf("w%d-%d", w, i), "x")); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		checkAll(t, db, writers*each)
	})
}

// checkAll checks that db holds n records with distinct ids, numbered 1
// to n, in one chain.
func checkAll(t *testing.T, db *DB, n int) {
	t.Helper()
	ctx := context.Background()
	seen := map[string]bool{}
	no := 0
	err := db.Each(ctx, audit.Query{}, func(e audit.Entry) error {
		no++
		if e.Line != no || seen[e.Record.CorrelationID] {
			return fmt.Errorf("line %d (want %d), id %s seen before: %v", e.Line, no, e.Record.CorrelationID, seen[e.Record.CorrelationID])
		}
		seen[e.Record.CorrelationID] = true
		return nil
	})
	if err != nil || no != n {
		t.Fatalf("%d records, want %d: %v", no, n, err)
	}
	rep, err := db.VerifyChain(ctx, nil)
	if err != nil || !rep.OK() || rep.Lines != n {
		t.Fatalf("chain: %v %v", rep, err)
	}
}

// A log imported and exported again is the same bytes, and its records
// replay from the database.
func TestImportExport(t *testing.T) {
	eachDialect(t, func(t *testing.T, url string) {
		ctx := context.Background()
		files, _ := filepath.Glob("../engine/testdata/logs/*.jsonl")
		if len(files) == 0 {
			t.Fatal("no logs under engine/testdata/logs")
		}
		for i, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				// One database per dialect: the next log goes to a new one.
				if strings.HasPrefix(url, "sqlite:") {
					url = "sqlite:" + filepath.Join(t.TempDir(), "audit.db")
				} else {
					url = freshPostgres(t)
				}
			}
			db := open(t, url)
			n, err := db.Import(ctx, f, data)
			if err != nil || n != bytes.Count(data, []byte{'\n'}) {
				t.Fatalf("%s: imported %d: %v", f, n, err)
			}
			var out bytes.Buffer
			if _, err := db.Export(ctx, &out); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), data) {
				t.Fatalf("%s: the export differs from the log", f)
			}
			if _, err := db.Import(ctx, f, data); err == nil || !strings.Contains(err.Error(), "does not continue the database's chain") {
				t.Fatalf("%s imported twice: %v", f, err)
			}
			// A record appended after the import continues its chain.
			if err := db.Append(ctx, record("after", "x")); err != nil {
				t.Fatal(err)
			}
			if rep, err := db.VerifyChain(ctx, nil); err != nil || !rep.OK() {
				t.Fatalf("%s: chain after an append: %v %v", f, rep, err)
			}
			db.Close()
		}
	})
}

func TestImportRefusesBadLines(t *testing.T) {
	ctx := context.Background()
	db := open(t, filepath.Join(t.TempDir(), "a.db"))
	l := &audit.Log{Path: filepath.Join(t.TempDir(), "a.jsonl")}
	if err := l.Add(ctx, record("a", "one"), record("b", "two"), record("c", "three")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(l.Path)
	for name, bad := range map[string]struct{ data, want string }{
		"torn":     {string(data) + `{"task_ref":"x`, "log.jsonl:4: not a JSON record"},
		"tampered": {strings.Replace(string(data), `"two"`, `"tw0"`, 1), "log.jsonl:2: assembled_prompt hashes to"},
		"edited":   {strings.Replace(string(data), `"Gen v1.0"`, `"Gen v1.1"`, 1), "log.jsonl:2: the chain breaks"},
		"removed":  {strings.Join(append(strings.SplitN(string(data), "\n", 3)[:1], strings.SplitN(string(data), "\n", 3)[2]), "\n"), "log.jsonl:2: the chain breaks"},
	} {
		if _, err := db.Import(ctx, "log.jsonl", []byte(bad.data)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", name, err, bad.want)
		}
	}
	if n, _ := db.Count(ctx); n != 0 {
		t.Fatalf("%d records imported from bad logs", n)
	}
}

func TestKeys(t *testing.T) {
	eachDialect(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := open(t, url)
		if err := db.PutKey(ctx, "pk-lf-1", "sk-lf-0123456789abcdef", "admin"); err != nil {
			t.Fatal(err)
		}
		k, err := db.Authenticate(ctx, "pk-lf-1", "sk-lf-0123456789abcdef")
		if err != nil || k.Role != "admin" || k.Public != "pk-lf-1" || time.Since(k.Created) > time.Hour {
			t.Fatalf("Authenticate: %+v %v", k, err)
		}
		for _, c := range [][2]string{{"pk-lf-1", "sk-lf-0123456789abcdeX"}, {"pk-lf-2", "sk-lf-0123456789abcdef"}, {"pk-lf-1", ""}} {
			if _, err := db.Authenticate(ctx, c[0], c[1]); !errors.Is(err, ErrUnauthorized) {
				t.Errorf("%v: %v", c, err)
			}
		}
		if err := db.PutKey(ctx, "pk-lf-1", "sk-lf-new-0123456789", "viewer"); err != nil {
			t.Fatal(err)
		}
		if k, err := db.Authenticate(ctx, "pk-lf-1", "sk-lf-new-0123456789"); err != nil || k.Role != "viewer" {
			t.Fatalf("replaced key: %+v %v", k, err)
		}
		var stored string
		if err := db.sql.QueryRowContext(ctx, `SELECT secret_hash FROM api_keys`).Scan(&stored); err != nil || strings.Contains(stored, "sk-lf") {
			t.Fatalf("the secret is stored in clear: %q %v", stored, err)
		}
		for _, bad := range [][3]string{{"", "sk-lf-0123456789abcdef", "admin"}, {"pk", "short", "admin"}, {"pk", "sk-lf-0123456789abcdef", "owner"}} {
			if err := db.PutKey(ctx, bad[0], bad[1], bad[2]); err == nil {
				t.Errorf("%v accepted", bad)
			}
		}
	})
}

func TestLabelMoves(t *testing.T) {
	eachDialect(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := open(t, url)
		at := time.Date(2026, 11, 27, 12, 0, 0, 123456789, time.FixedZone("x", 3600))
		m1, err := db.AddLabelMove(ctx, LabelMove{Prompt: "review/code", Label: "production", FromVersion: 1, ToVersion: 2, FromCommit: "aaa", ToCommit: "bbb", Actor: "pk-1", Reason: "ship", At: at})
		if err != nil || m1.ID == 0 || !m1.At.Equal(at.Truncate(time.Microsecond)) {
			t.Fatalf("AddLabelMove: %+v %v", m1, err)
		}
		m2, err := db.AddLabelMove(ctx, LabelMove{Prompt: "other", Label: "staging", ToVersion: 1})
		if err != nil || m2.ID <= m1.ID || m2.At.IsZero() {
			t.Fatalf("second move: %+v %v", m2, err)
		}
		all, err := db.LabelMoves(ctx, "", 0)
		if err != nil || len(all) != 2 || all[0].ID != m2.ID || all[1] != m1 {
			t.Fatalf("all moves: %+v %v (want %+v first)", all, err, m2)
		}
		one, err := db.LabelMoves(ctx, "review/code", 10)
		if err != nil || len(one) != 1 || one[0] != m1 {
			t.Fatalf("moves of a prompt: %+v %v", one, err)
		}
		if lim, _ := db.LabelMoves(ctx, "", 1); len(lim) != 1 {
			t.Fatalf("limit 1: %d", len(lim))
		}
		if _, err := db.AddLabelMove(ctx, LabelMove{Prompt: "x"}); err == nil {
			t.Fatal("a move without a label was kept")
		}
	})
}

func TestOpenURLs(t *testing.T) {
	dir := t.TempDir()
	for _, u := range []string{filepath.Join(dir, "a", "bare.db"), "sqlite:" + filepath.Join(dir, "s.db"), "file:" + filepath.Join(dir, "f.db")} {
		db := open(t, u)
		if db.Dialect() != "sqlite" || strings.Contains(db.Name(), ":") && !strings.HasPrefix(db.Name(), "/") {
			t.Errorf("%s: %s %s", u, db.Dialect(), db.Name())
		}
		var mode string
		if err := db.sql.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("%s: journal mode %q %v", u, mode, err)
		}
		if err := db.Close(); err != nil {
			t.Error(err)
		}
		if err := db.Append(context.Background(), record("a", "x")); !errors.Is(err, ErrClosed) {
			t.Errorf("append after Close: %v", err)
		}
	}
	for _, bad := range []string{"", "sqlite:", "a.db?mode=ro", "mysql://x/y", "postgres://u:secret@[::1"} {
		_, err := Open(context.Background(), bad)
		if err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// Two handles on one SQLite file, as a server and a tessera log import
// run side by side, append at once: one chain, every record.
func TestTwoHandlesSQLite(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "audit.db")
	dbs := []*DB{open(t, url), open(t, url)}
	var wg sync.WaitGroup
	for i, db := range dbs {
		for w := range 4 {
			wg.Go(func() {
				for n := range 25 {
					if err := db.Append(context.Background(), record(fmt.Sprintf("db%d-w%d-%d", i, w, n), "x")); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	checkAll(t, dbs[0], 200)
	checkAll(t, dbs[1], 200)
}

// A log written before records were chained imports into an empty
// database, and records appended after it chain from its last line.
func TestImportUnchainedLog(t *testing.T) {
	ctx := context.Background()
	db := open(t, filepath.Join(t.TempDir(), "a.db"))
	old, err := record("old-1", "old text").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if n, err := db.Import(ctx, "old.jsonl", nil); n != 0 || err != nil {
		t.Fatalf("an empty log: %d %v", n, err)
	}
	if n, err := db.Import(ctx, "old.jsonl", old); n != 1 || err != nil {
		t.Fatalf("an unchained log: %d %v", n, err)
	}
	if err := db.Append(ctx, record("new-1", "new text")); err != nil {
		t.Fatal(err)
	}
	rep, err := db.VerifyChain(ctx, nil)
	if err != nil || !rep.OK() || rep.Unchained != 1 || rep.First != 2 {
		t.Fatalf("chain: %v %v", rep, err)
	}
	if _, err := db.Import(ctx, "old.jsonl", old); err == nil || !strings.Contains(err.Error(), "not chained") {
		t.Fatalf("an unchained log into a database that is not empty: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := db.Append(cctx, record("c", "x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled append: %v", err)
	}
}

// With a key, appended records are signed as a keyed log signs them.
func TestSetKey(t *testing.T) {
	ctx := context.Background()
	db := open(t, filepath.Join(t.TempDir(), "a.db"))
	key := []byte(strings.Repeat("k", audit.MinKeyBytes))
	if err := db.SetKey([]byte("short")); err == nil {
		t.Fatal("a short key was taken")
	}
	if err := db.SetKey(key); err != nil {
		t.Fatal(err)
	}
	l := &audit.Log{Path: filepath.Join(t.TempDir(), "a.jsonl"), Key: key}
	r1, r2 := record("a", "x"), record("a", "x")
	if err := db.Append(ctx, r1); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(ctx, r2); err != nil {
		t.Fatal(err)
	}
	if r1.Sig == "" || r1.Sig != r2.Sig {
		t.Fatalf("signature %q in the database, %q in the log", r1.Sig, r2.Sig)
	}
	rep, err := db.VerifyChain(ctx, key)
	if err != nil || !rep.OK() || rep.Signed != 1 || !rep.Checked {
		t.Fatalf("signed chain: %v %v", rep, err)
	}
	if rep, _ := db.VerifyChain(ctx, []byte(strings.Repeat("o", audit.MinKeyBytes))); rep.OK() {
		t.Fatal("another key verified the signature")
	}
	if err := db.SetKey(nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Append(ctx, record("b", "y")); err != nil {
		t.Fatal(err)
	}
	if rep, _ := db.VerifyChain(ctx, key); rep.OK() || rep.Break.Line != 2 {
		t.Fatalf("an unsigned record after a signed one, checked with the key: %v", rep)
	}
}
