package schema

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxNameLen is the longest tool, function or schema name, in bytes, that
// every provider accepts.
const MaxNameLen = 64

// ValidName reports whether s is a name OpenAI and Anthropic accept for a
// function or a response schema: 1 to MaxNameLen ASCII letters, digits,
// '_' or '-' (^[a-zA-Z0-9_-]{1,64}$). A tool name must also pass
// CheckToolName.
func ValidName(s string) bool {
	if s == "" || len(s) > MaxNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// CheckToolName returns nil when name is a tool name that every request
// body Tessera writes accepts, and otherwise an error saying what is
// wrong and what to write instead. The rule is what the four accept in
// common:
//
//   - OpenAI Chat Completions and Responses: ^[a-zA-Z0-9_-]{1,64}$;
//   - Anthropic Messages: ^[a-zA-Z0-9_-]{1,128}$ (64 before 2025);
//   - Gemini function declarations: letters, digits, '_', '.', ':' and
//     '-', starting with a letter or '_', at most 64;
//
// so a name is 1 to 64 ASCII letters, digits, '_' and '-', starting with
// a letter or '_': ^[A-Za-z_][A-Za-z0-9_-]{0,63}$. docs/PROVIDERS.md
// gives the sources.
func CheckToolName(name string) error {
	switch {
	case name == "":
		return errors.New("the name is empty: give the tool a name of letters, digits, '_' and '-'")
	case len(name) > MaxNameLen:
		return fmt.Errorf("the name is %d bytes long: providers take at most %d; shorten it", len(name), MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return fmt.Errorf("the name holds %s at byte %d, which providers refuse: use only letters, digits, '_' and '-'", describeByte(name[i:]), i+1)
		}
	}
	if c := name[0]; c >= '0' && c <= '9' || c == '-' {
		return fmt.Errorf("the name starts with %q, which Gemini refuses: start it with a letter or '_'", c)
	}
	return nil
}

// describeByte names the character at the start of s for a message.
func describeByte(s string) string {
	c := s[0]
	switch {
	case c == ' ':
		return "a space"
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf("the control character U+%04X", c)
	case c < utf8.RuneSelf:
		return fmt.Sprintf("%q", c)
	}
	r, _ := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return fmt.Sprintf("the byte 0x%02x (not UTF-8)", c)
	}
	return fmt.Sprintf("%q (U+%04X)", r, r)
}
