package yamldoc

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// columns turns the YAML parser's columns, counted in characters, into
// columns counted in bytes, as diagnostics give them. It keeps a cursor,
// so that positions asked for in the order of the text (as a walk of the
// tree asks for them) cost one pass over the text in all; a position
// before the cursor starts again from the start of its line when it is
// on the cursor's line, else from the top.
type columns struct {
	text      string
	line      int // the cursor's line, 1-based
	lineStart int // the byte offset of the cursor's line
	col       int // the cursor's column in characters, 1-based
	off       int // the cursor's byte offset
}

func newColumns(text string) *columns {
	return &columns{text: text, line: 1, col: 1}
}

// seek moves the cursor to line, or to the start of the last line when
// the text has fewer lines; it reports whether the line exists.
func (c *columns) seek(line int) bool {
	if line < c.line {
		c.line, c.lineStart, c.col, c.off = 1, 0, 1, 0
	}
	for c.line < line {
		j := strings.IndexByte(c.text[c.off:], '\n')
		if j < 0 {
			return false
		}
		c.off += j + 1
		c.line++
		c.lineStart, c.col = c.off, 1
	}
	return true
}

// byteCol returns the column in bytes of the character column col of
// line (both 1-based). A position past the end of its line or of the text
// is returned as it is.
func (c *columns) byteCol(line, col int) int {
	if line < 1 || col < 1 {
		return col
	}
	if line == c.line && col < c.col {
		c.col, c.off = 1, c.lineStart
	}
	if !c.seek(line) {
		return col
	}
	for c.col < col {
		if c.off >= len(c.text) || c.text[c.off] == '\n' {
			return c.off - c.lineStart + 1 + col - c.col
		}
		_, size := utf8.DecodeRuneInString(c.text[c.off:])
		c.off += size
		c.col++
	}
	return c.off - c.lineStart + 1
}

// lineEnd returns the column in bytes just past the text of line.
func (c *columns) lineEnd(line int) int {
	if !c.seek(line) {
		return 1
	}
	rest := c.text[c.lineStart:]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	return len(rest) + 1
}

// byteColumns sets the Column of n and of every node under it to its
// column in bytes.
func byteColumns(c *columns, n *yaml.Node) {
	n.Column = c.byteCol(n.Line, n.Column)
	for _, k := range n.Content {
		byteColumns(c, k)
	}
}

// isASCII reports whether s holds only ASCII, where characters and bytes
// are the same columns.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
