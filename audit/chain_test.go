package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/prompt"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// chainedLog appends records a, b, c, d to a new log.
func chainedLog(t *testing.T, key []byte) *Log {
	t.Helper()
	l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl"), Key: key}
	for _, id := range []string{"a", "b", "c", "d"} {
		if err := l.Append(context.Background(), record(id, "text of "+id+"\n")); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func logLines(t *testing.T, l *Log) [][]byte {
	t.Helper()
	data, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

func writeLines(t *testing.T, l *Log, lines [][]byte) {
	t.Helper()
	var b []byte
	for _, ln := range lines {
		b = append(b, bytes.TrimSuffix(ln, []byte("\n"))...)
		b = append(b, '\n')
	}
	if err := os.WriteFile(l.Path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(l.indexPath())
}

func verify(t *testing.T, l *Log) *ChainReport {
	t.Helper()
	rep, err := l.VerifyChain(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func wantBreak(t *testing.T, rep *ChainReport, line int, msg string) {
	t.Helper()
	if rep.Break == nil || rep.Break.Line != line || !strings.Contains(rep.Break.Err.Error(), msg) {
		t.Errorf("break = %+v, want line %d with %q (%s)", rep.Break, line, msg, rep)
	}
}

// The chain is defined by the bytes: the first record carries the hash
// of no bytes, each later one the SHA-256 of the line before it, '\n'
// left out.
func TestChainDefinition(t *testing.T) {
	l := chainedLog(t, nil)
	lines := logLines(t, l)
	prev := GenesisHash
	for i, ln := range lines {
		r, err := ParseRecord(ln)
		if err != nil {
			t.Fatal(err)
		}
		if r.PrevHash != prev || r.Sig != "" {
			t.Errorf("line %d: prev_hash %q, want %q; sig %q", i+1, r.PrevHash, prev, r.Sig)
		}
		sum := sha256.Sum256(bytes.TrimSuffix(ln, []byte("\n")))
		prev = "sha256:" + hex.EncodeToString(sum[:])
		if !bytes.HasSuffix(bytes.TrimSuffix(ln, []byte("\n")), []byte(`,"prev_hash":"`+r.PrevHash+`"}`)) {
			t.Errorf("line %d: prev_hash is not the last member: %s", i+1, ln)
		}
	}
	rep := verify(t, l)
	if !rep.OK() || rep.Lines != 4 || rep.First != 1 || rep.Unchained != 0 || rep.Head != prev || rep.HeadLine != 4 {
		t.Errorf("report %+v", rep)
	}
	if GenesisHash != LineHash(nil) {
		t.Error("GenesisHash is not the hash of no bytes")
	}
}

// Today's gap: a record whose inputs, text and hash are changed together
// replays as a match. The chain catches it at the record after it, and
// replay fails.
func TestChainCatchesConsistentEdit(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(r *Record)
	}{
		{"text and hash", func(r *Record) {
			r.AssembledPrompt = "forged text\n"
			r.AssembledPromptHash = prompt.Hash(r.AssembledPrompt)
		}},
		{"source hash", func(r *Record) { r.Sources[0].Hash = prompt.Hash("forged") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := chainedLog(t, nil)
			lines := logLines(t, l)
			r, err := ParseRecord(lines[1])
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(r)
			forged, err := r.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			lines[1] = forged
			writeLines(t, l, lines)
			wantBreak(t, verify(t, l), 3, "the line before it (line 2) hashes to")
			rebuild := func(_ context.Context, r *Record) (*prompt.Prompt, error) {
				return &prompt.Prompt{Text: r.AssembledPrompt, Hash: r.AssembledPromptHash}, nil
			}
			rep, err := Replay(context.Background(), l, "b", rebuild)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdicts[0].Status != Match || rep.OK() || rep.Chain.Break == nil || rep.Chain.Break.Line != 3 {
				t.Errorf("replay of the forged record: OK %v, %+v, chain %s", rep.OK(), rep.Verdicts[0], rep.Chain)
			}
		})
	}
}

func TestChainBreaks(t *testing.T) {
	t.Run("line removed", func(t *testing.T) {
		l := chainedLog(t, nil)
		lines := logLines(t, l)
		writeLines(t, l, append(lines[:1:1], lines[2:]...))
		wantBreak(t, verify(t, l), 2, "a line up to line 1 was changed, removed or inserted")
	})
	t.Run("first lines removed", func(t *testing.T) {
		l := chainedLog(t, nil)
		writeLines(t, l, logLines(t, l)[2:])
		wantBreak(t, verify(t, l), 1, "no line comes before it")
	})
	t.Run("record inserted", func(t *testing.T) {
		l := chainedLog(t, nil)
		lines := logLines(t, l)
		extra, _ := record("x", "inserted\n").Marshal()
		writeLines(t, l, append(lines[:2:2], append([][]byte{extra}, lines[2:]...)...))
		wantBreak(t, verify(t, l), 3, "a record without prev_hash after the chain began at line 1")
	})
	t.Run("logs joined", func(t *testing.T) {
		l := chainedLog(t, nil)
		lines := logLines(t, l)
		writeLines(t, l, append(lines, lines[0]))
		wantBreak(t, verify(t, l), 5, "says it is the log's first line, but line 4 comes before it")
	})
	t.Run("torn line goes through", func(t *testing.T) {
		l := chainedLog(t, nil)
		f, err := os.OpenFile(l.Path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"task_ref":"torn`)
		f.Close()
		if err := l.Append(context.Background(), record("e", "e\n")); err != nil {
			t.Fatal(err)
		}
		rep := verify(t, l)
		if !rep.OK() || rep.Lines != 6 || len(rep.NotRecords) != 1 || rep.NotRecords[0] != 5 {
			t.Errorf("report %s", rep)
		}
	})
}

// A signed log: a forger without the key can rewrite every prev_hash
// after a change, which a log without a key cannot tell, but not the
// signatures.
func TestChainSigned(t *testing.T) {
	l := chainedLog(t, testKey)
	if rep := verify(t, l); !rep.OK() || rep.Signed != 4 || !rep.Checked {
		t.Fatalf("report %s", rep)
	}
	lines := logLines(t, l)
	for _, ln := range lines {
		r, _ := ParseRecord(ln)
		if !strings.HasPrefix(r.Sig, SigPrefix) || len(r.Sig) != len(SigPrefix)+64 {
			t.Fatalf("sig %q", r.Sig)
		}
	}
	// Rewrite the chain from line 2 on, without the key, keeping the
	// signatures as they were.
	prev := LineHash(lines[0])
	for i := 1; i < len(lines); i++ {
		r, _ := ParseRecord(lines[i])
		if i == 1 {
			r.AssembledPrompt = "forged\n"
			r.AssembledPromptHash = prompt.Hash(r.AssembledPrompt)
		}
		r.PrevHash = prev
		ln, _ := r.Marshal()
		lines[i] = ln
		prev = LineHash(ln)
	}
	writeLines(t, l, lines)
	unkeyed := &Log{Path: l.Path}
	if rep := verify(t, unkeyed); !rep.OK() || rep.Checked || rep.Signed != 4 {
		t.Errorf("without the key: %s", rep)
	}
	wantBreak(t, verify(t, l), 2, "the signature does not match")
	// Signatures taken out, chain rewritten: not signed.
	prev = GenesisHash
	for i := range lines {
		r, _ := ParseRecord(lines[i])
		r.PrevHash, r.Sig = prev, ""
		ln, _ := r.Marshal()
		lines[i] = ln
		prev = LineHash(ln)
	}
	writeLines(t, l, lines)
	wantBreak(t, verify(t, l), 1, "not signed, though the log has a key")
	// Another key.
	l2 := chainedLog(t, testKey)
	l2.Key = bytes.Repeat([]byte("k"), 32)
	wantBreak(t, verify(t, l2), 1, "signed with another key")
	// A short key is refused before anything is written.
	short := &Log{Path: filepath.Join(t.TempDir(), "x.jsonl"), Key: []byte("short")}
	if err := short.Append(context.Background(), record("a", "a")); err == nil || !strings.Contains(err.Error(), "under the 32 a signature needs") {
		t.Errorf("short key: %v", err)
	}
}

// A log written before the chain replays, and is reported as unchained;
// records appended to it are chained from there on.
func TestChainOldLog(t *testing.T) {
	l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	var old [][]byte
	for _, id := range []string{"a", "b"} {
		ln, _ := record(id, id).Marshal()
		old = append(old, ln)
	}
	writeLines(t, l, old)
	rep := verify(t, l)
	if !rep.OK() || rep.First != 0 || rep.Unchained != 2 || !strings.Contains(rep.String(), "not chained") {
		t.Errorf("old log: %s", rep)
	}
	rebuild := func(_ context.Context, r *Record) (*prompt.Prompt, error) {
		return &prompt.Prompt{Text: r.AssembledPrompt, Hash: r.AssembledPromptHash}, nil
	}
	rr, err := Replay(context.Background(), l, "a", rebuild)
	if err != nil || !rr.OK() || rr.Chain.First != 0 {
		t.Fatalf("replay of an old record: %+v %v", rr, err)
	}
	if err := l.Append(context.Background(), record("c", "c")); err != nil {
		t.Fatal(err)
	}
	rep = verify(t, l)
	if !rep.OK() || rep.First != 3 || rep.Unchained != 2 || !strings.Contains(rep.String(), "chained from line 3") {
		t.Errorf("old log with a chained record: %s", rep)
	}
}

// A FIFO or a hard-linked file as the log is refused at once: no append
// goes into a pipe, no lookup waits on one, and no append changes a file
// that another name shares.
func TestLogNotRegular(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	l := &Log{Path: fifo}
	var nr *NotRegularError
	if err := l.Append(ctx, record("a", "a")); !errors.As(err, &nr) || !strings.Contains(err.Error(), "is a named pipe (FIFO), not a regular file") {
		t.Errorf("append to a FIFO: %v", err)
	}
	if _, _, err := l.Find(ctx, "a"); !errors.As(err, &nr) {
		t.Errorf("find in a FIFO: %v", err)
	}
	if _, err := l.VerifyChain(ctx); !errors.As(err, &nr) {
		t.Errorf("verify a FIFO: %v", err)
	}
	outside := filepath.Join(dir, "outside.txt")
	if err := os.WriteFile(outside, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "linked.jsonl")
	if err := os.Link(outside, linked); err != nil {
		t.Skip(err)
	}
	var le *LinkedError
	if err := (&Log{Path: linked}).Append(ctx, record("a", "a")); !errors.As(err, &le) || le.Links != 2 {
		t.Errorf("append to a hard link: %v", err)
	}
	if data, _ := os.ReadFile(outside); string(data) != "keep\n" {
		t.Errorf("the linked file was changed: %q", data)
	}
}

// FuzzVerifyChain feeds VerifyChain any log: it never panics, and a line
// Append sealed reads back as chained to what it was sealed with.
func FuzzVerifyChain(f *testing.F) {
	r := record("a", "a\n")
	line, _ := sealable(r)
	signed := seal(bytes.Clone(line), GenesisHash, testKey)
	f.Add(seal(line, GenesisHash, nil), []byte{})
	f.Add(signed, testKey)
	f.Add([]byte(`{"prev_hash":"sha256:`+strings.Repeat("0", 64)+`"}`+"\n"+`x,"sig":"hmac-sha256:`+strings.Repeat("a", 64)+`"}`), testKey)
	f.Add([]byte("\n\n{\"\"}\n"), []byte{})
	f.Fuzz(func(t *testing.T, data, key []byte) {
		if len(key) == 0 {
			key = nil
		}
		rep, err := verifyChain(context.Background(), bytes.NewReader(data), "l.jsonl", key)
		if err != nil {
			t.Fatal(err)
		}
		_ = rep.String()
		link := parseLink(bytes.TrimSuffix(data, []byte("\n")))
		if link.chained && (len(link.prev) != len(GenesisHash) || link.msg > len(data)) {
			t.Fatalf("link %+v", link)
		}
	})
}
