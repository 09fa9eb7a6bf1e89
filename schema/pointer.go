package schema

import (
	"strconv"
	"strings"
)

// describePointer renders a pointer for a message: the root has the empty
// pointer, which reads badly on its own.
func describePointer(p string) string {
	if p == "" {
		return "at the root"
	}
	return "at " + strconv.Quote(p)
}

// escapeToken escapes one reference token of a JSON Pointer (RFC 6901,
// section 3): '~' becomes "~0" and '/' becomes "~1".
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// pointer joins reference tokens into a JSON Pointer.
func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}
