package catalog

import (
	"maps"
	"strings"
	"testing"
)

// TestServeSection: tessera.yaml's serve section is read into flag
// settings, and a bad value or an unknown key is an error at its line.
func TestServeSection(t *testing.T) {
	cfg, err := ParseConfig("tessera.yaml", []byte("tasks: t\nworkflows: w\nserve:\n  addr: 0.0.0.0:3000\n  poll: 500ms\n  webhooks: [https://a.example, https://b.example]\n  public_metrics: false\n  cache_size: 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"addr": "0.0.0.0:3000", "poll": "500ms", "webhook": "https://a.example,https://b.example", "public-metrics": "false", "cache-size": "8"}
	if got := cfg.Serve.Flags(); !maps.Equal(got, want) || cfg.Serve.Line != 3 {
		t.Errorf("serve: %v at line %d, want %v at 3", got, cfg.Serve.Line, want)
	}
	if cfg, err := ParseConfig("tessera.yaml", []byte("tasks: t\nworkflows: w\n")); err != nil || cfg.Serve != nil || len(cfg.Serve.Flags()) != 0 {
		t.Errorf("no serve section: %v %+v", err, cfg)
	}
	for src, msg := range map[string]string{
		"serve:\n  poll: -1s\n":     `tessera.yaml:4:9: serve.poll: want a duration such as 1s, 500ms or 2m, not negative`,
		"serve:\n  port: 3000\n":    `tessera.yaml:4:3: serve: unknown key "port"`,
		"serve:\n  cache_size: x\n": `tessera.yaml:4:15: serve.cache_size`,
	} {
		_, err := ParseConfig("tessera.yaml", []byte("tasks: t\nworkflows: w\n"+src))
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %s", src, err, msg)
		}
	}
}
