package catalog

import (
	"slices"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig("tessera.yaml", []byte("version: 1\ntasks: seed/prompts/tasks\nworkflows: ./seed/workflows/\nlog: logs/audit.jsonl\nout: dist/prompts\ntemplate_extensions: [.md, .txt]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Version: 1, Tasks: "seed/prompts/tasks", Workflows: "seed/workflows", Log: "logs/audit.jsonl", Out: "dist/prompts", TemplateExtensions: []string{".md", ".txt"}}
	if cfg.Version != want.Version || cfg.Tasks != want.Tasks || cfg.Workflows != want.Workflows || cfg.Log != want.Log || cfg.Out != want.Out || !slices.Equal(cfg.TemplateExtensions, want.TemplateExtensions) {
		t.Errorf("got %+v\nwant %+v", cfg, want)
	}
}

func TestParseConfigDefaults(t *testing.T) {
	cfg, err := ParseConfig("tessera.yaml", []byte("tasks: t\nworkflows: w\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Out != DefaultOut || !slices.Equal(cfg.TemplateExtensions, DefaultTemplateExtensions) || cfg.Log != "" || cfg.Version != 1 {
		t.Errorf("defaults: %+v", cfg)
	}
}

func TestParseConfigBudget(t *testing.T) {
	cfg, err := ParseConfig("tessera.yaml", []byte("tasks: t\nworkflows: w\nbudget:\n  context: 8000\n  reserve: 1000\n  model: gpt-4\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b := cfg.Budget; b == nil || *b != (BudgetConfig{Model: "gpt-4", Context: 8000, Reserve: 1000, Line: 3, Col: 1}) {
		t.Fatalf("budget %+v", cfg.Budget)
	}
	cfg, err = ParseConfig("tessera.yaml", []byte("tasks: t\nworkflows: w\nbudget: {context: 500}\n"))
	if err != nil || cfg.Budget.Model != "gpt-4o" || cfg.Budget.Reserve != 0 {
		t.Fatalf("defaults: %+v, %v", cfg.Budget, err)
	}
}

func TestParseConfigRedaction(t *testing.T) {
	cfg, err := ParseConfig("tessera.yaml", []byte("tasks: t\nworkflows: w\nredaction:\n  defaults: false\n  patterns:\n    - label: employee-id\n      regexp: 'EMP-[0-9]{6}'\n      personal: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := cfg.Redaction.Redactor()
	if err != nil {
		t.Fatal(err)
	}
	got, counts := r.Redact("ask EMP-123456 about sk-proj-" + strings.Repeat("a1B2", 12))
	if !strings.Contains(got, "[REDACTED:employee-id]") || !strings.Contains(got, "sk-proj-") || counts.Total() != 1 {
		t.Fatalf("custom patterns only: %q %v", got, counts)
	}
	// No redaction key: the built-in patterns.
	var none *RedactionConfig
	def, err := none.Redactor()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := def.Redact("sk-proj-" + strings.Repeat("a1B2", 12)); strings.Contains(got, "sk-proj-a1B2") {
		t.Fatalf("default redactor left a key: %q", got)
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"tasks: t\nworkflows: w\nwokflows: x\n", `tessera.yaml:3:1: unknown key "wokflows": the keys are version, tasks, workflows, template_extensions, log, log_key_env, out, specs, typed, layered, budget, redaction, limits, models, tokenizers`},
		{"workflows: w\n", `tessera.yaml: missing key "tasks": name the directory of task templates, relative to the catalog root`},
		{"tasks: t\n", `tessera.yaml: missing key "workflows"`},
		{"", "tessera.yaml: empty: name the task and workflow directories"},
		{"- a\n- b\n", "tessera.yaml:1:1: want a mapping of keys to values at the top level"},
		{"tasks: [a]\nworkflows: w\n", "tessera.yaml:1:8: tasks: want a path string relative to the catalog root"},
		{"tasks: ../t\nworkflows: w\n", `tessera.yaml:1:8: tasks: path "../t" leaves the catalog root`},
		{"tasks: t\nworkflows: /abs\n", `tessera.yaml:2:12: workflows: path "/abs" is absolute`},
		{"tasks: t\nworkflows: w\nversion: 2\n", "tessera.yaml:3:10: version: want 1"},
		{"tasks: t\nworkflows: w\ntemplate_extensions: txt\n", "tessera.yaml:3:22: template_extensions: want a list"},
		{"tasks: t\nworkflows: w\ntemplate_extensions:\n  - .txt\n  - md\n", "tessera.yaml:4:3: template_extensions: line 5: want an extension starting with a dot"},
		{"tasks: t\ntasks: u\nworkflows: w\n", `tessera.yaml:2:1: key "tasks" is repeated (first at line 1): keep one`},
		{"tasks: t\n  bad: indent\n", "tessera.yaml:2:6: not valid YAML"},
		{"tasks: 12\nworkflows: w\n", "tessera.yaml:1:8: tasks: want a path string"},
		{"tasks: t\nworkflows: w\nredaction: yes\n", "tessera.yaml:3:12: redaction: want a mapping with defaults, patterns and allow"},
		{"tasks: t\nworkflows: w\nredaction:\n  defaults: maybe\n", "tessera.yaml:4:13: redaction.defaults: want true or false"},
		{"tasks: t\nworkflows: w\nredaction:\n  patterns:\n    - label: emp\n      regexp: 'EMP-('\n", "tessera.yaml:5:7: redaction.patterns: "},
		{"tasks: t\nworkflows: w\nredaction:\n  patterns:\n    - label: emp\n      regex: x\n", `tessera.yaml:6:7: redaction.patterns: unknown key "regex": the keys are label, regexp, personal`},
		{"tasks: t\nworkflows: w\nredaction:\n  patterns:\n    - {label: a, regexp: x}\n    - {label: a, regexp: y}\n", "tessera.yaml:3:1: redaction: "},
		{"tasks: t\nworkflows: w\nredaction:\n  pattern: []\n", `tessera.yaml:4:3: redaction: unknown key "pattern"`},
		{"tasks: t\nworkflows: w\nbudget: 8000\n", "tessera.yaml:3:9: budget: want a mapping with model, context and reserve"},
		{"tasks: t\nworkflows: w\nbudget:\n  model: gpt-4o\n", `tessera.yaml:3:1: budget: missing key "context"`},
		{"tasks: t\nworkflows: w\nbudget:\n  context: 0\n", "tessera.yaml:4:12: budget.context: want a whole number of tokens above 0"},
		{"tasks: t\nworkflows: w\nbudget:\n  context: 8k\n", "tessera.yaml:4:12: budget.context: want a whole number of tokens above 0"},
		{"tasks: t\nworkflows: w\nbudget:\n  context: 100\n  reserve: -1\n", "tessera.yaml:5:12: budget.reserve: want a whole number of tokens"},
		{"tasks: t\nworkflows: w\nbudget:\n  context: 100\n  reserve: 100\n", "tessera.yaml:5:3: budget: reserve 100 leaves nothing of the 100-token context"},
		{"tasks: t\nworkflows: w\nbudget:\n  context: 100\n  model: llama-3\n", `tessera.yaml:5:10: budget.model: unknown model "llama-3"`},
		{"tasks: t\nworkflows: w\nbudget:\n  context: 100\n  modle: gpt-4o\n", `tessera.yaml:5:3: budget: unknown key "modle": the keys are model, context, reserve`},
		{"tasks: t\nworkflows: w\nbudget:\n  context: 100\n  context: 200\n", `tessera.yaml:5:3: key "budget.context" is repeated (first at line 4): keep one`},
	}
	for _, tt := range tests {
		_, err := ParseConfig("tessera.yaml", []byte(tt.src), testSections...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant %s", tt.src, err, tt.want)
		}
	}
}

// testSections are the sections the built-in presets own, as a program
// with presets.Default passes them.
var testSections = []Section{{Key: "specs", Doc: "specs"}, {Key: "typed", Doc: "typed"}, {Key: "layered", Doc: "layered"}}

// TestParseConfigSections checks the keys presets own: read as paths
// with their line, listed among the keys in messages, enough for a
// catalog on their own, and unknown to a parser not given them.
func TestParseConfigSections(t *testing.T) {
	cfg, err := ParseConfig("tessera.yaml", []byte("version: 1\nspecs: canonical/\nlayered: .\n"), testSections...)
	if err != nil {
		t.Fatalf("a catalog of preset sections alone: %v", err)
	}
	if cfg.Section("specs") != "canonical" || cfg.Section("layered") != "." || cfg.Section("typed") != "" {
		t.Errorf("sections: specs %q, layered %q, typed %q", cfg.Section("specs"), cfg.Section("layered"), cfg.Section("typed"))
	}
	if cfg.Line("specs") != 2 || cfg.Col("specs") != 1 || cfg.Line("layered") != 3 {
		t.Errorf("specs at %d:%d, layered at line %d", cfg.Line("specs"), cfg.Col("specs"), cfg.Line("layered"))
	}
	for _, tt := range []struct{ src, want string }{
		{"specs: ../x\n", `tessera.yaml:1:8: specs: path "../x" leaves the catalog root`},
		{"specs: [a]\n", "tessera.yaml:1:8: specs: want a path string relative to the catalog root"},
		{"specs: s\ntasks: t\n", `tessera.yaml: missing key "workflows"`},
		{"specs: s\nspecs: t\n", `tessera.yaml:2:1: key "specs" is repeated (first at line 1): keep one`},
		{"specs:\n", `tessera.yaml: missing key "tasks"`}, // null is absent, as for every key
		{"tasks: t\nworkflows: w\nspec: s\n", `tessera.yaml:3:1: unknown key "spec": the keys are version, tasks, workflows, template_extensions, log, log_key_env, out, specs, typed, layered, budget,`},
	} {
		_, err := ParseConfig("tessera.yaml", []byte(tt.src), testSections...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant %s", tt.src, err, tt.want)
		}
	}
	// Without the presets' sections, their keys are unknown.
	_, err = ParseConfig("tessera.yaml", []byte("tasks: t\nworkflows: w\nspecs: s\n"))
	if want := `tessera.yaml:3:1: unknown key "specs": the keys are version, tasks, workflows, template_extensions, log, log_key_env, out, budget,`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("specs with no sections given:\n got %v\nwant %s", err, want)
	}
	for _, tt := range []struct {
		sections []Section
		want     string
	}{
		{[]Section{{Key: "Specs"}}, `section key "Specs": use lower-case letters`},
		{[]Section{{Key: ""}}, `section key "": use lower-case letters`},
		{[]Section{{Key: "budget"}}, `section key "budget" is one of tessera.yaml's own keys`},
		{[]Section{{Key: "specs"}, {Key: "specs"}}, `section key "specs" is given twice`},
	} {
		if _, err := ParseConfig("tessera.yaml", []byte("tasks: t\nworkflows: w\n"), tt.sections...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("sections %v: got %v, want %s", tt.sections, err, tt.want)
		}
	}
}

func TestParseConfigReportsEveryProblem(t *testing.T) {
	_, err := ParseConfig("tessera.yaml", []byte("a: 1\nb: 2\ntasks: ../x\n"))
	if err == nil {
		t.Fatal("no error")
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 4 { // a, b, tasks, missing workflows
		t.Errorf("got %d problems:\n%v", n, err)
	}
}

func TestParseConfigRefusesYAMLOnlyLineBreaks(t *testing.T) {
	_, err := ParseConfig("tessera.yaml", []byte("tasks: t\nworkflows: w\u2028\n"))
	if err == nil || err.Error() != `tessera.yaml:2:13: holds the character U+2028, which YAML reads as a line break: remove it, or write it as \u2028 inside a double-quoted string` {
		t.Errorf("err = %v", err)
	}
}

// TestParseConfigModels checks the models: key: a correction keeps the
// rest of the row it corrects, a new model gives its provider, and each
// entry is where the table looks first.
func TestParseConfigModels(t *testing.T) {
	cfg, err := ParseConfig("tessera.yaml", []byte(`tasks: t
workflows: w
models:
  gpt-4o-2024-05-13:
    max_output_tokens: 2048
  acme-llm*:
    provider: openai
    tools: true
    structured_output: true
    tools_with_json_output: true
    unsupported_keywords: [minimum, "minItems>1"]
    context_window: 32768
    max_output_tokens: 4096
    note: served by our gateway
  claude-sonnet-4-5:
    unsupported_keywords: []
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Models == nil {
		t.Fatal("no model table")
	}
	m, _, ok := cfg.Models.Lookup("gpt-4o-2024-05-13")
	if !ok || m.MaxOutputTokens != 2048 || m.ContextWindow != 128000 || m.StructuredOutput || m.Source != "tessera.yaml:4" {
		t.Errorf("correction: %+v", m)
	}
	m, _, ok = cfg.Models.Lookup("acme-llm-large")
	if !ok || m.Provider != "openai" || !m.StructuredOutput || m.StrictTools || m.Keywords().String() != "minimum, minItems>1" || m.Note != "served by our gateway" || !m.Tools || m.Source != "tessera.yaml:6" {
		t.Errorf("new model: %+v", m)
	}
	m, _, _ = cfg.Models.Lookup("claude-sonnet-4-5-20250929")
	if m.Keywords().Len() != 0 || !m.StructuredOutput {
		t.Errorf("an empty keyword list did not replace the row's: %+v", m)
	}
	if m, _, _ := cfg.Models.Lookup("claude-haiku-4-5"); m.Keywords().Len() == 0 {
		t.Error("other rows changed")
	}
	if cfg, _ := ParseConfig("tessera.yaml", []byte("tasks: t\nworkflows: w\n")); cfg.Models != nil {
		t.Error("a table without a models key")
	}
}

func TestParseConfigModelsErrors(t *testing.T) {
	const head = "tasks: t\nworkflows: w\nmodels:\n"
	tests := []struct{ src, want string }{
		{head + "  - gpt-4o\n", "tessera.yaml:4:3: models: want a mapping of model names to what they accept, found a list"},
		{head + "  gpt-4o: 4096\n", "tessera.yaml:4:11: models.gpt-4o: want a mapping of what the model accepts"},
		{head + "  GPT-4o:\n    max_output_tokens: 1\n", `tessera.yaml:4:3: models: model pattern "GPT-4o": use lower-case letters`},
		{head + "  acme:\n    max_output_tokens: 1\n", `tessera.yaml:4:3: models.acme: model "acme" is not in Tessera's table: give its provider (openai, anthropic, gemini)`},
		{head + "  acme:\n    provider: azure\n", "tessera.yaml:5:15: models.acme.provider: want one of openai, anthropic, gemini"},
		{head + "  gpt-4o:\n    max_output_tokens: -5\n", "tessera.yaml:5:24: models.gpt-4o.max_output_tokens: want a whole number of tokens, or 0 for not recorded"},
		{head + "  gpt-4o:\n    max_output_tokns: 5\n", `tessera.yaml:5:5: models.gpt-4o: unknown key "max_output_tokns": the keys are provider, tools, structured_output`},
		{head + "  gpt-4o:\n    structured_output: maybe\n", "tessera.yaml:5:24: models.gpt-4o.structured_output: want true or false"},
		{head + "  gpt-4o:\n    unsupported_keywords: [min imum]\n", `tessera.yaml:5:27: models.gpt-4o.unsupported_keywords: keyword rule "min imum"`},
		{head + "  gpt-4o:\n    unsupported_keywords: minimum\n", "tessera.yaml:5:27: models.gpt-4o.unsupported_keywords: want a list of JSON Schema keywords"},
		{head + "  gpt-4o:\n    context_window: 100\n", "tessera.yaml:4:3: models.gpt-4o: gpt-4o: max_output_tokens 16384 is more than the context window 100"},
		{head + "  gpt-4o:\n    note: a\n  gpt-4o:\n    note: b\n", `tessera.yaml:6:3: key "models.gpt-4o" is repeated (first at line 4): keep one`},
		{"tasks: t\nworkflows: w\nmodels: yes\n", "tessera.yaml:3:9: models: want a mapping of model names to what they accept"},
	}
	for _, tt := range tests {
		_, err := ParseConfig("tessera.yaml", []byte(tt.src), testSections...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant %s", tt.src, err, tt.want)
		}
	}
}
