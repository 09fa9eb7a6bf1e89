package audit

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
)

// The chain.
//
// Every record Append writes carries, as its prev_hash, the hash of the
// line before it in the log, and, when the log has a Key, a signature:
//
//   - a line is the bytes between two '\n' (or the start or end of the
//     file), the '\n' left out; empty lines are skipped, and the line
//     before a record is the last non-empty line before it, whatever it
//     holds (a record, a torn write, a record written before the chain);
//   - prev_hash is "sha256:" and the 64 lowercase hex digits of the
//     SHA-256 of that line's exact bytes, or of no bytes at all (GenesisHash)
//     when the record is the log's first line;
//   - sig is "hmac-sha256:" and the 64 hex digits of the HMAC-SHA256, under
//     the key, of the record's line without its sig member: the line's
//     bytes up to the `,"sig":` that ends it, followed by "}".
//
// prev_hash and sig are the last two members of the line, in that order,
// and Append writes them so; a line that does not end in them is not
// chained.

// ChainPrefix starts a prev_hash value; SigPrefix starts a sig value.
const (
	ChainPrefix = "sha256:"
	SigPrefix   = "hmac-sha256:"
)

// GenesisHash is the prev_hash of a log's first line: the SHA-256 of no
// bytes.
const GenesisHash = ChainPrefix + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// MinKeyBytes is the shortest HMAC key a log accepts.
const MinKeyBytes = 32

// CheckKey reports whether key can sign a log.
func CheckKey(key []byte) error {
	if len(key) < MinKeyBytes {
		return fmt.Errorf("the log key is %d bytes, under the %d a signature needs: use a random value of at least %d bytes, such as the output of `openssl rand -hex 32`", len(key), MinKeyBytes, MinKeyBytes)
	}
	return nil
}

const (
	prevMember = `"prev_hash":"` + ChainPrefix
	sigMember  = `,"sig":"` + SigPrefix
	hexLen     = 2 * sha256.Size
	// chainTail is how a line with a prev_hash and no sig ends, after
	// the prev_hash's hex digits.
	chainTail = `"}`
)

// placeholder is the prev_hash a record is marshalled with before Append
// knows the line it follows.
var placeholder = ChainPrefix + string(bytes.Repeat([]byte{'0'}, hexLen))

// LineHash returns the hash a record after line would carry as its
// prev_hash: "sha256:" and the SHA-256 of line, a final '\n' left out.
func LineHash(line []byte) string {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	sum := sha256.Sum256(line)
	return ChainPrefix + hex.EncodeToString(sum[:])
}

func sumString(h hash.Hash) string {
	var sum [sha256.Size]byte
	return ChainPrefix + hex.EncodeToString(h.Sum(sum[:0]))
}

// sealable marshals r with a placeholder prev_hash, ready for seal.
func sealable(r *Record) ([]byte, error) {
	rc := *r
	rc.PrevHash, rc.Sig = placeholder, ""
	line, err := rc.Marshal()
	if err != nil {
		return nil, err
	}
	if !bytes.HasSuffix(line, []byte(prevMember+placeholder[len(ChainPrefix):]+chainTail+"\n")) {
		return nil, errors.New("encode audit record: prev_hash is not its last member")
	}
	return line, nil
}

// seal writes prev into the placeholder of line, a record from sealable,
// and with a key appends its signature. line is changed in place.
func seal(line []byte, prev string, key []byte) []byte {
	at := len(line) - len(chainTail) - 1 - hexLen
	copy(line[at:], prev[len(ChainPrefix):])
	if key == nil {
		return line
	}
	msg := line[:len(line)-1] // without '\n'
	mac := hmac.New(sha256.New, key)
	mac.Write(msg)
	var sum [sha256.Size]byte
	sig := hex.EncodeToString(mac.Sum(sum[:0]))
	out := make([]byte, 0, len(line)+len(sigMember)+hexLen+2)
	out = append(out, msg[:len(msg)-1]...) // without '}'
	out = append(out, sigMember...)
	out = append(out, sig...)
	out = append(out, "\"}\n"...)
	return out
}

// lastLineHash returns the prev_hash of a line appended to f, which is
// size bytes long: the hash of its last non-empty line, or GenesisHash.
func lastLineHash(f io.ReaderAt, size int64) (string, error) {
	const chunk = 8 << 10
	buf := make([]byte, chunk)
	end := size
	// Skip the final '\n's: empty lines are not lines of the chain.
	for end > 0 {
		n := min(int64(chunk), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return "", err
		}
		i := int64(len(bytes.TrimRight(buf[:n], "\n")))
		end -= n - i
		if i > 0 {
			break
		}
	}
	if end == 0 {
		return GenesisHash, nil
	}
	start := end
	for start > 0 {
		n := min(int64(chunk), start)
		if _, err := f.ReadAt(buf[:n], start-n); err != nil {
			return "", err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			start = start - n + int64(i) + 1
			break
		}
		start -= n
	}
	h := sha256.New()
	for off := start; off < end; {
		n := min(int64(chunk), end-off)
		if _, err := f.ReadAt(buf[:n], off); err != nil {
			return "", err
		}
		h.Write(buf[:n])
		off += n
	}
	return sumString(h), nil
}

// linkOf is what a line says of the chain.
type linkOf struct {
	chained bool
	prev    string // the prev_hash, when chained
	sig     []byte // the sig's hex digits, when signed
	msg     int    // the length of the signed bytes before the final "}"
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// parseLink reads the prev_hash and sig a line (without its '\n') ends
// in.
func parseLink(line []byte) linkOf {
	var l linkOf
	if !bytes.HasSuffix(line, []byte(chainTail)) {
		return l
	}
	valEnd := len(line) - len(chainTail) // just after the prev_hash's digits
	var sig []byte
	if s := len(line) - len(sigMember) - hexLen - len(chainTail); s > 0 && bytes.HasPrefix(line[s:], []byte(sigMember)) && line[s-1] == '"' {
		sig = line[s+len(sigMember) : len(line)-len(chainTail)]
		if !isHex(sig) {
			return l
		}
		l.msg = s
		valEnd = s - 1
	}
	at := valEnd - hexLen - len(prevMember)
	if at < 1 || !bytes.HasPrefix(line[at:], []byte(prevMember)) || line[at-1] != ',' && line[at-1] != '{' {
		return l
	}
	d := line[valEnd-hexLen : valEnd]
	if !isHex(d) {
		return l
	}
	l.chained, l.prev, l.sig = true, ChainPrefix+string(d), sig
	return l
}

// ChainBreak is the first line at which a log's chain or a signature
// does not hold.
type ChainBreak struct {
	// Line is the line that breaks the chain, 1-based.
	Line int
	// Err says how, and what it means.
	Err error
}

// ChainReport is what VerifyChain found.
type ChainReport struct {
	// Lines is the number of non-empty lines checked: up to the break,
	// when there is one.
	Lines int
	// Unchained is the number of lines before the chain begins: records
	// written before records were chained, which nothing proves
	// unchanged. All of Lines when the log has no chained record.
	Unchained int
	// First is the line the chain begins at, or 0 when it has none.
	First int
	// Signed is the number of signed records; Checked says whether their
	// signatures were checked (the log had a Key).
	Signed  int
	Checked bool
	// NotRecords are the lines after the chain began that are not
	// records (a torn write): the chain runs through their bytes.
	NotRecords []int
	// Head is the hash of the last line checked, the prev_hash the next
	// record will carry; keep it elsewhere to detect later that records
	// were cut from the end. HeadLine is that line.
	Head     string
	HeadLine int
	// Break is the first line that breaks the chain or its signature, or
	// nil when none does.
	Break *ChainBreak
}

// OK reports whether no line breaks the chain.
func (r *ChainReport) OK() bool { return r.Break == nil }

// VerifyChain reads the whole log and checks its chain: that every
// chained record's prev_hash is the hash of the line before it, that no
// record without one comes after the chain began, and, when l has a Key,
// that every chained record is signed with it. It stops at the first line
// that breaks the chain and reports it. A log written before records were
// chained verifies with every line counted as Unchained.
func (l *Log) VerifyChain(ctx context.Context) (*ChainReport, error) {
	f, err := openLog(l.Path, os.O_RDONLY)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	return verifyChain(ctx, f, l.Path, l.Key)
}

// verifyChain is VerifyChain of the log read from r, named name.
func verifyChain(ctx context.Context, r io.Reader, name string, key []byte) (*ChainReport, error) {
	rep := &ChainReport{Checked: key != nil, Head: GenesisHash}
	h := sha256.New()
	var mac hash.Hash
	if key != nil {
		mac = hmac.New(sha256.New, key)
	}
	stop := errors.New("stop")
	prevLine := 0
	err := scanLines(ctx, r, 0, 0, name, func(li lineInfo) error {
		line := bytes.TrimSuffix(li.text, []byte{'\n'})
		if len(line) == 0 {
			return nil
		}
		no := int(li.no)
		brk := func(format string, args ...any) error {
			rep.Break = &ChainBreak{Line: no, Err: fmt.Errorf(format, args...)}
			return stop
		}
		link := parseLink(line)
		switch {
		case !link.chained && rep.First == 0:
			rep.Unchained++
		case !link.chained:
			if _, perr := ParseRecord(line); perr == nil {
				return brk("a record without prev_hash after the chain began at line %d: it was inserted, or written by a tessera older than the chain", rep.First)
			}
			rep.NotRecords = append(rep.NotRecords, no)
		default:
			if rep.First == 0 {
				rep.First = no
			}
			if link.prev != rep.Head {
				if prevLine == 0 {
					return brk("prev_hash is %s, but no line comes before it (a first line carries %s): the lines before it were removed", link.prev, GenesisHash)
				}
				if link.prev == GenesisHash {
					return brk("prev_hash says it is the log's first line, but line %d comes before it: lines were inserted before it, or logs were joined", prevLine)
				}
				return brk("prev_hash is %s, but the line before it (line %d) hashes to %s: a line up to line %d was changed, removed or inserted", link.prev, prevLine, rep.Head, prevLine)
			}
			if link.sig != nil {
				rep.Signed++
			}
			if mac != nil {
				if link.sig == nil {
					return brk("not signed, though the log has a key: it was written without the key, or its signature was taken out")
				}
				mac.Reset()
				mac.Write(line[:link.msg])
				mac.Write([]byte{'}'})
				var sum [sha256.Size]byte
				want := hex.AppendEncode(nil, mac.Sum(sum[:0]))
				if !hmac.Equal(want, link.sig) {
					return brk("the signature does not match: the line was changed after it was signed, or signed with another key")
				}
			}
		}
		rep.Lines++
		h.Reset()
		h.Write(line)
		rep.Head, rep.HeadLine, prevLine = sumString(h), no, no
		return nil
	})
	if err != nil && err != stop {
		return nil, err
	}
	return rep, nil
}

// String is the report in one line for people, without the log's name.
func (r *ChainReport) String() string {
	switch {
	case r.Break != nil:
		return fmt.Sprintf("line %d breaks the chain: %v", r.Break.Line, r.Break.Err)
	case r.First == 0 && r.Lines == 0:
		return "empty"
	case r.First == 0:
		return fmt.Sprintf("not chained: its %d lines were written before records were chained, and nothing shows whether they were changed", r.Lines)
	}
	s := fmt.Sprintf("chain intact: %d lines", r.Lines)
	if r.Unchained > 0 {
		s += fmt.Sprintf(", chained from line %d (the %d lines before were written before records were chained, and nothing shows whether they were changed)", r.First, r.Unchained)
	}
	switch {
	case r.Checked:
		s += fmt.Sprintf(", %d signatures checked", r.Signed)
	case r.Signed > 0:
		s += fmt.Sprintf(", %d signatures not checked (no key)", r.Signed)
	}
	if len(r.NotRecords) > 0 {
		s += fmt.Sprintf(", %d lines not records (torn writes), the first at line %d", len(r.NotRecords), r.NotRecords[0])
	}
	return s + fmt.Sprintf("; head %s (line %d)", r.Head, r.HeadLine)
}
