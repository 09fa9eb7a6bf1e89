// Package diag holds the diagnostics Tessera reports about user input: an
// error that names a file, a line and what to do, and a list of such errors
// so that a caller can report every problem at once instead of the first.
//
// Paths in a diagnostic are slash-separated and relative to the catalog root
// wherever the file is inside one, so the same mistake reads the same on
// every operating system.
package diag

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Error is one problem in one place. Its message reads
// "path:line: message" ("path:line:col: message" when the column is
// known), or "path: message" when the line is unknown, the shape compilers
// use and editors jump to.
type Error struct {
	// Path is the file the problem is in, slash-separated.
	Path string
	// Line is the 1-based line of the problem, or 0 when it is not known.
	Line int
	// Col is the 1-based column (in bytes) of the problem on its line, or
	// 0 when it is not known; it is shown only with a line.
	Col int
	// Msg says what is wrong and, where it can, what to do about it.
	Msg string
	// Err is the underlying cause, if any; it is reachable with errors.Is
	// and errors.As but not repeated in Error's text.
	Err error
	// Related are other places that explain the problem, such as the
	// template line that included a bad file or the workflow node whose
	// includes map lacks a token. They follow the message in brackets.
	Related []Location
}

// Location is a place related to a problem.
type Location struct {
	// Label says how the place relates, such as "node at" or "included by".
	Label string
	// Path, Line and Col locate it, as in Error.
	Path      string
	Line, Col int
	// Detail, if any, follows the location.
	Detail string
}

func (l Location) String() string {
	s := l.Label + " " + l.Path
	if l.Line > 0 {
		s += ":" + strconv.Itoa(l.Line)
		if l.Col > 0 {
			s += ":" + strconv.Itoa(l.Col)
		}
	}
	if l.Detail != "" {
		s += " " + l.Detail
	}
	return s
}

// Errorf returns an Error at path and line with a formatted message.
func Errorf(path string, line int, format string, args ...any) *Error {
	return &Error{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// ErrorfAt returns an Error at path, line and column with a formatted
// message.
func ErrorfAt(path string, line, col int, format string, args ...any) *Error {
	return &Error{Path: path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// Position returns the 1-based line and column (in bytes) of offset off
// in data, for diagnostics of parsers that know offsets. An offset past
// the end is taken as the end.
func Position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	return line, off - bytes.LastIndexByte(before, '\n')
}

// Wrap returns an Error at path and line whose cause is err.
func Wrap(path string, line int, err error, format string, args ...any) *Error {
	return &Error{Path: path, Line: line, Msg: fmt.Sprintf(format, args...), Err: err}
}

// Error implements the error interface.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		if e.Line > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Line))
			if e.Col > 0 {
				b.WriteByte(':')
				b.WriteString(strconv.Itoa(e.Col))
			}
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	for _, r := range e.Related {
		b.WriteString(" [")
		b.WriteString(r.String())
		b.WriteByte(']')
	}
	return b.String()
}

// MapPaths returns a copy of e with f applied to its path and the paths of
// its related locations; a command uses it to show catalog-relative paths
// as paths from the current directory.
func (e *Error) MapPaths(f func(string) string) *Error {
	c := *e
	if c.Path != "" {
		c.Path = f(c.Path)
	}
	c.Related = make([]Location, len(e.Related))
	for i, r := range e.Related {
		if r.Path != "" {
			r.Path = f(r.Path)
		}
		c.Related[i] = r
	}
	return &c
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// List is a set of problems reported together. A nil or empty List is not an
// error; use Err to turn a List into an error value.
type List []*Error

// Add appends err to the list. An err that is itself a List or wraps one is
// flattened; any other error without a place is added with an empty path.
func (l *List) Add(err error) {
	if err == nil {
		return
	}
	var list List
	if errors.As(err, &list) {
		*l = append(*l, list...)
		return
	}
	var e *Error
	if errors.As(err, &e) {
		*l = append(*l, e)
		return
	}
	*l = append(*l, &Error{Msg: err.Error(), Err: err})
}

// Sort orders the list by path, then line, then message, and removes exact
// duplicates, so a report is the same whatever order the work was done in.
func (l *List) Sort() {
	slices.SortStableFunc(*l, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), cmp.Compare(a.Msg, b.Msg), cmp.Compare(a.Error(), b.Error()))
	})
	*l = slices.CompactFunc(*l, func(a, b *Error) bool {
		return a.Path == b.Path && a.Line == b.Line && a.Col == b.Col && a.Msg == b.Msg && slices.Equal(a.Related, b.Related)
	})
}

// Err returns the list as an error, or nil when it is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Error implements the error interface: one problem per line.
func (l List) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the problems as a slice of errors, for errors.Is and
// errors.As.
func (l List) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}
