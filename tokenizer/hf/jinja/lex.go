package jinja

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token kinds.
type kind int

const (
	tText kind = iota
	tNumber
	tString
	tIdent
	tEquals
	tOpenParen
	tCloseParen
	tOpenStmt
	tCloseStmt
	tOpenExpr
	tCloseExpr
	tOpenBracket
	tCloseBracket
	tOpenBrace
	tCloseBrace
	tComma
	tDot
	tColon
	tPipe
	tAdd  // + - ~
	tMul  // * / // %
	tPow  // **
	tCmp  // < > <= >= == !=
	tSign // a unary + or -
	tComment
)

type token struct {
	kind  kind
	value string
	pos   int // offset in the source template
}

// Error is a template error with the line and column of the source
// template where it was found.
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	return fmt.Sprintf("chat template: line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// source is the template after whitespace control, with the offset in the
// original template of each byte.
type source struct {
	orig string
	text string
	at   []int
}

func (s *source) errorAt(i int, format string, args ...any) *Error {
	off := len(s.orig)
	if i < len(s.at) {
		off = s.at[i]
	} else if len(s.at) > 0 {
		off = s.at[len(s.at)-1] + 1
	}
	off = min(off, len(s.orig))
	line := 1 + strings.Count(s.orig[:off], "\n")
	col := off - strings.LastIndexByte(s.orig[:off], '\n')
	return &Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// preprocess applies what the reference does before lexing: the final
// newline goes, blocks are left-stripped (spaces and tabs before "{%",
// "{#" and "{-" at the start of a line) and trimmed (the newline after
// "%}", "#}" and "-}"), as transformers renders chat templates.
func preprocess(t string) *source {
	at := make([]int, len(t))
	for i := range at {
		at[i] = i
	}
	text := t
	if strings.HasSuffix(text, "\n") {
		text, at = text[:len(text)-1], at[:len(at)-1]
	}
	// lstrip_blocks: ^[ \t]*({[#%-]) with ^ at any line start.
	var b strings.Builder
	var at2 []int
	for i := 0; i < len(text); {
		lineStart := i == 0 || isLineEnd(text, i)
		if lineStart {
			j := i
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			if j > i && j+1 < len(text) && text[j] == '{' && strings.IndexByte("#%-", text[j+1]) >= 0 {
				i = j
			}
		}
		b.WriteByte(text[i])
		at2 = append(at2, at[i])
		i++
		// Keep scanning: line starts are found by looking back.
		for i < len(text) && !isLineEnd(text, i) {
			b.WriteByte(text[i])
			at2 = append(at2, at[i])
			i++
		}
	}
	text, at = b.String(), at2
	// trim_blocks: ([#%-]})\n
	b.Reset()
	var at3 []int
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && i >= 2 && text[i-1] == '}' && strings.IndexByte("#%-", text[i-2]) >= 0 {
			continue
		}
		b.WriteByte(text[i])
		at3 = append(at3, at[i])
	}
	return &source{orig: t, text: b.String(), at: at3}
}

// isLineEnd reports whether position i starts a line: it follows a line
// terminator as JavaScript's multiline ^ sees them.
func isLineEnd(s string, i int) bool {
	if i == 0 {
		return false
	}
	switch s[i-1] {
	case '\n', '\r':
		return true
	}
	if i >= 3 && s[i-3] == 0xE2 && s[i-2] == 0x80 && (s[i-1] == 0xA8 || s[i-1] == 0xA9) {
		return true // U+2028, U+2029
	}
	return false
}

// isSpace is JavaScript's \s.
func isSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// trimRightJS is JavaScript's trimEnd.
func trimRightJS(s string) string { return strings.TrimRightFunc(s, isSpace) }

func isWord(r rune) bool {
	return r == '_' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

var operators = []struct {
	seq  string
	kind kind
}{
	{"{%", tOpenStmt}, {"%}", tCloseStmt}, {"{{", tOpenExpr}, {"}}", tCloseExpr},
	{"(", tOpenParen}, {")", tCloseParen}, {"{", tOpenBrace}, {"}", tCloseBrace},
	{"[", tOpenBracket}, {"]", tCloseBracket}, {",", tComma}, {".", tDot},
	{":", tColon}, {"|", tPipe},
	{"<=", tCmp}, {">=", tCmp}, {"==", tCmp}, {"!=", tCmp}, {"<", tCmp}, {">", tCmp},
	{"+", tAdd}, {"-", tAdd}, {"~", tAdd},
	{"**", tPow}, {"*", tMul}, {"//", tMul}, {"/", tMul}, {"%", tMul},
	{"=", tEquals},
}

var escapes = map[byte]string{'n': "\n", 't': "\t", 'r': "\r", 'b': "\b", 'f': "\f", 'v': "\v", '\'': "'", '"': "\"", '\\': "\\"}

// lex splits the preprocessed template into tokens, as the reference
// lexer does, whitespace control ("{%-", "-%}", "{{-", "-}}") included.
func lex(src *source) ([]token, error) {
	s := src.text
	var toks []token
	i := 0
	last := func() kind {
		if len(toks) == 0 {
			return -1
		}
		return toks[len(toks)-1].kind
	}
	stripTrailing := func() {
		if len(toks) > 0 && toks[len(toks)-1].kind == tText {
			t := &toks[len(toks)-1]
			t.value = trimRightJS(t.value)
			if t.value == "" {
				toks = toks[:len(toks)-1]
			}
		}
	}
	skipLeading := func() {
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !isSpace(r) {
				return
			}
			i += n
		}
	}
	depth := 0
	for i < len(s) {
		if k := last(); k == -1 || k == tCloseStmt || k == tCloseExpr || k == tComment {
			j := i
			for j < len(s) && !(s[j] == '{' && j+1 < len(s) && (s[j+1] == '%' || s[j+1] == '{' || s[j+1] == '#')) {
				j++
			}
			if j > i {
				toks = append(toks, token{tText, s[i:j], i})
				i = j
				continue
			}
		}
		if strings.HasPrefix(s[i:], "{#") {
			start := i
			i += 2
			stripBefore := i < len(s) && s[i] == '-'
			if stripBefore {
				i++
			}
			end := strings.Index(s[i:], "#}")
			if end < 0 {
				return nil, src.errorAt(start, "a comment is not closed with #}")
			}
			comment := s[i : i+end]
			stripAfter := strings.HasSuffix(comment, "-")
			if stripBefore {
				stripTrailing()
			}
			toks = append(toks, token{tComment, comment, start})
			i += end + 2
			if stripAfter {
				skipLeading()
			}
			continue
		}
		if strings.HasPrefix(s[i:], "{%-") {
			stripTrailing()
			toks = append(toks, token{tOpenStmt, "{%", i})
			i += 3
			continue
		}
		if strings.HasPrefix(s[i:], "{{-") {
			stripTrailing()
			toks = append(toks, token{tOpenExpr, "{{", i})
			depth = 0
			i += 3
			continue
		}
		skipLeading()
		if i >= len(s) {
			break
		}
		if strings.HasPrefix(s[i:], "-%}") {
			toks = append(toks, token{tCloseStmt, "%}", i})
			i += 3
			skipLeading()
			continue
		}
		if strings.HasPrefix(s[i:], "-}}") {
			toks = append(toks, token{tCloseExpr, "}}", i})
			i += 3
			skipLeading()
			continue
		}
		c := s[i]
		if c == '-' || c == '+' {
			switch last() {
			case tText, -1:
				return nil, src.errorAt(i, "unexpected %q", c)
			case tIdent, tNumber, tString, tCloseParen, tCloseBracket:
			default:
				start := i
				i++
				j := i
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
				if j > i && j+1 < len(s) && s[j] == '.' && s[j+1] >= '0' && s[j+1] <= '9' {
					j++
					for j < len(s) && s[j] >= '0' && s[j] <= '9' {
						j++
					}
				}
				if j > i {
					toks = append(toks, token{tNumber, string(c) + s[i:j], start})
				} else {
					toks = append(toks, token{tSign, string(c), start})
				}
				i = j
				continue
			}
		}
		matched := false
		for _, op := range operators {
			if op.seq == "}}" && depth > 0 {
				continue
			}
			if strings.HasPrefix(s[i:], op.seq) {
				toks = append(toks, token{op.kind, op.seq, i})
				switch op.kind {
				case tOpenExpr:
					depth = 0
				case tOpenBrace:
					depth++
				case tCloseBrace:
					depth--
				}
				i += len(op.seq)
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		if c == '\'' || c == '"' {
			start := i
			i++
			var b strings.Builder
			for {
				if i >= len(s) {
					return nil, src.errorAt(start, "a string is not closed")
				}
				if s[i] == c {
					i++
					break
				}
				if s[i] == '\\' {
					if i+1 >= len(s) {
						return nil, src.errorAt(i, "a string ends in a backslash")
					}
					e, ok := escapes[s[i+1]]
					if !ok {
						return nil, src.errorAt(i, "the escape \\%c is not supported (supported: \\n \\t \\r \\b \\f \\v \\' \\\" \\\\)", s[i+1])
					}
					b.WriteString(e)
					i += 2
					continue
				}
				b.WriteByte(s[i])
				i++
			}
			toks = append(toks, token{tString, b.String(), start})
			continue
		}
		if c >= '0' && c <= '9' {
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if last() != tDot && j+1 < len(s) && s[j] == '.' && s[j+1] >= '0' && s[j+1] <= '9' {
				j++
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
			}
			toks = append(toks, token{tNumber, s[i:j], i})
			i = j
			continue
		}
		if r, _ := utf8.DecodeRuneInString(s[i:]); isWord(r) {
			j := i
			for j < len(s) {
				r, n := utf8.DecodeRuneInString(s[j:])
				if !isWord(r) {
					break
				}
				j += n
			}
			toks = append(toks, token{tIdent, s[i:j], i})
			i = j
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[i:])
		return nil, src.errorAt(i, "unexpected character %q", r)
	}
	return toks, nil
}
