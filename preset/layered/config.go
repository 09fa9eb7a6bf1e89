package layered

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/guard/injection"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/schema"
)

//go:embed defaults
var defaults embed.FS

// modes are the modes a prompt is built for.
var modes = []string{"plan", "act", "review"}

// Setup is a layered prompt's fixed parts, from a directory: the
// constitution and rules (text), and layered.yaml (limits, scores, modes,
// the tools and skills manifests, injection examples).
type Setup struct {
	// Constitution is the immutable part, always first.
	Constitution string
	// Rules are general rules; ModeRules each mode's own.
	Rules     string
	ModeRules map[string]string
	// Limits cap what is selected.
	Limits Limits
	// Scores are the similarity thresholds.
	Scores Scores
	// Concepts find the concepts a task names (the built-in ones and
	// layered.yaml's concepts:).
	Concepts   *Concepts
	conceptIDF map[string]float64 // see conceptIDF
	ranker     *toolRanker        // the ranker laid out for Tools
	rankSpace  string             // the vector space it was fitted in (rankModel.Embedder)
	byKeywords bool               // whether the catalog is found by its keywords (FoundByKeywords)
	lexicon    *lexicon           // the words of Tools
	assoc      *assocIndex        // the headwords and associated words the Tools name
	// ModeSpecs are each mode's keywords, base tools and base skills.
	ModeSpecs map[string]ModeSpec
	// Tools and Skills are the capability manifests.
	Tools, Skills []Capability
	// Injection are examples of injection: the built-in ones and the
	// directory's own. An entry that holds one, normalised, or whose
	// vector is as similar as Scores.InjectionMin to one, is dropped.
	Injection []string
	// InjectionPatterns extend the injection detector's pattern bank
	// (layered.yaml's injection_patterns).
	InjectionPatterns []injection.Pattern
	// Classifier, when set, is a classifier served over HTTP that scores
	// untrusted entries beside the built-in detector
	// (layered.yaml's injection_classifier).
	Classifier *Classifier
	// fixtures are tasks compile builds prompts for, to check the setup.
	fixtures []fixture
	// Embedder is layered.yaml's embedder: which one selection uses.
	Embedder EmbedderConfig
	// Vectors are the manifest vectors made in advance (vectors.json),
	// or nil.
	Vectors *Vectors
	// Defaults name the layer files the setup leaves out, whose built-in
	// text stands in: "constitution.md", "rules.md".
	Defaults []string

	path string // layered.yaml's, for diagnostics
}

// fixture is a task of layered.yaml that compile builds a prompt for.
type fixture struct {
	Name        string `yaml:"name"`
	Task        string `yaml:"task"`
	Mode        string `yaml:"mode"`
	Interactive bool   `yaml:"interactive"`
	// Context is a context file, relative to the setup directory.
	Context string `yaml:"context"`

	line, col int
}

// Limits are the caps of selection.
type Limits struct {
	MaxTools    int `yaml:"max_tools"`
	MaxSkills   int `yaml:"max_skills"`
	MaxMemories int `yaml:"max_memories"`
	MaxActivity int `yaml:"max_activity"`
}

// Scores are the similarity thresholds of selection: a capability or an
// untrusted entry is kept at Min or MemoryMin and above; an entry as
// similar as InjectionMin to an injection example is dropped. They
// depend on the embedder: the defaults suit the built-in lexical one.
type Scores struct {
	Min          float64 `yaml:"min"`
	MemoryMin    float64 `yaml:"memory_min"`
	InjectionMin float64 `yaml:"injection_min"`
	// Injection is the injection detector's score (0 to 1) at which an
	// untrusted entry is dropped; the default is
	// injection.DefaultThreshold.
	Injection float64 `yaml:"injection"`
	// Ranker is the probability (0 to 1) at which the learned ranker
	// picks a tool; 0 turns the ranker off, and the rules alone pick.
	Ranker float64 `yaml:"ranker"`
	// RankerShare is the share (0 to 1) of the most probable tool's
	// probability that another tool needs for the ranker to pick it
	// beside it; 0 picks every tool from Ranker.
	RankerShare float64 `yaml:"ranker_share"`
}

// Classifier is a prompt-injection classifier served over HTTP in the
// form of text-embeddings-inference's /predict (see injection.HTTP).
type Classifier struct {
	// URL is its endpoint, such as http://localhost:8080/predict.
	URL string `yaml:"url"`
	// Labels are the labels that mean injection; empty means INJECTION,
	// JAILBREAK and MALICIOUS.
	Labels []string `yaml:"labels"`
	// APIKeyEnv names an environment variable whose value, when set, is
	// sent as a bearer token.
	APIKeyEnv string `yaml:"api_key_env"`
}

// ModeSpec is what a mode brings: the words that infer it from a task,
// and the tools and skills it always offers.
type ModeSpec struct {
	Keywords []string `yaml:"keywords"`
	Tools    []string `yaml:"tools"`
	Skills   []string `yaml:"skills"`
}

// Capability is a tool or a skill of a manifest.
type Capability struct {
	Name        string    `yaml:"name" json:"name"`
	Description string    `yaml:"description" json:"description"`
	Keywords    []string  `yaml:"keywords" json:"-"`
	Modes       []string  `yaml:"modes" json:"-"`
	Embedding   []float32 `yaml:"embedding" json:"-"`
	// Embedder names the vector space of Embedding (see
	// embed.Embedder.Name); empty means the setup's embedder.
	Embedder string `yaml:"embedder" json:"-"`

	line, col int
	concepts  []string // the concepts its text names
	// major are the concepts its name or keywords name; the others,
	// named only by its description, count minorWeight as much.
	major []string
	// glossed are the glossary's words for the keywords of its keyword
	// concept (see keywordTerms), each with its languages.
	glossed []glossTerm
}

// text is what a capability is embedded from.
func (c *Capability) text() string {
	s := c.Name + " " + c.Description
	for _, k := range c.Keywords {
		s += " " + k
	}
	return s
}

// nameAndKeywords is its name, its words apart, and its keywords.
func (c *Capability) nameAndKeywords() string {
	s := strings.NewReplacer("_", " ", "-", " ").Replace(c.Name)
	for _, k := range c.Keywords {
		s += " " + k
	}
	return s
}

func (c *Capability) inMode(mode string) bool {
	return len(c.Modes) == 0 || slices.Contains(c.Modes, mode) || slices.Contains(c.Modes, "any")
}

type setupDoc struct {
	Limits    Limits       `yaml:"limits"`
	Scores    scoresDoc    `yaml:"scores"`
	ModesNode nodeOf       `yaml:"modes"`
	Tools     []Capability `yaml:"tools"`
	Skills    []Capability `yaml:"skills"`
	Injection []string     `yaml:"injection"`
	Fixtures  []fixture    `yaml:"fixtures"`
	Embedder  nodeOf       `yaml:"embedder"`
	// InjectionPatterns and Classifier: see Setup.
	InjectionPatterns []injection.Pattern `yaml:"injection_patterns"`
	Classifier        *Classifier         `yaml:"injection_classifier"`
	Concepts          nodeOf              `yaml:"concepts"`
}

type scoresDoc struct {
	Min          *float64 `yaml:"min"`
	MemoryMin    *float64 `yaml:"memory_min"`
	InjectionMin *float64 `yaml:"injection_min"`
	Injection    *float64 `yaml:"injection"`
	Ranker       *float64 `yaml:"ranker"`
	RankerShare  *float64 `yaml:"ranker_share"`
}

type nodeOf struct{ n *yaml.Node }

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (v *nodeOf) UnmarshalYAMLNode(_ *yamldoc.Decoder, n *yaml.Node, _ string) { v.n = n }

var (
	parser      = yamldoc.Parser{Columns: true}
	setupSchema = yamldoc.NewSchema[setupDoc](yamldoc.Options{Doc: "layered.yaml", Columns: true})
	modeSchema  = yamldoc.NewSchema[ModeSpec](yamldoc.Options{Doc: "layered.yaml", Columns: true})
)

// defaultLimits and defaultScores are used for what layered.yaml leaves
// out: 10 tools, 3 skills, 3 memories, 3 activity entries; min 0.2,
// memory_min 0.15, injection_min 0.5 (thresholds that suit the built-in
// lexical embedder). Never written to.
var (
	defaultLimits = Limits{MaxTools: 10, MaxSkills: 3, MaxMemories: 3, MaxActivity: 3}
	defaultScores = Scores{Min: 0.2, MemoryMin: 0.15, InjectionMin: 0.5, Injection: injection.DefaultThreshold, Ranker: defaultRankerThreshold, RankerShare: defaultRankerShare}
)

// ReadFunc reads the file name of a setup (a slash-separated path in the
// setup directory) and returns the path to name in diagnostics and its
// content; a file that does not exist is an error wrapping
// fs.ErrNotExist.
type ReadFunc func(name string) (path string, data []byte, err error)

// ParseSetup builds a setup from the files rd reads: constitution.md and
// rules.md (the built-in ones when left out, named in Setup.Defaults),
// rules/<mode>.md (optional), each at the top or under layers/;
// layered.yaml; and vectors.json (optional, see Vectors). Every problem
// in layered.yaml is reported at once, at its line and column. A nil rd
// is an error.
func ParseSetup(rd ReadFunc) (*Setup, error) {
	if rd == nil {
		return nil, errors.New("layered: no ReadFunc (nil): give one that reads the setup's files")
	}
	warmBuiltins()
	s := &Setup{Limits: defaultLimits, Scores: defaultScores, ModeRules: map[string]string{}, ModeSpecs: map[string]ModeSpec{}}
	if err := readLayers(rd, s); err != nil {
		return nil, err
	}
	path, data, err := rd("layered.yaml")
	if err != nil {
		return nil, err
	}
	s.path = path
	top, err := parser.ParseFile(path, data)
	if err != nil {
		return nil, err
	}
	var doc setupDoc
	d := setupSchema.Decode(path, top, &doc)
	errs := d.Errors()
	at := func(key, format string, args ...any) {
		line, col := d.Pos(key)
		errs = append(errs, diag.ErrorfAt(path, line, col, format, args...))
	}
	// A limit not written keeps its default; one written, even 0, is
	// the writer's.
	l := doc.Limits
	for _, f := range []struct {
		key string
		v   *int
		def int
	}{{"max_tools", &l.MaxTools, defaultLimits.MaxTools}, {"max_skills", &l.MaxSkills, defaultLimits.MaxSkills}, {"max_memories", &l.MaxMemories, defaultLimits.MaxMemories}, {"max_activity", &l.MaxActivity, defaultLimits.MaxActivity}} {
		if line, _ := d.Pos("limits." + f.key); line == 0 {
			*f.v = f.def
		} else if *f.v < 0 {
			at("limits."+f.key, "limits.%s: want 0 or more", f.key)
		}
	}
	s.Limits = l
	for _, f := range []struct {
		key string
		v   *float64
		dst *float64
	}{{"min", doc.Scores.Min, &s.Scores.Min}, {"memory_min", doc.Scores.MemoryMin, &s.Scores.MemoryMin}, {"injection_min", doc.Scores.InjectionMin, &s.Scores.InjectionMin}, {"injection", doc.Scores.Injection, &s.Scores.Injection}} {
		if f.v == nil {
			continue
		}
		if math.IsNaN(*f.v) || *f.v < -1 || *f.v > 1 {
			at("scores."+f.key, "scores.%s: %v is not a cosine similarity: want a number from -1 to 1", f.key, *f.v)
		}
		*f.dst = *f.v
	}
	if v := doc.Scores.Ranker; v != nil {
		if math.IsNaN(*v) || *v < 0 || *v >= 1 {
			at("scores.ranker", "scores.ranker: %v is not a probability the ranker can pick at: want 0 (rules alone) or more, and under 1", *v)
		}
		s.Scores.Ranker = *v
	}
	if v := doc.Scores.RankerShare; v != nil {
		if math.IsNaN(*v) || *v < 0 || *v > 1 {
			at("scores.ranker_share", "scores.ranker_share: %v is not a share of the best tool's probability: want a number from 0 (no share needed) to 1", *v)
		}
		s.Scores.RankerShare = *v
	}
	if n := doc.ModesNode.n; n != nil {
		if n.Kind != yaml.MappingNode {
			errs = append(errs, diag.ErrorfAt(path, n.Line, n.Column, "modes: want a mapping of plan, act and review to their keywords, tools and skills"))
		} else {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if !slices.Contains(modes, k.Value) {
					errs = append(errs, diag.ErrorfAt(path, k.Line, k.Column, "modes: unknown mode %q: the modes are plan, act and review", k.Value))
					continue
				}
				var ms ModeSpec
				md := modeSchema.Decode(path, v, &ms)
				errs = append(errs, md.Errors()...)
				s.ModeSpecs[k.Value] = ms
			}
		}
	}
	s.Tools, s.Skills = doc.Tools, doc.Skills
	for _, list := range []struct {
		key  string
		caps []Capability
	}{{"tools", s.Tools}, {"skills", s.Skills}} {
		seen := map[string]bool{}
		for i, c := range list.caps {
			cat := fmt.Sprintf("%s[%d]", list.key, i)
			list.caps[i].line, list.caps[i].col = d.Pos(cat)
			switch {
			case c.Name == "":
				at(cat, "%s %d has no name", list.key, i+1)
			case seen[c.Name]:
				at(cat+".name", "%s: %q is listed twice", list.key, c.Name)
			case list.key == "tools" && schema.CheckToolName(c.Name) != nil:
				at(cat+".name", "tools: %q: %v", c.Name, schema.CheckToolName(c.Name))
			}
			seen[c.Name] = true
			for _, m := range c.Modes {
				if m != "any" && !slices.Contains(modes, m) {
					at(cat+".modes", "%s %q: unknown mode %q: use plan, act, review or any", list.key, c.Name, m)
				}
			}
		}
	}
	for m, ms := range s.ModeSpecs {
		for _, t := range ms.Tools {
			if !slices.ContainsFunc(s.Tools, func(c Capability) bool { return c.Name == t }) {
				at("modes", "modes.%s.tools names %q, which tools: does not list", m, t)
			}
		}
		for _, k := range ms.Skills {
			if !slices.ContainsFunc(s.Skills, func(c Capability) bool { return c.Name == k }) {
				at("modes", "modes.%s.skills names %q, which skills: does not list", m, k)
			}
		}
	}
	seenFixture := map[string]bool{}
	for i, f := range doc.Fixtures {
		fat := fmt.Sprintf("fixtures[%d]", i)
		f.line, f.col = d.Pos(fat)
		switch {
		case d.Failed(fat):
			continue
		case !prompt.ValidKey(f.Name):
			at(fat, "fixture %d: name %q: use lower-case letters, digits, '.', '_' and '-' (it names the compiled file)", i+1, f.Name)
			continue
		case seenFixture[f.Name]:
			at(fat, "fixture %q is repeated", f.Name)
			continue
		case f.Task == "":
			at(fat, "fixture %q has no task", f.Name)
			continue
		}
		seenFixture[f.Name] = true
		if err := checkMode(f.Mode); err != nil {
			at(fat+".mode", "fixture %q: %v", f.Name, err)
			continue
		}
		s.fixtures = append(s.fixtures, f)
	}
	builtin, _ := defaults.ReadFile("defaults/injection.yaml")
	var patterns []string
	if err := yaml.Unmarshal(builtin, &patterns); err != nil {
		return nil, fmt.Errorf("layered: the built-in injection examples: %w", err)
	}
	s.Injection = append(patterns, doc.Injection...)
	var embErrs diag.List
	s.Embedder, embErrs = parseEmbedder(path, doc.Embedder.n)
	errs = append(errs, embErrs...)
	errs = append(errs, checkInline(s)...)
	if s.Vectors, err = readVectors(rd); err != nil {
		return nil, err
	}
	var extra map[string][]string
	if n := doc.Concepts.n; n != nil {
		if err := n.Decode(&extra); err != nil {
			at("concepts", "concepts: want a mapping of each concept to a list of its words: %v", err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		if strings.HasPrefix(name, keywordPrefix) {
			at("concepts", "concepts: %q: a name that starts with %q is a tool's own keywords' (see tessera layered concepts): name the concept without it", name, keywordPrefix)
		}
	}
	base, err := builtinConcepts()
	if err != nil {
		return nil, fmt.Errorf("layered: the built-in concepts: %w", err)
	}
	s.Concepts = base
	var glossed map[string][]glossTerm
	if len(extra) > 0 {
		if glossed, err = glossConcepts(extra); err != nil {
			return nil, fmt.Errorf("layered: the built-in glossary: %w", err)
		}
		s.Concepts = base.extended(extra, glossed)
	}
	if kw := keywordTerms(s.Concepts, s.Tools, s.Skills); len(kw) > 0 {
		gloss, err := builtinGlossary()
		if err != nil {
			return nil, fmt.Errorf("layered: the built-in glossary: %w", err)
		}
		kwGlossed := glossKeywords(kw, gloss, s.Tools, s.Skills)
		// The tools' keywords no concept names become concepts of their
		// own, read with the others (see keywordTerms).
		maps.Copy(kw, extra)
		maps.Copy(kwGlossed, glossed)
		s.Concepts = base.extended(kw, kwGlossed)
	}
	for _, caps := range [][]Capability{s.Tools, s.Skills} {
		for i := range caps {
			caps[i].concepts = s.Concepts.Of(caps[i].text())
			caps[i].major = s.Concepts.Of(caps[i].nameAndKeywords())
		}
	}
	s.conceptIDF = conceptIDF(s.Tools, s.Skills)
	s.byKeywords = foundByKeywords(s.Tools, s.Concepts)
	byKeywords := s.byKeywords
	go func() { _, _ = builtinFor(byKeywords) }() // read while the tools are indexed
	s.lexicon = newLexicon(s.Tools)
	assoc, err := builtinAssociations()
	if err != nil {
		return nil, fmt.Errorf("layered: the built-in associations: %w", err)
	}
	s.assoc = newAssocIndex(assoc, s.Tools)
	m, err := readRanker(rd, s.byKeywords)
	if err != nil {
		return nil, err
	}
	s.ranker, s.rankSpace = newToolRanker(m, s.Tools), m.Embedder
	if len(doc.InjectionPatterns) > 0 {
		if _, err := injection.New(doc.InjectionPatterns, nil); err != nil {
			at("injection_patterns", "%v: fix the pattern, or remove it", err)
		}
		s.InjectionPatterns = doc.InjectionPatterns
	}
	if c := doc.Classifier; c != nil {
		if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			at("injection_classifier.url", "injection_classifier.url: %q is not an http or https URL: give the classifier's endpoint, such as http://localhost:8080/predict", c.URL)
		}
		s.Classifier = c
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return s, nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// warmBuiltins starts reading, each in a goroutine of its own, the
// built-in data every setup reads once a process, in turn: its
// concepts, glossary, associations and mode model (the ranker, one of
// two, is started once the setup says which). A process that assembles
// once (the CLI) so reads them on every core, while ParseSetup reads
// the setup's own files; in one that has read them, each goroutine ends
// at once. What each returns, errors included, is what the setup gets
// when it asks.
func warmBuiltins() {
	for _, f := range [...]func(){
		func() { _, _ = builtinConcepts() },
		func() { _, _ = builtinAssociations() },
		func() { _, _ = builtinGlossary() },
		func() { _, _ = builtinModeModel() },
	} {
		go f()
	}
}

// JSONSchema returns the JSON Schema of layered.yaml, generated from the
// decoder that reads it (see yamldoc.Schema.JSONSchema).
func JSONSchema() []byte {
	return setupSchema.JSONSchema("https://tessera.dev/schemas/layered.schema.json", "layered.yaml")
}

// readRanker reads the setup's ranker.json, a ranker fitted to its
// catalog ("tessera layered fit"), or, when there is none, returns the
// built-in ranker.
func readRanker(rd ReadFunc, byKeywords bool) (*rankModel, error) {
	p, data, err := rd(rankerFile)
	if err != nil {
		if isNotExist(err) {
			m, err := builtinFor(byKeywords)
			if err != nil {
				return nil, fmt.Errorf("layered: the built-in ranker: %w", err)
			}
			return m, nil
		}
		return nil, err
	}
	m, err := parseRankModel(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: fit it again with tessera layered fit, or remove it to select with the built-in ranker", p, err)
	}
	return m, nil
}
