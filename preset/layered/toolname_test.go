package layered

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// TestToolNames: a tool's name in layered.yaml is one every provider
// accepts, checked at load and placed at its line and column.
func TestToolNames(t *testing.T) {
	files := func(yml string) ReadFunc {
		return func(name string) (string, []byte, error) {
			switch name {
			case "constitution.md":
				return name, []byte("Be careful."), nil
			case "layered.yaml":
				return name, []byte(yml), nil
			}
			return name, nil, fmt.Errorf("open %s: %w", name, fs.ErrNotExist)
		}
	}
	for _, tt := range []struct{ yml, want string }{
		{"tools:\n  - name: \"read\\efile\"\n", `layered.yaml:2:5: tools: "read\x1bfile": the name holds the control character U+001B at byte 5, which providers refuse: use only letters, digits, '_' and '-'`},
		{"tools:\n  - name: web.search\n", `layered.yaml:2:5: tools: "web.search": the name holds '.' at byte 4`},
		{"tools:\n  - name: " + strings.Repeat("t", 65) + "\n", `the name is 65 bytes long: providers take at most 64; shorten it`},
		{"tools:\n  - name: 9lives\n", `tools: "9lives": the name starts with '9', which Gemini refuses`},
	} {
		_, err := ParseSetup(files(tt.yml))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant %s", tt.yml, err, tt.want)
		}
	}
	if _, err := ParseSetup(files("tools:\n  - name: read_file\nskills:\n  - name: fix.tests\n")); err != nil {
		t.Errorf("a valid tool name, and a skill's name (not a tool's): %v", err)
	}
}
