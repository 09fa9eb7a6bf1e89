package main

import (
	"strings"
	"testing"
)

// A plainCmd is a doc block's command that the test process can run as
// bash would: tessera (or "go run ./cmd/tessera") and its arguments,
// with its standard output dropped when it ends in "> /dev/null".
type plainCmd struct {
	args    []string
	discard bool
}

// plainCommands returns the commands of script, a block's text, when
// every one is a plain tessera command: words of letters, digits and
// _./:=@,+%- (no glob, expansion or operator), single-quoted strings,
// double-quoted strings without $, ` or \, comments, lines continued by
// a final \, and at most a final "> /dev/null". Anything else, or no
// command at all, gives ok false: bash runs the block.
func plainCommands(script string) (cmds []plainCmd, ok bool) {
	type word struct {
		text string
		op   bool // an unquoted >
	}
	var line []word
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			line = append(line, word{text: cur.String()})
			cur.Reset()
			inWord = false
		}
	}
	endLine := func() bool {
		end()
		if len(line) == 0 {
			return true
		}
		var c plainCmd
		if n := len(line); n >= 2 && line[n-2].op && !line[n-1].op && line[n-1].text == "/dev/null" {
			c.discard, line = true, line[:n-2]
		}
		for _, w := range line {
			if w.op {
				return false
			}
			c.args = append(c.args, w.text)
		}
		switch {
		case len(c.args) > 0 && c.args[0] == "tessera":
			c.args = c.args[1:]
		case len(c.args) > 2 && c.args[0] == "go" && c.args[1] == "run" && c.args[2] == "./cmd/tessera":
			c.args = c.args[3:]
		default:
			return false
		}
		cmds = append(cmds, c)
		line = nil
		return true
	}
	for i := 0; i < len(script); i++ {
		switch ch := script[i]; {
		case ch == ' ' || ch == '\t':
			end()
		case ch == '\n':
			if !endLine() {
				return nil, false
			}
		case ch == '\\' && i+1 < len(script) && script[i+1] == '\n':
			i++ // a continued line: bash drops both characters
		case ch == '#' && !inWord:
			for i+1 < len(script) && script[i+1] != '\n' {
				i++
			}
		case ch == '>' && !inWord:
			line = append(line, word{text: ">", op: true})
		case ch == '\'' || ch == '"':
			j := strings.IndexByte(script[i+1:], ch)
			if j < 0 {
				return nil, false
			}
			s := script[i+1 : i+1+j]
			if strings.Contains(s, "\n") || ch == '"' && strings.ContainsAny(s, "$`\\!") {
				return nil, false
			}
			cur.WriteString(s)
			inWord = true
			i += j + 1
		case 'a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z' || '0' <= ch && ch <= '9' || strings.IndexByte("_./:=@,+%-", ch) >= 0:
			cur.WriteByte(ch)
			inWord = true
		default:
			return nil, false
		}
	}
	if !endLine() || len(cmds) == 0 {
		return nil, false
	}
	return cmds, true
}

func TestPlainCommands(t *testing.T) {
	for _, c := range []struct {
		script string
		want   string // the commands' arguments, | between commands; "" for not plain
	}{
		{"tessera version", "version"},
		{"# a comment\ngo run ./cmd/tessera assemble --root examples \\\n    --node 'a b' --x=\"c d\" # why\n\ntessera tokens > /dev/null\n", "assemble --root examples --node a b --x=c d|tokens >"},
		{"tessera a'b'c \"\"", "abc "},
		{"cd examples\ntessera version", ""},
		{"echo hi | tessera tokens", ""},
		{"tessera tokens < f", ""},
		{"tessera tokens > out.txt", ""},
		{"tessera tokens 2> /dev/null", ""},
		{"tessera x \"$HOME\"", ""},
		{"tessera x *.yaml", ""},
		{"tessera x ~/a", ""},
		{"tessera x &", ""},
		{"tessera x; tessera y", ""},
		{"tessera x 'open", ""},
		{"X=1 tessera x", ""},
		{"go build ./cmd/tessera", ""},
		{"# only a comment", ""},
	} {
		cmds, ok := plainCommands(c.script)
		var got []string
		for _, cmd := range cmds {
			s := strings.Join(cmd.args, " ")
			if cmd.discard {
				s += " >"
			}
			got = append(got, s)
		}
		if g := strings.Join(got, "|"); ok != (c.want != "") || g != c.want {
			t.Errorf("plainCommands(%q) = %q, %v; want %q", c.script, g, ok, c.want)
		}
	}
}
