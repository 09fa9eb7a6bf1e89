package prompt

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// EncodingError reports bytes that are not valid UTF-8.
type EncodingError struct {
	// Offset is the byte offset of the first invalid byte in the input as
	// given, byte-order mark included.
	Offset int
	// Line and Col are the 1-based line the invalid byte is on and its
	// column, in bytes.
	Line, Col int
}

func (e *EncodingError) Error() string {
	return fmt.Sprintf("invalid UTF-8 at byte offset %d (line %d): save the file as UTF-8", e.Offset, e.Line)
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Normalize turns file bytes into prompt text: it drops leading UTF-8
// byte-order marks, rejects invalid UTF-8 with an *EncodingError, and turns
// "\r\n" and lone "\r" into "\n". A file saved with Windows line ends
// therefore gives the same text, and the same hash, as one saved with Unix
// line ends.
func Normalize(data []byte) (string, error) {
	start := 0
	for bytes.HasPrefix(data[start:], bom) { // all of them, so Normalize is idempotent
		start += len(bom)
	}
	body := data[start:]
	if !utf8.Valid(body) {
		off := firstInvalid(body)
		before := body[:off]
		col := off - bytes.LastIndexByte(before, '\n')
		if !bytes.Contains(before, []byte{'\n'}) {
			col += start // the byte-order marks are on the first line
		}
		return "", &EncodingError{Offset: start + off, Line: 1 + bytes.Count(before, []byte{'\n'}), Col: col}
	}
	cr := bytes.IndexByte(body, '\r')
	if cr < 0 {
		return string(body), nil
	}
	var b strings.Builder
	b.Grow(len(body))
	for {
		b.Write(body[:cr])
		b.WriteByte('\n')
		body = body[cr+1:]
		if len(body) > 0 && body[0] == '\n' {
			body = body[1:]
		}
		cr = bytes.IndexByte(body, '\r')
		if cr < 0 {
			b.Write(body)
			return b.String(), nil
		}
	}
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}
