package include_test

import (
	"io/fs"
	"path"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/include"
)

// FuzzCleanPath checks that every path CleanPath accepts names a file
// inside the catalog root, spelled one way only: relative, no "..", no
// backslash or NUL, already clean, and valid for io/fs.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{
		"",
		".",
		"..",
		"/",
		"a",
		"seed/prompts/shared/rules.txt",
		"./a/./b//c.txt",
		"a/b/../c.txt",
		"a/../../b",
		"a/..",
		"../a",
		"..a",
		"a..",
		"...",
		"a/.../b",
		"/etc/passwd",
		"//server/share",
		"a\\b",
		"..\\..\\windows",
		"C:/x",
		"c:x",
		"1:/x",
		"a\x00b",
		"a/",
		"a/./",
		" a ",
		"a/ /b",
		"Clarification Questions Generator v1.0.txt",
		"caf\xC3\xA9.txt",
		"\xff.txt",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		c, err := include.CleanPath(p)
		if err != nil {
			if c != "" {
				t.Fatalf("CleanPath(%q) returned %q with error %v", p, c, err)
			}
			if err.Error() == "" {
				t.Fatalf("empty error message")
			}
			return
		}
		switch {
		case c == "" || c == "." || c == "..":
			t.Fatalf("CleanPath(%q) = %q, not a file", p, c)
		case strings.HasPrefix(c, "/"):
			t.Fatalf("CleanPath(%q) = %q is absolute", p, c)
		case strings.HasPrefix(c, "../"):
			t.Fatalf("CleanPath(%q) = %q leaves the root", p, c)
		case strings.Contains(c, "/../") || strings.HasSuffix(c, "/.."):
			t.Fatalf("CleanPath(%q) = %q climbs", p, c)
		case strings.ContainsAny(c, "\\\x00"):
			t.Fatalf("CleanPath(%q) = %q holds a backslash or NUL", p, c)
		case len(c) >= 2 && c[1] == ':' && (c[0]|0x20 >= 'a' && c[0]|0x20 <= 'z'):
			t.Fatalf("CleanPath(%q) = %q starts with a drive letter", p, c)
		case path.Clean(c) != c:
			t.Fatalf("CleanPath(%q) = %q is not clean (path.Clean gives %q)", p, c, path.Clean(c))
		case utf8.ValidString(c) && !fs.ValidPath(c):
			// Paths from catalog files are valid UTF-8 (JSON, normalised
			// text); io/fs refuses any other.
			t.Fatalf("CleanPath(%q) = %q is not a valid io/fs path", p, c)
		}
		if c2, err := include.CleanPath(c); err != nil || c2 != c {
			t.Fatalf("not idempotent: CleanPath(%q) = %q, %v", c, c2, err)
		}
		if path.Clean(p) != c {
			t.Fatalf("CleanPath(%q) = %q, want path.Clean = %q", p, c, path.Clean(p))
		}
	})
}
