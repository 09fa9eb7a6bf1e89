package catalog_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/include"
)

// fzCheckDiags checks that err is a non-empty diag.List whose every entry
// names the file and a line of data (0 when unknown; one past the last
// line is allowed for "the file ends early").
func fzCheckDiags(t *testing.T, err error, name string, data []byte) {
	t.Helper()
	var list diag.List
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error is %T (%v), want a non-empty diag.List", err, err)
	}
	// A line ends at "\n", "\r\n" or a lone "\r", as prompt.Normalize
	// reads it (and as editors show it).
	nl := bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
	maxLine := bytes.Count(nl, []byte{'\n'}) + 2
	for _, e := range list {
		if e == nil {
			t.Fatalf("nil entry in %v", list)
		}
		if e.Path == "" || e.Path != name {
			t.Fatalf("diagnostic %q has Path %q, want %q", e.Msg, e.Path, name)
		}
		if e.Line < 0 || e.Line > maxLine {
			t.Fatalf("diagnostic %q has Line %d; the input has %d lines", e.Msg, e.Line, maxLine-1)
		}
		if e.Msg == "" {
			t.Fatalf("diagnostic at %s:%d has no message", e.Path, e.Line)
		}
	}
}

// FuzzParseConfig checks that ParseConfig, given the built-in presets'
// keys, never panics, that every problem it reports is located in
// tessera.yaml, and that a config it accepts has its required keys set
// (tasks and workflows, unless a preset's key stands alone) and every
// path clean.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"tasks: seed/prompts/tasks\nworkflows: seed/workflows\n",
		"version: 1\ntasks: t\nworkflows: w\ntemplate_extensions: [.txt, .md]\nlog: logs/audit.jsonl\nout: build/prompts\n",
		"tasks: .\nworkflows: .\n",
		"tasks: t\nworkflows: w\ntemplate_extensions:\n  - .prompt\n  - .txt\n",
		"",
		"\n\n",
		"# only a comment\n",
		"---\n",
		"[1, 2]\n",
		"just a string\n",
		"tasks: t\n",
		"tasks: t\nworkflows: w\ntasks: u\n",
		"tasks: ../outside\nworkflows: /abs\n",
		"tasks: a\\b\nworkflows: C:/w\n",
		"tasks: 12\nworkflows: true\n",
		"tasks: [a]\nworkflows: {b: c}\n",
		"tasks: t\nworkflows: w\nversion: 2\n",
		"tasks: t\nworkflows: w\nversion: [1]\n",
		"tasks: t\nworkflows: w\ntemplate_extensions: []\n",
		"tasks: t\nworkflows: w\ntemplate_extensions: [txt, ./x, .a/b, .]\n",
		"tasks: t\nworkflows: w\ntemplate_extensions: .txt\n",
		"tasks: t\nworkflows: w\nunknown: 1\nlogs: x\n",
		"tasks: \"\"\nworkflows: ''\n",
		"tasks: ~\nworkflows: null\n",
		"tasks: &a t\nworkflows: *a\n",
		"? [complex, key]\n: value\ntasks: t\nworkflows: w\n",
		"tasks: t\n\tworkflows: w\n",
		"tasks: t\nworkflows: w\n  bad indent: x\n",
		"tasks: \"unterminated\nworkflows: w\n",
		"tasks: t\r\nworkflows: w\r\n",
		"\xEF\xBB\xBFtasks: t\nworkflows: w\n",
		"tasks: t\x00\nworkflows: w\n",
		"tasks: \xff\nworkflows: w\n",
		"a: &a [*a]\n",
		"tasks: !!binary dGFza3M=\nworkflows: w\n",
		"tasks: !custom t\nworkflows: w\n",
		"tasks: |\n  multi\n  line\nworkflows: w\n",
		"tasks: t\nworkflows: w\nlog: l\nlog_key_env: TESSERA_LOG_KEY\n",
		"tasks: t\nworkflows: w\nlog_key_env: 1BAD\n",
		"tasks: t\nworkflows: w\nredaction:\n  allow: [sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08]\n",
		"tasks: t\nworkflows: w\nredaction:\n  allow: [ghp_x, {a: b}]\n",
		"specs: canonical\n",
		"layered: .\ntyped: typed/\n",
		"specs: ../out\nlayered: [x]\n",
		"specs: s\nspecs: t\n",
		"spec: s\n",
	} {
		f.Add([]byte(s))
	}
	// The keys the built-in presets own, as presets.Default gives them.
	sections := []catalog.Section{{Key: "specs"}, {Key: "typed"}, {Key: "layered"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := catalog.ParseConfig(catalog.ConfigFile, data, sections...)
		if err != nil {
			if cfg != nil {
				t.Fatalf("config returned with an error")
			}
			fzCheckDiags(t, err, catalog.ConfigFile, data)
			return
		}
		if cfg == nil {
			t.Fatalf("nil config and nil error")
		}
		if cfg.Version != 1 {
			t.Fatalf("Version = %d", cfg.Version)
		}
		paths := map[string]string{"tasks": cfg.Tasks, "workflows": cfg.Workflows, "out": cfg.Out, "log": cfg.Log}
		alone := false // a preset's key makes tasks and workflows optional, together
		for _, s := range sections {
			paths[s.Key] = cfg.Section(s.Key)
			alone = alone || cfg.Section(s.Key) != ""
		}
		if alone && (cfg.Tasks == "") != (cfg.Workflows == "") {
			t.Fatalf("tasks %q without workflows %q, or the other way", cfg.Tasks, cfg.Workflows)
		}
		for key, p := range paths {
			if p == "" {
				if key == "log" || alone && (key == "tasks" || key == "workflows") || cfg.Line(key) == 0 && key != "tasks" && key != "workflows" && key != "out" {
					continue
				}
				t.Fatalf("required %s is empty in %+v", key, cfg)
			}
			if p == "." { // the root itself, allowed for every key
				continue
			}
			if c, err := include.CleanPath(p); err != nil || c != p {
				t.Fatalf("%s %q is not a clean path inside the root: %q, %v", key, p, c, err)
			}
		}
		if len(cfg.TemplateExtensions) == 0 {
			t.Fatalf("no template extensions")
		}
		for _, e := range cfg.TemplateExtensions {
			if len(e) < 2 || e[0] != '.' || strings.ContainsAny(e, "/\\") {
				t.Fatalf("bad template extension %q", e)
			}
		}
		again, err := catalog.ParseConfig(catalog.ConfigFile, data, sections...)
		if err != nil || !reflect.DeepEqual(again, cfg) {
			t.Fatalf("second parse differs: %+v, %v", again, err)
		}
	})
}
