package output

import (
	"bytes"
	"encoding/json"
	"strings"
)

// maxCandidates bounds how many bare '{' or '[' Extract tries as the
// start of a value, so that a long reply full of braces costs linear
// time.
const maxCandidates = 32

// Extract finds the JSON value a model's reply holds, opening with
// open ('{' for an object, '[' for an array), and returns it with its
// byte offset in reply. It takes, in this order: the first fenced block
// (``` or ~~~, with the info "json" or none) whose content starts with
// open; else the first balanced run from open to its matching close (JSON
// strings respected) that is valid JSON; else the first balanced run,
// invalid, so the caller can say what is wrong with it. ok is false when
// the reply holds none of these.
func Extract(reply []byte, open byte) (data []byte, offset int, ok bool) {
	if open != '{' && open != '[' {
		return nil, 0, false
	}
	if d, off, ok := fenced(reply, open); ok {
		return d, off, true
	}
	first, firstOff := []byte(nil), -1
	from := 0
	for tries := 0; tries < maxCandidates; tries++ {
		i := bytes.IndexByte(reply[from:], open)
		if i < 0 {
			break
		}
		start := from + i
		end := balanced(reply, start)
		if end < 0 {
			from = start + 1
			continue
		}
		cand := reply[start:end]
		if json.Valid(cand) {
			return cand, start, true
		}
		if first == nil {
			first, firstOff = cand, start
		}
		from = start + 1
	}
	if first != nil {
		return first, firstOff, true
	}
	return nil, 0, false
}

// fenced returns the content of the first fenced block whose info is
// empty or "json" and whose content, trimmed, starts with open.
func fenced(reply []byte, open byte) ([]byte, int, bool) {
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
		if info == "" || info == "json" {
			content := reply[body:close]
			lead := len(content) - len(bytes.TrimLeft(content, " \t\r\n"))
			content = bytes.TrimSpace(content)
			if len(content) > 0 && content[0] == open {
				return content, body + lead, true
			}
		}
		// Skip the block and its closing line.
		next := bytes.IndexByte(reply[close:], '\n')
		if next < 0 {
			break
		}
		at = close + next + 1
	}
	return nil, 0, false
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
