package tessera_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/presets"
)

// TestConfigDocSections keeps docs/CONFIG.md's "Preset sections" table
// and the registry in step: every key a built-in preset owns is listed
// with its preset, and no other. (catalog's TestConfigDocListsEveryKey
// checks the catalog's own keys the same way.)
func TestConfigDocSections(t *testing.T) {
	data, err := os.ReadFile("docs/CONFIG.md")
	if err != nil {
		t.Fatal(err)
	}
	table := regexp.MustCompile("(?s)\n## Preset sections\n(.*?)\n## ").FindSubmatch(data)
	if table == nil {
		t.Fatal(`docs/CONFIG.md has no "## Preset sections" section followed by another`)
	}
	documented := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| ([a-z-]+) \\|").FindAllSubmatch(table[1], -1) {
		documented[string(m[1])] = string(m[2])
	}
	reg := presets.Default()
	owned := map[string]string{}
	for _, p := range reg.Presets() {
		if c, ok := p.(preset.Configurer); ok {
			owned[c.Section().Key] = p.Name()
		}
	}
	if len(owned) == 0 {
		t.Fatal("no built-in preset owns a section")
	}
	for key, name := range owned {
		if documented[key] != name {
			t.Errorf("docs/CONFIG.md: section %q belongs to preset %s; the table says %q", key, name, documented[key])
		}
	}
	for key := range documented {
		if _, ok := owned[key]; !ok {
			t.Errorf("docs/CONFIG.md lists section %q, which no built-in preset owns", key)
		}
	}
}
