package tokenizer

import (
	"fmt"
	"github.com/tessera-dev/tessera/internal/suggest"
	"math"
	"strconv"
	"strings"
)

// Estimate counts tokens for models whose tokenizer is not public, by
// scaling an exact count from a public encoding by a calibrated factor and
// rounding up. It errs on the high side so that a prompt that fits by the
// estimate fits in practice; Exact reports false and Name says which
// estimate made the count.
type Estimate struct {
	name   string
	base   *Encoding
	factor float64
}

// NewEstimate returns an estimate called name that counts with base and
// multiplies by factor (at least 0.1), rounding up.
func NewEstimate(name string, base *Encoding, factor float64) (*Estimate, error) {
	if base == nil {
		return nil, fmt.Errorf("estimate %q: no base encoding", name)
	}
	if !(factor >= 0.1 && factor <= 10) {
		return nil, fmt.Errorf("estimate %q: factor %v is out of range: use a value between 0.1 and 10", name, factor)
	}
	return &Estimate{name: name, base: base, factor: factor}, nil
}

// Count returns the estimated token count of text.
func (e *Estimate) Count(text string) int {
	return int(math.Ceil(float64(e.base.Count(text)) * e.factor))
}

// Name returns the estimate's name, such as "estimate/anthropic".
func (e *Estimate) Name() string { return e.name }

// Exact reports false: an estimate is not the model's own tokenizer.
func (e *Estimate) Exact() bool { return false }

// Factors of the built-in estimates, relative to o200k_base. They were
// calibrated on this package's test corpus against the public tokenizers
// of each family (see docs/budgets.md): the ratio on code and mixed text
// was at most 1.22 for both, so 1.25 keeps the estimate above the true
// count for ordinary prompts.
//
// Claude Opus 4.7 brought a new tokenizer, which Anthropic says makes 1.0
// to 1.35 times as many tokens from the same text as before, and the
// models after it keep it. Anthropic47Factor is AnthropicFactor times
// 1.35, rounded up, for Claude 4.7 and later.
const (
	AnthropicFactor   = 1.25
	Anthropic47Factor = 1.7
	GeminiFactor      = 1.25
)

// Names of the built-in estimates.
const (
	AnthropicEstimate   = "estimate/anthropic"
	Anthropic47Estimate = "estimate/anthropic-4.7"
	GeminiEstimate      = "estimate/gemini"
)

// family maps a model-name prefix to a counter.
type family struct {
	prefix  string
	counter string // an encoding name, or "anthropic" / "gemini"
}

// families is checked in order; longer prefixes come before shorter ones
// that they extend.
var families = []family{
	{"gpt-5", O200kBaseName},
	{"gpt-4.1", O200kBaseName},
	{"gpt-4.5", O200kBaseName},
	{"gpt-4o", O200kBaseName},
	{"chatgpt-4o", O200kBaseName},
	{"gpt-oss", O200kBaseName},
	{"o1", O200kBaseName},
	{"o3", O200kBaseName},
	{"o4", O200kBaseName},
	{"codex", O200kBaseName},
	{"gpt-4", Cl100kBaseName},
	{"gpt-3.5", Cl100kBaseName},
	{"gpt-35", Cl100kBaseName},
	{"text-embedding-3", Cl100kBaseName},
	{"text-embedding-ada-002", Cl100kBaseName},
	{"claude", "anthropic"},
	{"gemini", "gemini"},
	{"gemma", "gemini"},
}

// ForModel returns the counter for a model: the exact encoding for
// OpenAI models (gpt-5, gpt-4.1, gpt-4o and the o-series use o200k_base;
// gpt-4 and gpt-3.5 use cl100k_base), a calibrated estimate for Anthropic
// (claude-*; a higher one from Claude 4.7, whose tokenizer makes more
// tokens) and Gemini (gemini-*, gemma-*) models. Any other model (Llama,
// Qwen, Mistral, DeepSeek...) counts exactly only with its own tokenizer
// file (package tokenizer/hf), which the engine looks up in tessera.yaml's
// tokenizers: or takes from --tokenizer. An encoding name
// ("o200k_base", "cl100k_base") is accepted as a model. A provider prefix
// such as "openai/" is ignored, and a version or date may follow the
// family name ("gpt-4o-2024-08-06", "gpt-5.1", "o3-mini"). An OpenAI
// fine-tuned model ("ft:gpt-4o-mini-2024-07-18:acme::9abc") counts as its
// base model, whose tokenizer it keeps.
func ForModel(model string) (Counter, error) {
	name := model
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimPrefix(strings.ToLower(name), "ft:")
	if e, err := EncodingNamed(name); err == nil {
		return e, nil
	}
	for _, f := range families {
		if !strings.HasPrefix(name, f.prefix) {
			continue
		}
		rest := name[len(f.prefix):]
		if rest != "" && !strings.ContainsRune("-.:@_", rune(rest[0])) {
			continue
		}
		if !knownSuffix(rest) {
			msg := fmt.Sprintf("unknown model %q: %s models are counted with their family's tokenizer, and %q is not a variant Tessera knows (a variant word, a version, a date or a size)", model, f.prefix, rest)
			if near := suggest.Nearest(name, knownModels); near != "" {
				msg += fmt.Sprintf(": did you mean %s?", near)
			}
			return nil, fmt.Errorf("%s; to count it with an encoding anyway, give the encoding as the model (%s, %s)", msg, O200kBaseName, Cl100kBaseName)
		}
		switch f.counter {
		case "anthropic":
			if claudeAtLeast47(name) {
				return CounterNamed(Anthropic47Estimate)
			}
			return CounterNamed(AnthropicEstimate)
		case "gemini":
			return CounterNamed(GeminiEstimate)
		}
		return EncodingNamed(f.counter)
	}
	return nil, fmt.Errorf("unknown model %q: use an OpenAI, Anthropic or Gemini model name (gpt-4o, gpt-5, o3, gpt-4, claude-sonnet-4-6, gemini-2.5-pro) or an encoding (%s, %s); to count any other model exactly, give its tokenizer file (--tokenizer FILE, or the model under tokenizers: in tessera.yaml)", model, O200kBaseName, Cl100kBaseName)
}

// Truncate cuts text at a token boundary of the base encoding so that
// the estimate of the prefix is at most max.
func (e *Estimate) Truncate(text string, max int) (string, int) {
	n := int(math.Floor(float64(max) / e.factor))
	for n >= 0 {
		prefix, _ := e.base.Truncate(text, n)
		if c := e.Count(prefix); c <= max {
			return prefix, c
		}
		n--
	}
	return "", 0
}

// CounterNamed returns the counter whose Name is name: an encoding
// ("o200k_base", "cl100k_base") or a built-in estimate
// ("estimate/anthropic", "estimate/anthropic-4.7", "estimate/gemini").
// Counters read from tokenizer files ("hf:...") are
// found through the configuration that names the file (see engine).
// Replay uses it to count with the counter a record names.
func CounterNamed(name string) (Counter, error) {
	switch name {
	case AnthropicEstimate:
		return NewEstimate(name, O200kBase(), AnthropicFactor)
	case Anthropic47Estimate:
		return NewEstimate(name, O200kBase(), Anthropic47Factor)
	case GeminiEstimate:
		return NewEstimate(name, O200kBase(), GeminiFactor)
	}
	e, err := EncodingNamed(name)
	if err != nil {
		return nil, fmt.Errorf("unknown counter %q: use %s, %s, %s, %s or %s", name, O200kBaseName, Cl100kBaseName, AnthropicEstimate, Anthropic47Estimate, GeminiEstimate)
	}
	return e, nil
}

// claudeAtLeast47 reports whether the Claude model name (lower case,
// "claude-" first) is of version 4.7 or later: the first number in it is
// the major version ("claude-opus-4-7", "claude-3-5-sonnet"), and a
// number of one or two digits right after it the minor; a date is not a
// version. A name with no version, or one it cannot read, counts as
// earlier.
func claudeAtLeast47(name string) bool {
	major, minor := -1, 0
	for part := range strings.FieldsFuncSeq(strings.TrimPrefix(name, "claude"), func(r rune) bool {
		return r == '-' || r == '.' || r == '_' || r == '@' || r == ':'
	}) {
		n, err := strconv.Atoi(part)
		if err != nil || len(part) > 2 {
			if major >= 0 {
				break
			}
			continue
		}
		if major < 0 {
			major = n
			continue
		}
		minor = n
		break
	}
	return major > 4 || major == 4 && minor >= 7
}

// MessageOverhead returns the tokens a chat request adds around the text
// of its messages: OpenAI's chat format spends 3 tokens framing each
// message and 1 on its role, and 3 priming the reply. Tessera uses the
// same figure for every provider; for Anthropic and Gemini it is an
// estimate.
func MessageOverhead(messages int) int {
	if messages <= 0 {
		return 0
	}
	return 4*messages + 3
}

// Framer is implemented by counters that know the chat framing of their
// model's template: the tokens a request adds around the text of its
// messages.
type Framer interface {
	// MessageOverhead returns the tokens the chat template adds for the
	// given number of messages, the reply's opening included.
	MessageOverhead(messages int) int
}

// OverheadFor returns c's own message overhead if it is a Framer, else
// MessageOverhead's.
func OverheadFor(c Counter, messages int) int {
	if f, ok := c.(Framer); ok {
		return f.MessageOverhead(messages)
	}
	return MessageOverhead(messages)
}

// variantWords are the words of the providers' model names that follow a
// family's name ("gpt-4o-mini", "claude-3-5-sonnet", "gemini-2.5-flash-lite").
var variantWords = map[string]bool{
	"mini": true, "nano": true, "pro": true, "turbo": true, "preview": true, "latest": true,
	"chat": true, "codex": true, "audio": true, "search": true, "realtime": true, "instruct": true,
	"high": true, "low": true, "medium": true, "max": true, "flash": true, "lite": true,
	"thinking": true, "exp": true, "experimental": true, "vision": true, "sonnet": true, "opus": true,
	"haiku": true, "instant": true, "oss": true, "it": true, "tts": true, "transcribe": true,
	"image": true, "embedding": true, "small": true, "large": true, "deep": true, "research": true,
	"v": true, "live": true, "native": true, "dialog": true, "001": true, "002": true,
}

// knownModels are names a misspelt model is compared with, for the
// suggestion of an error.
var knownModels = []string{
	"gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-5-pro", "gpt-5.1", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano",
	"gpt-4o", "gpt-4o-mini", "chatgpt-4o-latest", "gpt-oss-120b", "gpt-oss-20b", "o1", "o1-mini", "o3", "o3-mini", "o3-pro", "o4-mini",
	"gpt-4", "gpt-4-turbo", "gpt-3.5-turbo", "text-embedding-3-small", "text-embedding-3-large", "text-embedding-ada-002",
	"claude-opus-4-7", "claude-opus-4-6", "claude-sonnet-4-6", "claude-sonnet-4-5", "claude-haiku-4-5", "claude-3-5-sonnet", "claude-3-5-haiku",
	"gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-3-pro-preview", "gemma-3-27b-it",
}

// knownSuffix reports whether rest, what follows a family's name in a
// model name, is made of what model names hold there: variant words,
// versions and dates (digits), and sizes ("27b", "16k"). What follows a
// ':' (a fine-tuned model's organisation and name) is not checked.
func knownSuffix(rest string) bool {
	if i := strings.IndexByte(rest, ':'); i >= 0 {
		rest = rest[:i]
	}
	for _, w := range strings.FieldsFunc(rest, func(r rune) bool { return r == '-' || r == '.' || r == '_' || r == '@' }) {
		if variantWords[w] || isNumber(w) || isSize(w) {
			continue
		}
		return false
	}
	return true
}

func isNumber(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return w != ""
}

// isSize reports whether w is a number and a unit: "27b", "16k", "1m".
func isSize(w string) bool {
	return len(w) > 1 && isNumber(w[:len(w)-1]) && strings.ContainsRune("bkm", rune(w[len(w)-1]))
}
