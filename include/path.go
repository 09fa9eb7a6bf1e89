package include

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// CleanPath checks that p, a path written in a catalog file, names a file
// inside the catalog root, and returns it cleaned. Paths are
// slash-separated on every system; absolute paths, paths that climb out
// with "..", backslashes and NUL bytes are rejected with an error that
// says what to write instead. Symbolic links are checked where the file
// is opened, not here.
func CleanPath(p string) (string, error) {
	switch {
	case p == "":
		return "", fmt.Errorf("empty path: name a file relative to the catalog root")
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("path %q contains a NUL byte", p)
	case strings.ContainsRune(p, '\\'):
		return "", fmt.Errorf("path %q contains a backslash: write paths with forward slashes, relative to the catalog root", p)
	case strings.HasPrefix(p, "/") || hasDrive(p):
		return "", fmt.Errorf("path %q is absolute: write it relative to the catalog root", p)
	case !utf8.ValidString(p):
		return "", fmt.Errorf("path %q is not valid UTF-8", p)
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("path %q leaves the catalog root: name a file inside the catalog", p)
	}
	if hasDrive(c) { // "./C:/x" cleans to "C:/x", absolute on Windows
		return "", fmt.Errorf("path %q is absolute: write it relative to the catalog root", p)
	}
	if c == "." {
		return "", fmt.Errorf("path %q names the catalog root, not a file", p)
	}
	return c, nil
}

// hasDrive reports a Windows drive prefix such as "C:", which would make a
// path absolute on Windows and so differ between systems.
func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}
