package output

import (
	"bytes"
	"strings"

	"github.com/tessera-dev/tessera/internal/yamldoc"
)

// maxValues is how many JSON values (keys aside, repairs counted as
// values) the value Spec.Parse reads from a reply of size bytes may hold:
// the bound of every document Tessera reads, yamldoc.MaxNodes, 100,000
// plus one for every 64 bytes.
// It keeps the tree built, and the checks on it, within some 16 times
// the reply plus a constant. Extract builds no tree, so needs no bound.
func maxValues(size int) int { return yamldoc.MaxNodes(size) }

// Extract finds the JSON value a model's reply holds, opening with
// open ('{' for an object, '[' for an array), and returns it with its
// byte offset in reply. It takes, in this order: the first fenced block
// (``` or ~~~, with the info "json" or none) whose content is such a
// value; else the first value, bare in the text, that opens with open and
// is not inside a value that opens so; else the balanced run of brackets
// that reads furthest as JSON before it fails, invalid, so the caller can
// say what is wrong with it. ok is false when the reply holds none of
// these.
//
// Every '{' or '[' of the reply is a candidate, however many there are:
// a candidate that fails marks the brackets it opened as failing too, so
// they are not read again, and the whole scan is bounded by a number of
// steps proportional to the reply's length. Each candidate is only
// checked, building no tree, so Extract allocates about one byte per
// byte of the reply at most, however the reply is made.
func Extract(reply []byte, open byte) (data []byte, offset int, ok bool) {
	if open != '{' && open != '[' {
		return nil, 0, false
	}
	// The first fenced block that opens so, valid or not.
	for _, blk := range fencedBlocks(reply) {
		if reply[blk.start] == open {
			end := blk.start + len(bytes.TrimRight(reply[blk.start:blk.end], " \t\r\n"))
			return reply[blk.start:end], blk.start, true
		}
	}
	sc := newScan(reply, false)
	sc.nested = true
	sc.noFences = true
	sc.checkOnly = true
	if f := sc.find(func(f *found) bool { return reply[f.start] == open }); f != nil {
		return reply[f.start:f.end], f.start, true
	}
	if sc.bad.ok && reply[sc.bad.start] == open {
		if end := balanced(reply, sc.bad.start); end > 0 {
			return reply[sc.bad.start:end], sc.bad.start, true
		}
	}
	return nil, 0, false
}

// found is a value found in a reply.
type found struct {
	v          *value
	start, end int // its bytes in the reply
	fenced     bool
	repairs    []Repair
}

// scan finds values in one reply. Each candidate is first only checked,
// which builds nothing; only a value that reads whole is then read again
// into a tree, and only while the reply's bound of values allows. So a
// failing candidate costs no memory, and the trees built, of values that
// do not overlap unless nested is set, hold at most maxValues.
type scan struct {
	reply     []byte
	tolerant  bool
	nested    bool // look inside values that are not wanted
	noFences  bool // look at bare values only
	checkOnly bool // build no tree: a found value has v nil
	steps     int
	left      int    // the values the trees may still hold
	tooMany   bool   // a value held more than the reply's bound
	failed    []bool // offsets of brackets known to open no value

	other *found // the first value found that was not wanted

	bad badRead // the candidate that read furthest

	arena   []value     // shared by the reads, so a failed one costs no block
	opened  []int       // shared by the checks
	scratch value       // every value of a check
	slot    syntaxError // the failure of a check
}

// badRead is where a candidate that does not read starts and ends, and
// where it fails; error reads it again for the message.
type badRead struct {
	ok              bool
	start, end, off int
	tolerant        bool
	costly          bool // the scan's work ran out in it
}

// error returns the failure of the candidate b notes, with its message.
func (s *scan) error() *syntaxError {
	b := s.bad
	if !b.ok {
		return nil
	}
	if b.costly {
		return &syntaxError{off: b.off, msg: "the reply is too costly to scan"}
	}
	// Checked again, with messages but with no tree.
	var scratch value
	r := reader{src: s.reply[:b.end], i: b.start, tolerant: b.tolerant, check: true, scratch: &scratch}
	if r.read(0) == nil && r.err != nil {
		return r.err
	}
	return &syntaxError{off: b.off, msg: "the value cannot be read"}
}

func newScan(reply []byte, tolerant bool) *scan {
	return &scan{reply: reply, tolerant: tolerant, steps: 16*len(reply) + 4096, left: maxValues(len(reply))}
}

// find returns the first fenced value want accepts, else the first bare
// one not inside another value; nil when there is none.
func (s *scan) find(want func(*found) bool) *found {
	var blocks []block
	if !s.noFences {
		blocks = fencedBlocks(s.reply)
	}
	for _, blk := range blocks {
		f := s.read(blk.start, blk.end, false)
		if f == nil {
			if s.tooMany {
				return nil
			}
			continue
		}
		// The block holds the value and nothing else.
		r := reader{src: s.reply[:blk.end], i: f.end, tolerant: s.tolerant}
		r.ws()
		if r.i < blk.end {
			continue
		}
		f.fenced = true
		if want(f) {
			return f
		}
		if s.other == nil {
			s.other = f
		}
	}
	for pos := 0; pos < len(s.reply) && s.steps > 0 && !s.tooMany; {
		i := bytes.IndexAny(s.reply[pos:], "{[")
		if i < 0 {
			break
		}
		start := pos + i
		if s.failed != nil && s.failed[start] {
			pos = start + 1
			continue
		}
		f := s.read(start, len(s.reply), true)
		if f == nil {
			pos = start + 1
			continue
		}
		if want(f) {
			return f
		}
		if s.other == nil {
			s.other = f
		}
		pos = f.end
		if s.nested {
			pos = start + 1
		}
	}
	return nil
}

// read reads the value at start, the reply cut at end; on failure it
// notes the failure when it reads furthest so far, and, when mark is
// set, marks the brackets that were open as failing.
func (s *scan) read(start, end int, mark bool) *found {
	r := reader{src: s.reply[:end], i: start, tolerant: s.tolerant, steps: &s.steps,
		check: true, scratch: &s.scratch, slot: &s.slot, opened: s.opened[:0]}
	v := r.read(0)
	s.opened = r.opened[:0]
	if v == nil {
		if !s.bad.ok || r.err.off-start > s.bad.off-s.bad.start {
			s.bad = badRead{ok: true, start: start, end: end, off: r.err.off, tolerant: s.tolerant, costly: s.steps < 0}
		}
		if mark && s.steps > 0 {
			if s.failed == nil {
				s.failed = make([]bool, len(s.reply))
			}
			for _, o := range r.opened {
				s.failed[o] = true
			}
		}
		return nil
	}
	f := &found{start: start, end: r.i}
	if s.checkOnly {
		return f
	}
	// The value reads: read it again, building its tree.
	t := reader{src: s.reply[:end], i: start, tolerant: s.tolerant, arena: s.arena, left: &s.left}
	if f.v = t.read(0); f.v == nil {
		s.arena = t.arena[:0]
		s.tooMany = s.tooMany || t.tooMany
		return nil
	}
	s.arena = nil // the values are the caller's now
	f.repairs = t.repairs
	return f
}

// block is the content of a fenced block.
type block struct{ start, end int }

// fencedBlocks returns the contents of the fenced blocks (``` or ~~~,
// with the info "json" or none) whose content, trimmed, starts with '{'
// or '[', in order; start is the content's first non-space byte.
func fencedBlocks(reply []byte) []block {
	var out []block
	for at := 0; at < len(reply); {
		end := bytes.IndexByte(reply[at:], '\n')
		lineEnd := len(reply)
		if end >= 0 {
			lineEnd = at + end
		}
		line := reply[at:lineEnd]
		trimmed := bytes.TrimLeft(line, " \t")
		fence := fenceRun(trimmed)
		if fence == "" || lineEnd == len(reply) {
			at = lineEnd + 1
			continue
		}
		info := strings.ToLower(strings.TrimSpace(string(trimmed[len(fence):])))
		body := lineEnd + 1
		// The block ends at a line of at least as many of the same
		// character, or at the end of the reply.
		close := len(reply)
		for p := body; p < len(reply); {
			e := bytes.IndexByte(reply[p:], '\n')
			le := len(reply)
			if e >= 0 {
				le = p + e
			}
			l := bytes.TrimSpace(reply[p:le])
			if len(l) >= len(fence) && len(bytes.Trim(l, fence[:1])) == 0 {
				close = p
				break
			}
			p = le + 1
		}
		if info == "" || info == "json" || info == "jsonc" || info == "json5" {
			content := reply[body:close]
			lead := len(content) - len(bytes.TrimLeft(content, " \t\r\n"))
			if t := bytes.TrimSpace(content); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
				out = append(out, block{start: body + lead, end: close})
			}
		}
		// Skip the block and its closing line.
		next := bytes.IndexByte(reply[close:], '\n')
		if next < 0 {
			break
		}
		at = close + next + 1
	}
	return out
}

// fenceRun returns the run of three or more backticks or tildes that line
// starts with, or "".
func fenceRun(line []byte) string {
	if len(line) < 3 || (line[0] != '`' && line[0] != '~') {
		return ""
	}
	n := 0
	for n < len(line) && line[n] == line[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return string(line[:n])
}

// balanced returns the end (exclusive) of the bracketed run that starts
// at s[start], or -1 when it is not closed or its brackets do not match.
// It is used only to show an invalid value whole in a message.
func balanced(s []byte, start int) int {
	var stack []byte
	inString := false
	for i := start; i < len(s); i++ {
		c := s[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return -1
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1
			}
		}
	}
	return -1
}
