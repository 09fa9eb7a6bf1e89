package prompt_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/prompt"
)

const fuzzBOM = "\xEF\xBB\xBF"

// FuzzNormalize checks the encoding rule of design 001: every file becomes
// valid UTF-8 text with "\n" line ends and no byte-order mark, the same
// text whichever line ends it was saved with, and a file that is not UTF-8
// is rejected at the offset of its first bad byte.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"",
		"\n",
		"plain text, no line break",
		"# Title\n\nYou are operating under a certified role prompt.\n",
		"# Title\r\n\r\nYou are operating under a certified role prompt.\r\n",
		"old mac\rline ends\r",
		"mixed\r\nline\nends\rhere\n\r",
		"\r\r\n\n\r\r",
		"\r",
		"\r\n",
		"\n\r",
		fuzzBOM,
		fuzzBOM + "with a BOM\r\n",
		fuzzBOM + "\r\n",
		fuzzBOM + fuzzBOM + "two marks\n",
		"\xEF\xBB",                 // a BOM cut short
		"text " + fuzzBOM + " mid", // U+FEFF inside the text is kept
		"caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x99\x82\r\n",
		"\xEF\xBF\xBD is U+FFFD, which is valid",
		"bad \xFF byte",
		"line one\nline two\n\xC3\x28 bad second byte",
		"\xC0\xAF overlong slash",
		"\xED\xA0\x80 surrogate half",
		"\xF4\x90\x80\x80 above U+10FFFF",
		"cut short at the end \xE2\x82",
		fuzzBOM + "\xFF after the BOM",
		"\r\n\r\n\xFE",
		"\x00 NUL is valid UTF-8\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		out, err := prompt.Normalize(data)
		if !bytes.Equal(data, orig) {
			t.Fatalf("Normalize modified its input")
		}
		// Every leading byte-order mark is dropped: dropping only the
		// first would leave "\uFEFF\uFEFF" unstable under Normalize.
		start := 0
		for bytes.HasPrefix(data[start:], []byte(fuzzBOM)) {
			start += len(fuzzBOM)
		}
		body := data[start:]

		if err != nil {
			var ee *prompt.EncodingError
			if !errors.As(err, &ee) {
				t.Fatalf("error is %T (%v), want *prompt.EncodingError", err, err)
			}
			if utf8.Valid(body) {
				t.Fatalf("valid UTF-8 rejected: %v", err)
			}
			if line, col := diag.Position(data, ee.Offset); line != ee.Line || col != ee.Col {
				t.Fatalf("error at %d:%d, but offset %d is at %d:%d", ee.Line, ee.Col, ee.Offset, line, col)
			}
			if ee.Offset < start || ee.Offset >= len(data) {
				t.Fatalf("Offset %d outside the body [%d, %d)", ee.Offset, start, len(data))
			}
			if r, n := utf8.DecodeRune(data[ee.Offset:]); r != utf8.RuneError || n != 1 {
				t.Fatalf("Offset %d points at a valid rune %U (%d bytes)", ee.Offset, r, n)
			}
			if !utf8.Valid(data[start:ee.Offset]) {
				t.Fatalf("Offset %d is not the first invalid byte", ee.Offset)
			}
			before := data[start:ee.Offset]
			if ee.Line < 1 || ee.Line > 1+bytes.Count(before, []byte{'\n'})+bytes.Count(before, []byte{'\r'}) {
				t.Fatalf("Line %d out of range for offset %d", ee.Line, ee.Offset)
			}
			if !bytes.Contains(before, []byte{'\r'}) && ee.Line != 1+bytes.Count(before, []byte{'\n'}) {
				t.Fatalf("Line %d, want %d", ee.Line, 1+bytes.Count(before, []byte{'\n'}))
			}
			if out != "" {
				t.Fatalf("output %q returned with an error", out)
			}
			return
		}

		if !utf8.Valid(body) {
			t.Fatalf("invalid UTF-8 accepted: %q", data)
		}
		if !utf8.ValidString(out) {
			t.Fatalf("output is not valid UTF-8: %q", out)
		}
		if strings.ContainsRune(out, '\r') {
			t.Fatalf("output holds a carriage return: %q", out)
		}
		if strings.HasPrefix(out, fuzzBOM) {
			t.Fatalf("output starts with a byte-order mark: %q", out)
		}
		want := strings.ReplaceAll(strings.ReplaceAll(string(body), "\r\n", "\n"), "\r", "\n")
		if out != want {
			t.Fatalf("Normalize(%q) = %q, want %q", data, out, want)
		}

		again, err := prompt.Normalize([]byte(out))
		if err != nil || again != out {
			t.Fatalf("not idempotent: Normalize(%q) = %q, %v", out, again, err)
		}

		// The same text saved with other line ends, with or without a BOM,
		// normalises to the same text and so to the same hash.
		for _, eol := range []string{"\r\n", "\r"} {
			variant := strings.ReplaceAll(out, "\n", eol)
			for _, prefix := range []string{"", fuzzBOM} {
				got, err := prompt.Normalize([]byte(prefix + variant))
				if err != nil || got != out {
					t.Fatalf("%q line ends (BOM %v): Normalize(%q) = %q, %v; want %q", eol, prefix != "", prefix+variant, got, err, out)
				}
				if prompt.Hash(got) != prompt.Hash(out) {
					t.Fatalf("hash differs between line-end variants")
				}
			}
		}
	})
}
