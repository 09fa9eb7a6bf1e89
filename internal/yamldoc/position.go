package yamldoc

import (
	"strings"

	"go.yaml.in/yaml/v4"
)

// ValuePos returns the line and column (in bytes) in the file text of
// the byte off of scalar v's value. They are exact for literal blocks
// ("|") and for one-line values written without escapes; elsewhere (a
// folded block, a quoted value with escapes, a plain value over several
// lines) they are where the value starts.
func ValuePos(text string, v *yaml.Node, off int) (line, col int) {
	val := v.Value
	lineStart := strings.LastIndexByte(val[:off], '\n') + 1
	nl := strings.Count(val[:off], "\n")
	switch {
	case v.Style&yaml.LiteralStyle != 0:
		line = v.Line + 1 + nl
		valueLine := val[lineStart:]
		if i := strings.IndexByte(valueLine, '\n'); i >= 0 {
			valueLine = valueLine[:i]
		}
		if raw, ok := fileLine(text, line); ok && len(raw) >= len(valueLine) && strings.HasSuffix(raw, valueLine) {
			col = len(raw) - len(valueLine) + (off - lineStart) + 1
		}
	case !strings.Contains(val, "\n"):
		// A one-line value: where it is written as is on its line (no
		// escapes in its quotes), the column is known.
		line = v.Line
		if raw, ok := fileLine(text, line); ok && v.Column >= 1 && v.Column-1 <= len(raw) {
			if i := strings.Index(raw[v.Column-1:], val); i >= 0 {
				col = v.Column + i + off
			}
		}
	default:
		line = v.Line
	}
	if col == 0 {
		line, col = v.Line, v.Column
	}
	return line, col
}

// fileLine returns line n (1-based) of text.
func fileLine(text string, n int) (string, bool) {
	for i := 1; i < n; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return "", false
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return strings.TrimSuffix(text, "\r"), true
}
