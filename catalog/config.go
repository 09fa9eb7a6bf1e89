package catalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/include"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/tokenizer"
)

// ConfigFile is the name of the file that marks a catalog's root.
const ConfigFile = "tessera.yaml"

// Config is a catalog's tessera.yaml. Paths are slash-separated and
// relative to the catalog root.
type Config struct {
	// Version is the config format version; 1 is the only one so far.
	Version int
	// Tasks is the directory of task templates (key "tasks", required).
	Tasks string
	// Workflows is the directory of workflow JSON files (key "workflows",
	// required).
	Workflows string
	// Specs is a directory of canonical prompt specs (key "specs",
	// optional) that compile assembles beside the workflow nodes.
	Specs string
	// TemplateExtensions are the file extensions a task_ref may omit, tried
	// in order (key "template_extensions"; default .txt, .md, .prompt).
	TemplateExtensions []string
	// Log is the audit log every assembly appends to (key "log"); empty
	// means no log unless the caller names one.
	Log string
	// Out is where compile writes (key "out"; default build/prompts).
	Out string
	// Budget, when set (key "budget"), is the token budget every prompt
	// must fit: compile fails on a node that does not, and assemble
	// applies it unless told otherwise.
	Budget *BudgetConfig
	// Redaction (key "redaction") configures what is redacted from
	// canonical specs before rendering and logging; nil means the
	// built-in patterns.
	Redaction *RedactionConfig
	// Limits (key "limits") caps what Tessera reads and produces; unset
	// fields hold the defaults.
	Limits Limits

	// lines holds the line of each top-level key, for diagnostics.
	lines map[string]int
}

// Line returns the line of the top-level key in tessera.yaml, or 0 when
// the key is not there.
func (c Config) Line(key string) int { return c.lines[key] }

// Limits is tessera.yaml's "limits" key. Sizes are whole numbers of bytes,
// or numbers with a unit (KiB, MiB, GiB, KB, MB, GB):
//
//	limits:
//	  max_file_bytes: 16MiB    # the largest file Tessera reads
//	  max_output_bytes: 8MiB   # the largest prompt an assembly produces
type Limits struct {
	// MaxFileBytes caps every file read: templates, includes, workflows,
	// specs, and the files named on the command line.
	MaxFileBytes int64
	// MaxOutputBytes caps an assembled prompt; a template's includes are
	// counted as they are loaded, so a catalog over the cap fails before
	// the prompt is built.
	MaxOutputBytes int64
}

// The default limits.
const (
	DefaultMaxFileBytes   int64 = fileread.DefaultMaxBytes
	DefaultMaxOutputBytes int64 = 8 << 20
)

// DefaultLimits returns the limits in force when tessera.yaml sets none.
func DefaultLimits() Limits {
	return Limits{MaxFileBytes: DefaultMaxFileBytes, MaxOutputBytes: DefaultMaxOutputBytes}
}

// DefaultTemplateExtensions are the extensions tried when tessera.yaml
// names none.
var DefaultTemplateExtensions = []string{".txt", ".md", ".prompt"}

// BudgetConfig is tessera.yaml's "budget" key:
//
//	budget:
//	  model: gpt-4o      # whose tokenizer counts (see tokenizer.ForModel)
//	  context: 8000      # the model's context window, in tokens
//	  reserve: 1000      # kept for the reply
type BudgetConfig struct {
	Model   string
	Context int
	Reserve int
	// Line is the line of the "budget" key, for diagnostics.
	Line int
}

// RedactionConfig is tessera.yaml's "redaction" key:
//
//	redaction:
//	  defaults: true            # keep the built-in patterns (default true)
//	  patterns:
//	    - label: employee-id
//	      regexp: 'EMP-[0-9]{6}'
//	      personal: true        # only in conversation state, like e-mail
type RedactionConfig struct {
	Defaults bool
	Patterns []guard.Pattern
	// Line is the line of the "redaction" key, for diagnostics.
	Line int
}

// Redactor returns the redactor the config describes.
func (r *RedactionConfig) Redactor() (*guard.Redactor, error) {
	if r == nil {
		return guard.Default(), nil
	}
	return guard.NewRedactor(r.Patterns, r.Defaults)
}

// DefaultOut is the compile output directory when tessera.yaml names none.
const DefaultOut = "build/prompts"

var configKeys = []string{"version", "tasks", "workflows", "template_extensions", "log", "out", "specs", "budget", "redaction", "limits"}

// ParseConfig parses the tessera.yaml file content data, normalised first
// (see prompt.Normalize); name is used in diagnostics. Unknown keys, wrong types, missing required keys and paths
// that leave the root are errors naming the key and its line; every
// problem is reported, as a diag.List.
func ParseConfig(name string, data []byte) (*Config, error) {
	top, err := yamldoc.Parse(name, data)
	if err != nil {
		return nil, err
	}
	cfg := &Config{Version: 1, Limits: DefaultLimits(), lines: map[string]int{}}
	var errs diag.List
	if top == nil {
		return nil, diag.List{diag.Errorf(name, 0, "empty: name the task and workflow directories, for example\n  tasks: prompts/tasks\n  workflows: workflows")}
	}
	m := top
	if m.Kind != yaml.MappingNode {
		return nil, diag.List{diag.Errorf(name, m.Line, "want a mapping of keys to values at the top level")}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := k.Value
		if seen[key] {
			errs = append(errs, diag.Errorf(name, k.Line, "key %q is repeated: keep one", key))
			continue
		}
		seen[key] = true
		cfg.lines[key] = k.Line
		switch key {
		case "version":
			n, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || n != 1 {
				errs = append(errs, diag.Errorf(name, v.Line, "version: want 1, the only config version so far"))
			}
			cfg.Version = 1
		case "tasks", "workflows", "log", "out", "specs":
			p, err := pathValue(v)
			if err != nil {
				errs = append(errs, diag.Errorf(name, v.Line, "%s: %v", key, err))
				continue
			}
			switch key {
			case "tasks":
				cfg.Tasks = p
			case "workflows":
				cfg.Workflows = p
			case "log":
				cfg.Log = p
			case "out":
				cfg.Out = p
			case "specs":
				cfg.Specs = p
			}
		case "budget":
			b, berrs := budgetValue(name, k.Line, v)
			errs = append(errs, berrs...)
			cfg.Budget = b
		case "redaction":
			r, rerrs := redactionValue(name, k.Line, v)
			errs = append(errs, rerrs...)
			cfg.Redaction = r
		case "limits":
			l, lerrs := limitsValue(name, k.Line, v)
			errs = append(errs, lerrs...)
			cfg.Limits = l
		case "template_extensions":
			exts, err := extensionsValue(v)
			if err != nil {
				errs = append(errs, diag.Errorf(name, v.Line, "template_extensions: %v", err))
				continue
			}
			cfg.TemplateExtensions = exts
		default:
			errs = append(errs, diag.Errorf(name, k.Line, "unknown key %q: the keys are %s", key, strings.Join(configKeys, ", ")))
		}
	}
	if cfg.Tasks == "" && !seen["tasks"] {
		errs = append(errs, diag.Errorf(name, 0, "missing key \"tasks\": name the directory of task templates, relative to the catalog root"))
	}
	if cfg.Workflows == "" && !seen["workflows"] {
		errs = append(errs, diag.Errorf(name, 0, "missing key \"workflows\": name the directory of workflow JSON files, relative to the catalog root"))
	}
	if cfg.TemplateExtensions == nil {
		cfg.TemplateExtensions = slices.Clone(DefaultTemplateExtensions)
	}
	if cfg.Out == "" {
		cfg.Out = DefaultOut
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return cfg, nil
}

func pathValue(v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		return "", fmt.Errorf("want a path string relative to the catalog root")
	}
	if v.Value == "." {
		return ".", nil
	}
	return include.CleanPath(v.Value)
}

func extensionsValue(v *yaml.Node) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("want a list such as [.txt, .md]")
	}
	exts := []string{}
	for _, e := range v.Content {
		if e.Kind != yaml.ScalarNode || !strings.HasPrefix(e.Value, ".") || len(e.Value) < 2 || strings.ContainsAny(e.Value, "/\\") {
			return nil, fmt.Errorf("line %d: want an extension starting with a dot, such as .txt", e.Line)
		}
		exts = append(exts, e.Value)
	}
	if len(exts) == 0 {
		return nil, fmt.Errorf("the list is empty: name at least one extension, such as .txt")
	}
	return exts, nil
}

// budgetValue parses the "budget" mapping: model, context and reserve.
func budgetValue(name string, line int, v *yaml.Node) (*BudgetConfig, []*diag.Error) {
	if v.Kind != yaml.MappingNode {
		return nil, []*diag.Error{diag.Errorf(name, line, "budget: want a mapping with model, context and reserve")}
	}
	b := &BudgetConfig{Model: "gpt-4o", Line: line}
	var errs []*diag.Error
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if seen[k.Value] {
			errs = append(errs, diag.Errorf(name, k.Line, "budget.%s is repeated", k.Value))
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "model":
			if val.Kind != yaml.ScalarNode || val.Tag != "!!str" {
				errs = append(errs, diag.Errorf(name, val.Line, "budget.model: want a model name such as gpt-4o"))
				continue
			}
			if _, err := tokenizer.ForModel(val.Value); err != nil {
				errs = append(errs, diag.Errorf(name, val.Line, "budget.model: %v", err))
				continue
			}
			b.Model = val.Value
		case "context", "reserve":
			n, err := strconv.Atoi(val.Value)
			if val.Kind != yaml.ScalarNode || val.Tag != "!!int" || err != nil || n < 0 || (k.Value == "context" && n == 0) {
				errs = append(errs, diag.Errorf(name, val.Line, "budget.%s: want a whole number of tokens%s", k.Value, map[bool]string{true: " above 0", false: ""}[k.Value == "context"]))
				continue
			}
			if k.Value == "context" {
				b.Context = n
			} else {
				b.Reserve = n
			}
		default:
			errs = append(errs, diag.Errorf(name, k.Line, "budget: unknown key %q: the keys are model, context, reserve", k.Value))
		}
	}
	if !seen["context"] && len(errs) == 0 {
		errs = append(errs, diag.Errorf(name, line, "budget: missing key \"context\": give the model's context window in tokens"))
	}
	if b.Context > 0 && b.Reserve >= b.Context {
		errs = append(errs, diag.Errorf(name, line, "budget: reserve %d leaves nothing of the %d-token context", b.Reserve, b.Context))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return b, nil
}

// redactionValue parses the "redaction" mapping and checks its patterns
// by building the redactor.
func redactionValue(name string, line int, v *yaml.Node) (*RedactionConfig, []*diag.Error) {
	if v.Kind != yaml.MappingNode {
		return nil, []*diag.Error{diag.Errorf(name, line, "redaction: want a mapping with defaults and patterns")}
	}
	r := &RedactionConfig{Defaults: true, Line: line}
	var errs []*diag.Error
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		switch k.Value {
		case "defaults":
			if val.Kind != yaml.ScalarNode || val.Tag != "!!bool" {
				errs = append(errs, diag.Errorf(name, val.Line, "redaction.defaults: want true or false"))
				continue
			}
			r.Defaults = val.Value == "true"
		case "patterns":
			if val.Kind != yaml.SequenceNode {
				errs = append(errs, diag.Errorf(name, val.Line, "redaction.patterns: want a list of {label, regexp, personal}"))
				continue
			}
			for _, item := range val.Content {
				var p guard.Pattern
				if err := item.Decode(&p); err != nil || item.Kind != yaml.MappingNode {
					errs = append(errs, diag.Errorf(name, item.Line, "redaction.patterns: want {label, regexp, personal}"))
					continue
				}
				for j := 0; j+1 < len(item.Content); j += 2 {
					if f := item.Content[j].Value; f != "label" && f != "regexp" && f != "personal" {
						errs = append(errs, diag.Errorf(name, item.Content[j].Line, "redaction.patterns: unknown key %q: the keys are label, regexp, personal", f))
					}
				}
				if _, err := guard.NewRedactor([]guard.Pattern{p}, false); err != nil {
					errs = append(errs, diag.Errorf(name, item.Line, "redaction.patterns: %v", err))
					continue
				}
				r.Patterns = append(r.Patterns, p)
			}
		default:
			errs = append(errs, diag.Errorf(name, k.Line, "redaction: unknown key %q: the keys are defaults, patterns", k.Value))
		}
	}
	if len(errs) == 0 {
		if _, err := r.Redactor(); err != nil {
			errs = append(errs, diag.Errorf(name, line, "redaction: %v", err))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return r, nil
}

// limitsValue parses the "limits" mapping.
func limitsValue(name string, line int, v *yaml.Node) (Limits, []*diag.Error) {
	l := DefaultLimits()
	if v.Kind != yaml.MappingNode {
		return l, []*diag.Error{diag.Errorf(name, line, "limits: want a mapping with max_file_bytes and max_output_bytes")}
	}
	var errs []*diag.Error
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		var dst *int64
		switch k.Value {
		case "max_file_bytes":
			dst = &l.MaxFileBytes
		case "max_output_bytes":
			dst = &l.MaxOutputBytes
		default:
			errs = append(errs, diag.Errorf(name, k.Line, "limits: unknown key %q: the keys are max_file_bytes, max_output_bytes", k.Value))
			continue
		}
		n, err := byteSize(val)
		if err != nil {
			errs = append(errs, diag.Errorf(name, val.Line, "limits.%s: %v", k.Value, err))
			continue
		}
		*dst = n
	}
	return l, errs
}

// maxLimit is the largest size a limit may be set to (1 GiB).
const maxLimit = 1 << 30

// byteSize reads a size: a whole number of bytes, or a number with a unit.
func byteSize(v *yaml.Node) (int64, error) {
	bad := fmt.Errorf("want a size in bytes, such as 16777216 or 16MiB, from 1 byte to 1GiB")
	if v.Kind != yaml.ScalarNode {
		return 0, bad
	}
	s := strings.TrimSpace(v.Value)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > maxLimit/mult {
		return 0, bad
	}
	return n * mult, nil
}
