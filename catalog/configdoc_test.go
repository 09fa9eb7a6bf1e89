package catalog

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// configKeys lists the keys tessera.yaml accepts, as dotted paths ("[]"
// for the items of a list), read from the struct tags the parser decodes
// with, so that a key added to the parser shows up here.
func docKeys(t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
			prefix += "[]"
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for f := range t.Fields() {
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		key := tag
		if prefix != "" {
			key = prefix + "." + tag
		}
		keys = append(keys, key)
		keys = append(keys, docKeys(f.Type, key)...)
	}
	return keys
}

// TestConfigDocListsEveryKey keeps docs/CONFIG.md and the parser in
// step: the doc's table lists every key the parser accepts and no other,
// its defaults are the code's, and its full example parses.
func TestConfigDocListsEveryKey(t *testing.T) {
	data, err := os.ReadFile("../docs/CONFIG.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	keysTable := regexp.MustCompile("(?s)\n## Keys\n(.*?)\n## ").FindStringSubmatch(doc)
	if keysTable == nil {
		t.Fatal("docs/CONFIG.md has no \"## Keys\" section followed by another")
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z_.\\[\\]]+)` \\| ([^|]+) \\|")
	documented := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(keysTable[1], -1) {
		documented[m[1]] = strings.TrimSpace(m[2])
	}
	keys := docKeys(reflect.TypeFor[configDoc](), "")
	if len(keys) < 10 {
		t.Fatalf("found only %d keys in configDoc: %v", len(keys), keys)
	}
	for _, k := range keys {
		if _, ok := documented[k]; !ok {
			t.Errorf("docs/CONFIG.md does not list the key %q: add a row for it", k)
		}
	}
	for k := range documented {
		if !slices.Contains(keys, k) {
			t.Errorf("docs/CONFIG.md lists %q, which tessera.yaml does not accept", k)
		}
	}

	def := DefaultLimits()
	noModel, err := ParseConfig(ConfigFile, []byte("tasks: t\nworkflows: w\nbudget:\n  context: 1000\n"))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"out":                     "`" + DefaultOut + "`",
		"template_extensions":     "`[" + strings.Join(DefaultTemplateExtensions, ", ") + "]`",
		"limits.max_file_bytes":   "`" + formatSize(def.MaxFileBytes) + "`",
		"limits.max_output_bytes": "`" + formatSize(def.MaxOutputBytes) + "`",
		"budget.model":            "`" + noModel.Budget.Model + "`",
	} {
		if got := documented[key]; got != want {
			t.Errorf("docs/CONFIG.md gives %s the default %s; the code's is %s", key, got, want)
		}
	}

	example := regexp.MustCompile("(?s)## A full example\n\n```yaml\n(.*?)```").FindStringSubmatch(doc)
	if example == nil {
		t.Fatal("docs/CONFIG.md has no full example")
	}
	// The presets' sections, as presets.Default declares them (the root
	// package's TestConfigDocSections checks that table).
	sections := []Section{{Key: "specs"}, {Key: "typed"}, {Key: "layered"}}
	cfg, err := ParseConfig(ConfigFile, []byte(example[1]), sections...)
	if err != nil {
		t.Fatalf("the full example in docs/CONFIG.md does not parse:\n%v", err)
	}
	if cfg.Budget == nil || cfg.Redaction == nil || len(cfg.Redaction.Patterns) != 1 || cfg.Section("specs") == "" {
		t.Errorf("the full example does not set every section: %+v", cfg)
	}
}

// formatSize writes a size as the doc does: in MiB when it is whole.
func formatSize(n int64) string {
	if n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + "MiB"
	}
	return strconv.FormatInt(n, 10)
}
