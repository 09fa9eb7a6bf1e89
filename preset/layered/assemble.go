package layered

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/tessera-dev/tessera/embed"
	"github.com/tessera-dev/tessera/guard/injection"
	"github.com/tessera-dev/tessera/preset/layered/untrusted"
)

// Request is one layered assembly's own inputs.
type Request struct {
	// Task is what the user asks for.
	Task string
	// Mode is plan, act or review; empty or "auto" infers it.
	Mode string
	// Interactive hints the plan mode.
	Interactive bool
	// Context is the runtime state; nil for none.
	Context *untrusted.Context
}

// Selection is what one assembly chose, and why: the mode, the tools and
// skills, the untrusted entries kept, what was filtered out, and the
// metrics. It is the whole input of the layout, so a record that keeps
// it lays the prompt out again without the embedder.
type Selection struct {
	Task       string `json:"task"`
	Mode       string `json:"mode"`
	ModeReason string `json:"mode_reason"`
	Tools      []Pick `json:"tools"`
	Skills     []Pick `json:"skills"`
	// Concepts are the concepts the task names (see Concepts).
	Concepts []string `json:"concepts,omitempty"`
	// Passed are the best tools and skills not picked, with why.
	Passed  Picks    `json:"passed"`
	Context Selected `json:"context"`
	Metrics Metrics  `json:"metrics"`
	// Constitution and Rules are the texts of the trusted layers.
	Constitution string `json:"constitution"`
	Rules        string `json:"rules,omitempty"`
	// Defaults name the built-in layer files used (Setup.Defaults).
	Defaults []string `json:"defaults,omitempty"`
}

// Pick is a selected tool or skill.
type Pick struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Score       float64 `json:"score"`
	// Base marks one the mode always offers.
	Base bool `json:"base,omitempty"`
	// Why says how it was scored, and why it was or was not picked.
	Why string `json:"why,omitempty"`
}

// Picks are tools and skills with their scores and why: those a
// selection picked, or the best (at most five of each) it did not.
type Picks struct {
	Tools  []Pick `json:"tools,omitempty"`
	Skills []Pick `json:"skills,omitempty"`
}

// Selected is the context chosen for the prompt.
type Selected struct {
	Git      *untrusted.Git `json:"git"`
	Env      *untrusted.Env `json:"env"`
	Memories []Kept         `json:"memories"`
	Activity []Kept         `json:"activity"`
	// Filtered counts the untrusted entries dropped as instruction-like
	// (their kind) or as injection (the detector's score, or their
	// similarity to an example).
	Filtered int `json:"filtered_count"`
	// FilteredIDs names them and why: "memories/m3 (injection 0.92:
	// override, exfil (base64))", "activity/a1 (kind system)".
	FilteredIDs []string `json:"filtered,omitempty"`
}

// Kept is an untrusted entry kept, with its similarity to the task.
type Kept struct {
	ID    string  `json:"id"`
	Text  string  `json:"text"`
	Score float64 `json:"score"`
}

// Metrics describe the assembly's cost.
type Metrics struct {
	// Embedder names the vector space used.
	Embedder string `json:"embedder"`
	// EmbeddingCalls counts the embedder's calls this assembly made:
	// one for the task with any entry that came without a vector; none
	// when the task's vector was cached and every entry brought one; one
	// more the first time a setup's manifests are used without vectors
	// made in advance (and a failed call before the lexical embedder
	// stood in).
	EmbeddingCalls int `json:"embedding_calls"`
	// EntriesEmbedded counts the entries that came without a usable
	// vector and were embedded in that call.
	EntriesEmbedded int `json:"entries_embedded"`
	// Fallback says why the lexical embedder stood in, when it did.
	Fallback string `json:"fallback,omitempty"`
	// Ranker says why the ranker was off, when scores.ranker asked for
	// it: a ranker ranks only with the similarities it learned from
	// (see rankModel.Embedder), and the rules' picks stand.
	Ranker string `json:"ranker,omitempty"`
	// Detector names the injection detector; DetectorFallback says why
	// the built-in one stood in for it, when it did.
	Detector         string `json:"detector,omitempty"`
	DetectorFallback string `json:"detector_fallback,omitempty"`
}

// Assembler selects and lays out layered prompts for one setup. It keeps
// the manifests' and injection examples' vectors, computed once (or read
// from the manifests); it is safe for concurrent use.
type Assembler struct {
	// Setup is the fixed parts.
	Setup *Setup
	// Embedder embeds the task (and entries without vectors); nil means
	// the one the setup's layered.yaml names (see Setup.NewEmbedder), by
	// default the built-in lexical embed.Hash.
	Embedder embed.Embedder
	// Reembed embeds again, when the setup is first used, the manifest
	// vectors that came from another embedder or another text, or are of
	// another length, which are otherwise an error naming the entry.
	Reembed bool
	// Detector scores untrusted entries for injection; nil means the
	// built-in detector with the setup's patterns and examples, joined
	// by the setup's classifier when it names one.
	Detector injection.Detector

	detOnce sync.Once
	det     injection.Detector
	detErr  error

	space map[string]*vectors // by embedder name
	auto  embed.Embedder      // the setup's own, once made
	tasks embed.Cache         // the task vectors last made, 100 of them
	mu    sync.Mutex
	w     *weights // nil: defaultWeights
}

func (a *Assembler) weights() weights {
	if a.w != nil {
		return *a.w
	}
	return defaultWeights()
}

// vectors are a setup's vectors in one embedder's space, of dim numbers.
type vectors struct {
	tools, skills, injection []embed.Vector
	dim                      int
}

// Select makes the selection for req: the mode (explicit, else a hint,
// else a keyword of the task, else act), one embedding call for the task,
// the tools and skills (the mode's base ones, then the most similar, up
// to the limits), and the untrusted entries (instruction-like kinds and
// injection-like entries dropped and counted, then the most similar). If
// the embedder fails, the lexical one stands in and the metrics say why.
// An Assembler without a Setup is an error.
func (a *Assembler) Select(ctx context.Context, req Request) (*Selection, error) {
	if a == nil || a.Setup == nil {
		return nil, errNilSetup
	}
	s := a.Setup
	if strings.TrimSpace(req.Task) == "" {
		return nil, fmt.Errorf("the task is empty: say what the agent should do")
	}
	read := s.Concepts.ofTask(req.Task)
	mode, why, err := inferModeOf(s, req, read, true)
	if err != nil {
		return nil, err
	}
	sel := &Selection{Task: req.Task, Mode: mode, ModeReason: why, Constitution: s.Constitution, Tools: []Pick{}, Skills: []Pick{}, Defaults: slices.Clone(s.Defaults)}
	sel.Context.Memories, sel.Context.Activity = []Kept{}, []Kept{}
	rules := []string{strings.TrimSpace(s.Rules), strings.TrimSpace(s.ModeRules[mode])}
	rules = slices.DeleteFunc(rules, func(r string) bool { return r == "" })
	sel.Rules = strings.Join(rules, "\n\n")
	c := req.Context
	if c == nil {
		c = &untrusted.Context{}
	}
	sel.Context.Git, sel.Context.Env = c.Git, c.Env

	e, err := a.embedder()
	if err != nil {
		return nil, err
	}
	calls := &counted{Embedder: e}
	vecs, task, entryVecs, embedded, err := a.embed(ctx, calls, true, req.Task, c)
	if err != nil {
		if _, lexical := e.(embed.Hash); lexical || isSetupError(err) || ctx.Err() != nil {
			return nil, err
		}
		fb := embed.Hash{}
		sel.Metrics.Fallback = fmt.Sprintf("%s failed (%v): selected with %s", e.Name(), err, fb.Name())
		e, calls.Embedder = fb, fb
		if vecs, task, entryVecs, embedded, err = a.embed(ctx, calls, false, req.Task, c); err != nil {
			return nil, err
		}
	}
	sel.Metrics.Embedder, sel.Metrics.EmbeddingCalls, sel.Metrics.EntriesEmbedded = e.Name(), calls.n, embedded

	spec := s.ModeSpecs[mode]
	sel.Concepts = s.taskConcepts(req.Task, read, mode)
	concepts := sel.Concepts
	w := a.weights()
	tools := s.toolFit(w, vecs, task, req.Task, concepts)
	sel.Tools, sel.Passed.Tools = pick(w, s.Tools, tools, concepts, s.conceptIDF, mode, spec.Tools, s.Scores.Min, s.Limits.MaxTools, true)
	rank := s.Scores.Ranker > 0 && s.ranker != nil
	if rank {
		rank, sel.Metrics.Ranker = rankerFor(s.rankSpace, e)
	}
	if rank {
		if err := s.withHeadwords(&tools, req.Task); err != nil {
			return nil, err
		}
		in := rankFeatures(w, s.Tools, tools, concepts, mode, sel.Tools, spec.Tools, s.Scores.Min, false)
		explain := func(i int) (string, string) { return s.assoc.explain(tools.heads, i) }
		sel.Tools, sel.Passed.Tools = s.ranker.rerank(in, s.Tools, concepts, tools.headNames, mode, sel.Tools, s.rankCut(), s.Limits.MaxTools, explain)
	}
	sel.Skills, sel.Passed.Skills = pick(w, s.Skills, fitOf(w, s.Skills, vecs.skills, task, concepts, s.conceptIDF), concepts, s.conceptIDF, mode, spec.Skills, s.Scores.Min, s.Limits.MaxSkills, false)

	n := len(c.Memories)
	verdicts, err := a.detect(ctx, sel, c)
	if err != nil {
		return nil, err
	}
	sel.Context.Memories = a.keep(sel, "memories", c.Memories, entryVecs[:n], verdicts[:n], vecs.injection, task, s.Limits.MaxMemories)
	sel.Context.Activity = a.keep(sel, "activity", c.Activity, entryVecs[n:], verdicts[n:], vecs.injection, task, s.Limits.MaxActivity)
	return sel, nil
}

// taskConcepts are the concepts a task to be done in mode names, as
// selection weighs them: the concepts read holds (what ofTask read in
// the task), with what the mode and the task's files, folders and cues
// add or take away.
func (s *Setup) taskConcepts(task string, read []string, mode string) []string {
	words := embed.Words(task) // the task's words, read once for its cues
	concepts := recorded(read, mode, cue(task, words, reviewCues) != "", summary.MatchString(task), manifest.MatchString(task))
	if mode != "act" && fileName.MatchString(task) && !slices.Contains(concepts, "data") {
		// A task to plan or review that names a file reads it: "which
		// stage of our Dockerfile makes the image big?", "what version
		// of pgx is in go.mod?". One to act on it may create or edit it
		// instead, which its own words say; a data file ("users.json")
		// is the data tool's to load.
		concepts = s.Concepts.with(s.Concepts.with(concepts, fileConcept), readConcept)
	}
	if slices.Contains(concepts, "dependency") && versionNumber.MatchString(task) && !manifest.MatchString(task) {
		// A version number a task raises is the project's own, written
		// in a file, not a package's: "バージョン番号を上げてコミット",
		// "bump the version number in version.h".
		concepts = slices.DeleteFunc(concepts, func(x string) bool { return x == "dependency" })
		if mode == "act" {
			concepts = s.Concepts.with(concepts, "edit")
		}
	}
	inside := mode == "act" && inFile.MatchString(task) && !manifest.MatchString(task)
	if inside {
		// What a task to act does inside a file it names changes that
		// file: "ajoute un healthcheck dans docker-compose.yml", "在
		// docker-compose.yml 里加一个 redis 服务".
		if !slices.Contains(concepts, "branch") {
			// ... and what it adds there is no new file.
			concepts = slices.DeleteFunc(concepts, func(x string) bool { return x == createConcept })
		}
		// The packages it names there are what the file says, not
		// dependencies to change: "把 README 里的安装步骤更新一下，现在要用
		// pnpm 不用 npm 了" (a manifest is the dependency tool's, above).
		concepts = slices.DeleteFunc(concepts, func(x string) bool { return x == "dependency" })
		concepts = s.Concepts.with(concepts, "edit")
	}
	if mode == "act" && !inside && slices.Contains(concepts, "create") && !slices.Contains(concepts, "branch") && !slices.Contains(concepts, "dependency") && fileName.MatchString(task) {
		// What a task to act creates, when it names a file and neither a
		// branch nor a dependency, is a file: "cria um docker-compose.yml
		// com postgres e redis".
		concepts = s.Concepts.with(concepts, fileConcept)
	}
	if mode == "act" && (slices.Contains(concepts, "commit") || slices.Contains(concepts, "pullrequest")) && !slices.Contains(concepts, "edit") &&
		slices.Contains(read, "edit") && editVerb.MatchString(task) {
		// A change a task to act tells the agent to make before it
		// commits or opens a pull request is still to make (see
		// recorded, which drops the edit of a change already made, "the
		// fix", "さっきの修正"): "JSTに直してコミットまでやっといて",
		// "поправь там таймаут и закинь MR".
		concepts = s.Concepts.with(concepts, "edit")
	}
	if mode == "act" && slices.Contains(concepts, "column") && slices.Contains(concepts, createConcept) && !slices.Contains(concepts, "data") && !fileName.MatchString(task) {
		// A column a task to act adds, naming no file, is the
		// database's, even when the task does not say so: "给 merchants
		// 表加个 settlement_currency 字段" is a migration.
		concepts = s.Concepts.with(concepts, "migration")
	}
	if mode == "plan" && slices.Contains(concepts, "ci") && !ciState.MatchString(task) {
		// A plan about the pipeline that asks nothing of how its runs
		// went ("we're moving from Jenkins to GitHub Actions, how would
		// you go about it?") reads its configuration, not its status.
		concepts = slices.DeleteFunc(concepts, func(x string) bool { return x == "ci" })
		concepts = s.Concepts.with(s.Concepts.with(concepts, fileConcept), readConcept)
	}
	if mode != "act" && dirName.MatchString(task) && !hasAny(concepts, workedIn) {
		// A folder a task to plan or review names ("data/events/",
		// "deploy/") is looked into, what lies there listed, unless it
		// is where other work is done: linted, tested, changed,
		// searched ("passe golangci-lint sur le paquet api/").
		concepts = s.Concepts.with(concepts, "list")
	}
	if mode == "plan" && (slices.Contains(concepts, "search") || slices.Contains(concepts, "list")) && cue(task, words, proposalCues) != "" {
		// A plan to change the code proposed from where it stands reads
		// what it finds there, not only where it is: "look at how the
		// middleware is organised today and propose how to add rate
		// limiting".
		concepts = s.Concepts.with(concepts, readConcept)
	}
	if slices.Contains(concepts, greenConcept) {
		// Green is the pipeline's, unless it is the tests' ("confirm
		// the suite is still green locally").
		concepts = slices.DeleteFunc(concepts, func(x string) bool { return x == greenConcept })
		if !slices.Contains(concepts, "test") && cue(task, words, localCues) == "" {
			concepts = s.Concepts.with(concepts, "ci")
		}
	}
	if upgradesRuntime(mode, task, words, concepts) {
		// A project moved to a new version of its language or runtime
		// ("Migrar o projeto de Java 8 pra Java 17", "passe le projet de
		// Java 11 a Java 21", "Подними версию Java до 17 в pom") is built
		// and what breaks edited: no database migration, no port.
		concepts = slices.DeleteFunc(concepts, func(x string) bool { return x == "migration" })
		concepts = s.Concepts.with(s.Concepts.with(concepts, "build"), "edit")
	} else if mode == "act" && cue(task, words, portCues) != "" && language.MatchString(task) {
		// Code rewritten in another language is a new file written from
		// the old one, read first; the script it ports is not run, nor
		// its name ("migrate.sh") a migration: "Port
		// scripts/rotate_backups.sh to Python", "перепиши deploy.ps1 на
		// bash".
		concepts = slices.DeleteFunc(concepts, func(x string) bool { return x == "shell" || x == "migration" })
		concepts = s.Concepts.with(s.Concepts.with(s.Concepts.with(concepts, createConcept), fileConcept), readConcept)
	}
	if mode == "act" && !inside && slices.Contains(concepts, createConcept) && cue(task, words, settingCues) != "" &&
		!fileName.MatchString(task) && !hasAny(concepts, madeElsewhere) {
		// A setting or a flag added to the code is an edit of the files
		// that read it, found first, not a new file: "add a setting so
		// we can turn off the onboarding emails per tenant", "新加一个配置项
		// 控制导出条数上限".
		concepts = slices.DeleteFunc(concepts, func(x string) bool { return x == createConcept })
		concepts = s.Concepts.with(s.Concepts.with(concepts, "edit"), "search")
	}
	if mode != "act" && slices.Contains(concepts, "dependency") && !slices.Contains(concepts, "docker") &&
		!slices.ContainsFunc(concepts, func(x string) bool { return x != httpConcept && slices.Contains(workedIn, x) }) {
		// The dependencies a task to plan or review asks about, and not
		// where the code uses them nor what work is done on them (a
		// diff, a build, the linter), are read in their manifest
		// ("welche Drittanbieter-Pakete nutzt der Service, unter welchen
		// Lizenzen?"); an upgrade it weighs, or how far behind they are,
		// in their release notes on the web too ("what version of
		// psycopg do we have, and how much work would moving to 3 be?").
		if !slices.Contains(concepts, "search") {
			concepts = s.Concepts.with(s.Concepts.with(concepts, fileConcept), readConcept)
		}
		if cue(task, words, upgradeCues) != "" {
			concepts = s.Concepts.with(concepts, httpConcept)
		}
	}
	if !slices.Contains(concepts, "logs") && (slices.Contains(concepts, "debug") || slices.Contains(concepts, "performance")) &&
		!hasAny(concepts, checked) && !sourceFile.MatchString(task) && cue(task, words, runtimeCues) != "" {
		// An error or a slowness seen in production, or since a deploy,
		// is read in the logs of that time: "昨日のデプロイ以降、本番でエラーが
		// 増えてないか確認して", "the nightly export takes twice as long
		// since Tuesday's deploy". Unless it is a test's, a build's, the
		// pipeline's or the linter's, or a source file's the task names.
		concepts = s.Concepts.with(concepts, "logs")
	}
	if mode == "act" && slices.Contains(concepts, "debug") && !slices.Contains(concepts, "logs") && sourceFile.MatchString(task) {
		// A bug or an error a task to act finds in a source file it names
		// is fixed in the code, not looked for in the logs: "patch the
		// off-by-one-hour bug in scheduler/cron.go".
		concepts = slices.DeleteFunc(concepts, func(x string) bool { return x == "debug" })
	}
	return concepts
}

// InjectionDetector returns the detector the assembler scores untrusted
// entries with (see Assembler.Detector).
func (a *Assembler) InjectionDetector() (injection.Detector, error) {
	if a == nil || a.Setup == nil {
		return nil, errNilSetup
	}
	return a.detector()
}

// detector returns the assembly's injection detector: a.Detector, else
// the built-in one with the setup's patterns and examples, joined by the
// setup's classifier when it names one. It is made once.
func (a *Assembler) detector() (injection.Detector, error) {
	a.detOnce.Do(func() {
		if a.Detector != nil {
			a.det = a.Detector
			return
		}
		b, err := injection.New(a.Setup.InjectionPatterns, a.Setup.Injection)
		if err != nil {
			a.detErr = fmt.Errorf("layered: injection_patterns: %w", err)
			return
		}
		a.det = b
		if c := a.Setup.Classifier; c != nil {
			h := &injection.HTTP{URL: c.URL, Labels: c.Labels, Client: &http.Client{Timeout: 10 * time.Second}}
			if c.APIKeyEnv != "" {
				if key := os.Getenv(c.APIKeyEnv); key != "" {
					h.Header = http.Header{"Authorization": {"Bearer " + key}}
				}
			}
			a.det = injection.Any{b, h}
		}
	})
	return a.det, a.detErr
}

// detect scores every untrusted entry, memories then activity, in one
// call; an entry's id is scored with its text. When a classifier fails,
// the built-in detector scores them alone and the metrics say why.
func (a *Assembler) detect(ctx context.Context, sel *Selection, c *untrusted.Context) ([]injection.Verdict, error) {
	det, err := a.detector()
	if err != nil {
		return nil, err
	}
	texts := make([]string, 0, len(c.Memories)+len(c.Activity))
	for _, en := range c.Memories {
		texts = append(texts, en.ID+"\n"+en.Text)
	}
	for _, en := range c.Activity {
		texts = append(texts, en.ID+"\n"+en.Text)
	}
	sel.Metrics.Detector = det.Name()
	vs, err := det.Detect(ctx, texts)
	if err == nil {
		return vs, nil
	}
	if ctx.Err() != nil {
		return nil, err
	}
	all, ok := det.(injection.Any)
	if !ok || len(all) == 0 {
		return nil, fmt.Errorf("layered: injection detector %s: %w", det.Name(), err)
	}
	sel.Metrics.Detector, sel.Metrics.DetectorFallback = all[0].Name(), fmt.Sprintf("%s failed (%v): scored with %s alone", det.Name(), err, all[0].Name())
	return all[0].Detect(ctx, texts)
}

// weights are selection's weights: a shared concept adds concept
// times the share of the task's concepts a capability names to its
// similarity (a concept only its description names counts minor as
// much); a capability of another mode than the task's counts otherMode
// of its score; a candidate is picked at relative of the best
// candidate's score (and Scores.Min), or at cover of it when it names a
// concept the picks before it leave out.
type weights struct {
	concept, minor, otherMode, relative, cover float64
}

// defaultWeights are the weights selection uses. They were chosen on
// every measured selection set pooled (660 tasks; eval/heldout16 left
// out): otherMode 0.6 to 0.2, concept 1.3 to 1.5 and relative 0.6 to
// 0.5 took precision@3 from 0.884 to 0.894 and recall@3 from 0.901 to
// 0.910. otherMode 0 did a little better still (0.898, 0.913), but then
// a tool of another mode could never be picked, however plainly the task
// names it, when the mode is inferred wrong. cover 0.3 to 0.25 was
// chosen later on the 1,044 tasks of every tunable set: precision@3
// 0.898 to 0.895 and recall@3 0.883 to 0.886 there, and recall 0.789 to
// 0.796 at the same precision (0.846) on the 384 tasks of the five sets
// written last, by authors who saw no selection code.
func defaultWeights() weights {
	return weights{concept: 1.5, minor: 0.2, otherMode: 0.2, relative: 0.5, cover: 0.25}
}

// uncovered returns the concepts not in covered.
func uncovered(concepts []string, covered map[string]bool) []string {
	var left []string
	for _, x := range concepts {
		if !covered[x] {
			left = append(left, x)
		}
	}
	return left
}

// pick merges the mode's base capabilities with the best of the rest:
// each scored by its similarity to the task and the concepts they share,
// capabilities of other modes scored lower, so that an ambiguous mode
// word does not hide a tool the task plainly names. The threshold is
// relative to the task's best candidate, so it carries across catalogs
// and embedders: a candidate is picked at w.relative of the best score,
// and at least Scores.Min; when none reaches that, the mode brings no
// base capability and never is set (for tools, not skills), the best is
// picked alone, so that no task is left without a tool while one scores
// above zero. Up to max in all; passed are the best of those not picked, with
// why.
func pick(w weights, caps []Capability, f capFit, concepts []string, idf map[string]float64, mode string, base []string, min float64, max int, never bool) (out, passed []Pick) {
	out = []Pick{}
	have := map[string]bool{}
	score := func(i int) (float64, string) {
		c := &caps[i]
		cos, shared := f.similarity(i), f.shared[i]
		s := cos + w.concept*shared
		why := fmt.Sprintf("similarity %.2f", cos)
		if shared > 0 {
			why += fmt.Sprintf(", concepts %.2f", shared)
		}
		if !c.inMode(mode) {
			s *= w.otherMode
			why += ", of another mode"
		}
		return s, why
	}
	for _, name := range base {
		for i, c := range caps {
			if c.Name == name && !have[name] {
				s, _ := score(i)
				out = append(out, Pick{Name: c.Name, Description: c.Description, Score: round(s), Base: true, Why: "the mode's base"})
				have[name] = true
			}
		}
	}
	type cand struct {
		i   int
		s   float64
		why string
	}
	var cands []cand
	for i, c := range caps {
		if !have[c.Name] {
			s, why := score(i)
			cands = append(cands, cand{i, s, why})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return a.i - b.i
	})
	if len(cands) > 0 {
		// The best score is the best of every capability, the mode's base
		// ones too: a base tool the task plainly names sets the bar.
		best := cands[0].s
		for _, p := range out {
			best = max2(best, p.Score)
		}
		floor := max2(min, w.relative*best)
		// Nothing reaches the threshold and the mode brings no base
		// tool: the best is picked alone, so that a task the catalog's
		// words barely cover is not left without a tool.
		lone := never && best > 0 && best < floor && len(out) == 0
		// Greedy cover: after the best, each candidate counts only the
		// task's concepts that no capability picked so far shares, so a
		// second tool is picked for what the first does not cover, not
		// for the same words again.
		covered := map[string]bool{}
		for _, p := range out {
			for i := range caps {
				if caps[i].Name == p.Name {
					for _, x := range caps[i].concepts {
						covered[x] = true
					}
				}
			}
		}
		marginal := func(c cand) float64 {
			cp := &caps[c.i]
			s := f.similarity(c.i) + w.concept*share(uncovered(concepts, covered), concepts, cp, idf, w.minor)
			if !cp.inMode(mode) {
				s *= w.otherMode
			}
			return s
		}
		taken := make([]bool, len(cands))
		for n, c := range cands {
			if max >= 0 && len(out) >= max {
				break
			}
			cp := &caps[c.i]
			gain := n > 0 && cp.inMode(mode) && share(uncovered(concepts, covered), concepts, cp, idf, w.minor) > 0
			redundant := n > 0 && !gain && len(cp.concepts) > 0 && f.cos[c.i] < w.relative*best
			var why string
			switch {
			case n == 0 && lone:
				why = c.why + "; under the threshold, but the best there is"
			case c.s >= floor && c.s > 0 && !redundant:
				why = c.why
			case gain && marginal(c) >= max2(min, w.cover*best):
				// A candidate of the task's mode that covers a concept the
				// picks leave out is picked at w.cover of the best: "fix
				// the failing tests" needs the tool that changes files as
				// well as the one that runs tests, though its words name
				// the tests.
				why = c.why + "; for what the tools before it do not cover"
			default:
				continue
			}
			out = append(out, Pick{Name: cp.Name, Description: cp.Description, Score: round(c.s), Why: why})
			taken[n] = true
			for _, x := range cp.concepts {
				covered[x] = true
			}
		}
		for n, c := range cands {
			if taken[n] {
				continue
			}
			cp := &caps[c.i]
			p := Pick{Name: cp.Name, Description: cp.Description, Score: round(c.s)}
			switch {
			case max >= 0 && len(out) >= max:
				p.Why = c.why + "; over the limit"
			case c.s < min:
				p.Why = c.why + fmt.Sprintf("; under scores.min %.2f", min)
			case c.s >= floor:
				p.Why = c.why + "; what it shares with the task is covered by the tools picked"
			default:
				p.Why = c.why + fmt.Sprintf("; under %.0f%% of the best", w.relative*100)
			}
			if len(passed) < maxPassed {
				passed = append(passed, p)
			}
		}
	}
	if max >= 0 && len(out) > max {
		out = out[:max]
	}
	return out, passed
}

// capFit is how a task fits each capability of a list, worked out once
// for the rules and the ranker: the cosine of their vectors (see
// similarity) and the share of the task's concepts each names.
type capFit struct {
	cos, shared []float64
	// lex is, for tools, how much of the task's words each names
	// (lexicon.match); nil for skills.
	lex []float64
	// gloss and assoc are, for tools, how much of the task's headwords,
	// and of their associated words, each names (assocIndex.match), once
	// withHeadwords has added them; nil for skills.
	gloss, assoc []float64
	// heads are the task's headwords (assocIndex.headwords), and
	// headNames the same as words.
	heads     []int
	headNames []string
}

// toolFit is how a task (its vector and its text), with its concepts,
// fits each of the setup's tools: fitOf, and the share of its words each
// names (lexicon.match), as selection and the ranker's training see it.
func (s *Setup) toolFit(w weights, vecs *vectors, task embed.Vector, text string, concepts []string) capFit {
	f := fitOf(w, s.Tools, vecs.tools, task, concepts, s.conceptIDF)
	f.lex = s.lexicon.match(embed.Words(text))
	return f
}

// withHeadwords adds to f, the fit of task (its text) to the setup's
// tools, how much of the task's headwords and of their associated words
// each tool names (assocIndex.match), which only the ranker reads.
func (s *Setup) withHeadwords(f *capFit, task string) error {
	heads, err := s.assoc.headwords(task)
	if err != nil {
		return fmt.Errorf("layered: the built-in associations: %w", err)
	}
	f.heads, f.headNames = heads, s.assoc.names(heads)
	f.gloss, f.assoc = s.assoc.match(heads)
	return nil
}

// fitOf is how task, with its concepts, fits each of caps, whose
// vectors are vecs.
func fitOf(w weights, caps []Capability, vecs []embed.Vector, task embed.Vector, concepts []string, idf map[string]float64) capFit {
	f := capFit{cos: make([]float64, len(caps)), shared: make([]float64, len(caps))}
	for i := range caps {
		f.cos[i] = embed.Cosine(task, vecs[i])
		f.shared[i] = share(concepts, concepts, &caps[i], idf, w.minor)
	}
	return f
}

// similarity is the cosine of the task's and capability i's vectors, or
// 0 when it is negative: a capability whose words the task does not
// share scores nothing for them, not less than nothing, so that what the
// two share in concepts is not taken back by the noise of hashed words
// ("прогони линтер и поправь замечания" shares edit with edit_file, at
// a cosine of -0.17).
func (f capFit) similarity(i int) float64 {
	return max2(f.cos[i], 0)
}

// maxPassed bounds the capabilities not picked that a selection reports.
const maxPassed = 5

func max2(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

// keep drops instruction-like and injection-like entries (counting them
// in sel) and keeps the most similar of the rest, up to max.
func (a *Assembler) keep(sel *Selection, list string, entries []untrusted.Entry, vecs []embed.Vector, verdicts []injection.Verdict, examples []embed.Vector, task embed.Vector, max int) []Kept {
	var (
		idx  []int
		cand []embed.Vector
	)
	for i, en := range entries {
		id := en.ID
		if id == "" {
			id = fmt.Sprint(i + 1)
		}
		if en.Instruction() {
			sel.Context.Filtered++
			sel.Context.FilteredIDs = append(sel.Context.FilteredIDs, fmt.Sprintf("%s/%s (kind %s)", list, id, en.Kind))
			continue
		}
		if v := verdicts[i]; v.Score >= a.Setup.Scores.Injection {
			sel.Context.Filtered++
			sel.Context.FilteredIDs = append(sel.Context.FilteredIDs, fmt.Sprintf("%s/%s (injection %.2f: %s)", list, id, v.Score, strings.Join(v.Names(), ", ")))
			continue
		}
		if best := bestScore(vecs[i], examples); best >= a.Setup.Scores.InjectionMin {
			sel.Context.Filtered++
			sel.Context.FilteredIDs = append(sel.Context.FilteredIDs, fmt.Sprintf("%s/%s (injection, %.2f similar to an example)", list, id, best))
			continue
		}
		idx = append(idx, i)
		cand = append(cand, vecs[i])
	}
	out := []Kept{}
	for _, r := range embed.Rank(task, cand, a.Setup.Scores.MemoryMin, max) {
		en := entries[idx[r.Index]]
		id := en.ID
		if id == "" {
			id = fmt.Sprint(idx[r.Index] + 1)
		}
		out = append(out, Kept{ID: id, Text: en.Text, Score: round(r.Score)})
	}
	return out
}

func bestScore(v embed.Vector, examples []embed.Vector) float64 {
	best := -1.0
	for _, x := range examples {
		best = max(best, embed.Cosine(v, x))
	}
	return best
}

// round keeps four decimals, so that records and reports read the same
// on every platform's float formatting.
func round(f float64) float64 {
	return float64(int64(f*10000+0.5*sign(f))) / 10000
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}

// errNilSetup is the error of a selection without a setup.
var errNilSetup = errors.New("layered: no setup (nil *Setup): read one with ParseSetup and set Assembler.Setup")

// inferMode returns the mode of req and the reason: the explicit mode;
// else plan for an interactive session, act when git shows changes; else
// the first mode (act, plan, then review) one of whose keywords is a word
// of the task; else how the task is put: review for a look at a change,
// plan for a limit on the work, a request for an answer, a question or a
// task that only looks; else act. A nil setup is an error.
func inferMode(s *Setup, req Request) (mode, why string, err error) {
	return inferModeOf(s, req, nil, false)
}

// inferModeOf is inferMode given the task's concepts (s.Concepts.ofTask of
// req.Task) when known is set, so that Select reads a task once: the
// rules' mode (ruleModeOf), or for a catalog found by its keywords the
// mode model's, which reads the task and what the rules decided (see
// modemodel.go, Setup.learnsMode).
func inferModeOf(s *Setup, req Request, concepts []string, known bool) (mode, why string, err error) {
	mode, why, err = ruleModeOf(s, req, concepts, known)
	if err != nil || !s.learnsMode(req) {
		return mode, why, err
	}
	m, err := builtinModeModel()
	if err != nil {
		return "", "", fmt.Errorf("layered: the built-in mode model: %w", err)
	}
	learned, p := m.infer(modeFeatures(req.Task, mode, why))
	return learned, fmt.Sprintf("learned %.2f (the rules: %s, %s)", p, mode, why), nil
}

// ruleModeOf is the mode the rules infer for req (see inferMode), given
// the task's concepts when known is set: for any catalog, and what the
// mode model reads beside the task.
func ruleModeOf(s *Setup, req Request, concepts []string, known bool) (mode, why string, err error) {
	if s == nil {
		return "", "", errNilSetup
	}
	if err := checkMode(req.Mode); err != nil {
		return "", "", err
	}
	if req.Mode != "" && req.Mode != "auto" {
		return req.Mode, "explicit", nil
	}
	if req.Interactive {
		return "plan", "interactive", nil
	}
	if c := req.Context; c != nil && c.Git != nil && c.Git.Changed > 0 {
		return "act", "git changes", nil
	}
	// A name is no keyword: "audit_log" is a table, not an audit.
	// Static analysis is the linter's, not an analysis to plan:
	// "fais tourner l'analyse statique" holds no plan keyword.
	text := staticAnalysis.ReplaceAllString(withoutNames(req.Task), " lint ")
	words := embed.Words(text)
	if !known {
		concepts = s.Concepts.ofTask(req.Task)
	}
	has := func(list []string) bool {
		return hasAny(concepts, list)
	}
	changes, runs := has(actConcepts), has(runConcepts)
	// The modes' keywords first, act's own before the others: "check out
	// a branch" is act, though "check" is a review word. A review word
	// does not decide a task that changes something and names no change
	// to look at ("bump lodash and check it builds", "npm audit flags
	// it, update the package"), nor one that runs something and then
	// checks what it did ("lance les migrations et vérifie que la
	// colonne existe"), unless it asks for a review itself, or only
	// looks at logs, data, the web or the code ("check their docs and
	// tell me"): how the task is put does.
	for _, m := range []string{"act", "plan", "review"} {
		if m == "review" && has(lookConcepts) && !has(reviewConcepts) && cue(req.Task, words, askedReviewCues) == "" {
			continue
		}
		if m == "review" && (changes && !reviewOfChange(req.Task, words, concepts) || cue(req.Task, words, runCues) != "" && cue(req.Task, words, reviewCues) == "") && !has(changeConcepts) {
			// ... unless the task opens with the review: "Revisa a
			// migração que o Lucas escreveu antes da gente rodar",
			// "could you go over the new export endpoint?".
			if k := leadingKeyword(text, words, keywordsOf(s, m)); k != "" {
				return m, fmt.Sprintf("opens with keyword %q", k), nil
			}
			continue
		}
		for _, k := range keywordsOf(s, m) {
			if hasIdeograph(k) && strings.Contains(text, k) {
				return m, fmt.Sprintf("keyword %q", k), nil
			}
			if kw := embed.Words(k); len(kw) > 0 && containsRun(words, kw) {
				return m, fmt.Sprintf("keyword %q", k), nil
			}
		}
	}
	// No keyword decided: how the task is put. A look at a change is a
	// review; a task that rules changes out, asks to be told something,
	// asks a question or only looks, and changes and runs nothing, is
	// planned.
	// What goes wrong in the running service, looked for in its logs
	// beside the commits, is investigated, not reviewed: "look at the
	// logs and what was committed since and tell me what could cause
	// it".
	// A pull request the task opens is a change made: "abre um PR dessa
	// branch pra develop", "pousse ma branche et ouvre une merge request
	// avec un résumé des changements".
	if slices.Contains(concepts, "pullrequest") && cue(req.Task, words, openCues) != "" && cue(req.Task, words, reviewCues) == "" {
		return "act", "opens a pull request", nil
	}
	investigates := !has(madeChanges) && has([]string{"logs"}) && has([]string{"history", "diff", "commit"})
	switch {
	case investigates:
		return "plan", "looks for a cause", nil
	case !changes && (slices.Contains(concepts, "diff") || slices.Contains(concepts, "pullrequest") && cue(req.Task, words, lookCues) != ""),
		// A commit looked at is a change to review, not one to make:
		// "посмотри коммит 7c2d9e0, норм или нет?".
		!has(madeChanges) && slices.Contains(concepts, "commit") && cue(req.Task, words, lookCues) != "":
		return "review", "looks at a change", nil
	case forbidden.MatchString(req.Task) && has([]string{"lint", "test"}):
		// The checks a task runs while it rules changes out are a
		// review: "lint the checkout module and tell me if anything
		// looks off, don't fix anything yet".
		return "review", "checks and changes nothing", nil
	case forbidden.MatchString(req.Task):
		return "plan", "a limit on the work", nil
	}
	if !changes && slices.Contains(concepts, "lint") && !has([]string{"ci", "build"}) && (cue(req.Task, words, answerCues) != "" || cue(req.Task, words, lookCues) != "") {
		// "прогони линтер и скажи, что стоит исправить": the linter's
		// findings, reported, are a review of the code.
		return "review", "lints and reports", nil
	}
	if k := cue(req.Task, words, answerCues); k != "" && !(runs && !has(lookConcepts)) {
		return "plan", fmt.Sprintf("asks for an answer (%q)", k), nil
	}
	asked := askedChanges
	if has([]string{"history"}) {
		// Who changed something, and when, is asked about a change made:
		// "qui a modifié la fonction calculer_tva en dernier ?".
		asked = askedOfHistory
	}
	if cue(req.Task, words, requestCues) != "" {
		// A question that asks for something to be done asks for the
		// change, a dependency's too: "kannst du golang.org/x/net in
		// der go.mod auf die neueste Version heben?".
		asked = actConcepts
	}
	if isQuestion(req.Task, words) && !changes && has([]string{"ci", greenConcept}) && !has([]string{"history", "logs"}) &&
		cue(req.Task, words, whyCues) == "" && cue(req.Task, words, proposalCues) == "" {
		// Whether the checks of a branch pass, asked, is a review of it:
		// "la rama release/2.4 esta en verde?", "CI 通ってます?". Why
		// they fail, or how to change them, is looked into.
		return "review", "asks how the checks went", nil
	}
	request := cue(req.Task, words, requestCues) != ""
	if isQuestion(req.Task, words) && !has(asked) {
		// A question that asks for something to be done to a record is
		// a request: "tu peux prolonger le séjour de M. Garnier jusqu'à
		// jeudi ?" (see asksToDo).
		if request && cue(req.Task, words, whyCues) == "" {
			if v := asksToDo(req.Task, words, true); v != "" {
				return "act", fmt.Sprintf("asks for something to be done (%q)", v), nil
			}
		}
		return "plan", "a question", nil
	}
	// Documentation looked at is read, not written: "mira en la
	// documentación de Stripe cómo se hacen los reembolsos". A task that
	// looks something up to do something with it does it: "find her
	// account and refund the duplicate charge".
	if !changes && !runs && (has(lookConcepts) || slices.Contains(concepts, "docs") && cue(req.Task, words, lookCues) != "") {
		if v := asksToDo(req.Task, words, request); v != "" {
			return "act", fmt.Sprintf("looks, then does something (%q)", v), nil
		}
		return "plan", "only looks", nil
	}
	return "act", "default", nil
}

// cues are phrases a task may hold, each with its words as embed.Words
// reads them (none for a Chinese or Japanese one), read once.
type cues []struct {
	text  string
	words []string
}

// cuesOf makes cues of phrases.
func cuesOf(phrases ...string) cues {
	out := make(cues, len(phrases))
	for i, p := range phrases {
		out[i].text = p
		if !hasIdeograph(p) {
			out[i].words = embed.Words(p)
		}
	}
	return out
}

// cue returns the first of cs that task holds: a Chinese or Japanese one
// anywhere, another as a run of its words. "" when none.
func cue(task string, words []string, cs cues) string {
	for _, k := range cs {
		if k.words == nil && strings.Contains(task, k.text) || k.words != nil && containsRun(words, k.words) {
			return k.text
		}
	}
	return ""
}

// lookCues ask to look at something: at a pull request, a review.
var lookCues = cuesOf("look", "see", "check", "glance", "go over", "olhada", "olha", "veja", "confere", "conferida", "revisa",
	"mira", "ojo", "echale", "revisas", "comprueba", "regarde", "jette", "relis", "schau", "guck", "prufe", "pruf", "reviewe", "reviewen",
	"глянь", "посмотри", "проверь", "看看", "看一下", "看下", "过一下", "見て", "チェック", "確認")

// requestCues ask for something to be done.
var requestCues = cuesOf("can you", "could you", "would you", "kannst du", "könntest du", "können sie", "peux-tu", "tu peux", "pourrais-tu",
	"vous pouvez", "pouvez-vous", "puedes", "podrías", "podes", "pode", "você pode", "consegue", "можешь", "можете", "сможешь",
	"能不能", "可以帮", "能帮", "してもらえ", "してくれ", "お願いできますか")

// runCues run, start or build something.
var runCues = cuesOf("run", "start", "launch", "roda", "rode", "rodar", "ejecuta", "ejecutar", "corre", "lance", "lancer", "lancez",
	"führ", "starte", "запусти", "прогони", "собери", "跑", "运行", "执行", "流して", "実行", "走らせ")

// openCues open, raise or push a pull request.
var openCues = cuesOf("open", "raise", "submit", "abre", "abra", "abrir", "sobe", "suba", "subir", "sube", "ouvre", "ouvrir", "ouvrez", "pousse",
	"öffne", "eröffne", "erstelle", "erstell", "открой", "создай", "заведи", "开个", "开一个", "提个", "提一个", "提交一个", "出して", "作成して", "立てて")

// reviewCues ask for a review itself, not only how a change's checks
// went: askedReviewCues, and words that also ask to look something over
// ("revisa los logs", "go over the numbers").
var reviewCues = append(slices.Clone(askedReviewCues), cuesOf("revisa", "revise", "revisar", "look over", "go over", "go through",
	"revisada", "repasser sur", "repasse sur")...)

// actConcepts are the concepts of changing something: a question that
// names one asks for the change ("can you fix the test?").
var actConcepts = []string{"edit", "create", "delete", "commit", "format", "dependency", "refactor"}

// changeConcepts are the changes a review looks at.
var changeConcepts = []string{"diff", "pullrequest", "commit"}

// madeChanges are the concepts of changing something but a commit,
// which a task may name only to look at it.
var madeChanges = except(actConcepts, "commit")

// askedChanges are the concepts of changing something that a question
// asks for: a dependency a question names is asked about ("which
// version of pgx is in go.mod?"), not changed. A question about the
// history asks about a change made, so an edit it names is asked about
// too (askedOfHistory).
var (
	askedChanges   = except(actConcepts, "dependency")
	askedOfHistory = except(askedChanges, "edit")
)

// except returns list without the concepts drop names, in a new slice.
func except(list []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(x string) bool { return slices.Contains(drop, x) })
}

// reviewConcepts are what a review looks at: changes, their checks and
// their risks.
var reviewConcepts = []string{"diff", "pullrequest", "commit", "lint", "test", "ci", "migration", "security"}

// runConcepts are the concepts of running something, which a task does
// rather than looks at; lookConcepts those of looking, a pipeline's runs
// ("mira el job y dime qué pasa" looks at what ran) and documentation
// ("外部APIのドキュメントを見て、レート制限を確認して") among them.
var (
	runConcepts  = []string{"run", "test", "build", "lint", "shell", "docker", "migration"}
	lookConcepts = []string{"read", "list", "search", "history", "logs", "http", "data", "database", "ci", "docs"}
)

// answerCues ask to be told something or for a plan: a task without a
// mode keyword that holds one is planned, not acted on.
var answerCues = cuesOf(
	"tell me", "let me know", "understand", "summarize", "summarise", "propose", "proposal", "suggest", "sketch", "plan", "approach", "estimate", "figure out", "what's going on", "dig into", "overview", "how would", "how should",
	"me diz", "me diga", "me fala", "me passa", "proponha", "propoe", "sugira", "sugere", "plano", "planeje", "planejar", "entender", "resuma", "o que esta acontecendo",
	"dime", "dinos", "decime", "resume", "propon", "propone", "proponer", "sugiere", "que pasa", "estimar",
	"dis moi", "dites moi", "comprendre", "resume moi", "proposition", "suggere", "ce qui cloche", "comment tu t y prendrais",
	"sag mir", "sagt mir", "verstehen", "zusammenfassen", "fass zusammen", "schlag vor", "vorschlag", "was ist da los", "abschatzen", "uberblick",
	"скажи", "подскажи", "понять", "объясни", "предложи", "план", "разберись", "прикинь", "оцени", "распиши", "набросай", "разбор",
	"告诉我", "理解", "总结", "方案", "计划", "思路", "建议", "规划", "怎么回事", "评估",
	"教えて", "まとめ", "調べ", "理解", "方針", "計画", "提案", "相談", "把握",
	"want to know", "quero saber", "quiero saber", "je veux savoir", "voudrait savoir", "voudrais savoir", "ich will wissen", "ich möchte wissen",
	"хочу знать", "хочу понять", "想知道", "知りたい", "explain", "expliquer", "expliquez", "erkläre", "erklär", "説明して",
)

// workedIn are the concepts of work a folder named beside them is the
// place of, not a folder to list.
var workedIn = []string{"lint", "test", "build", "format", "diff", "history", "commit", "search", "http", "security"}

// greenConcept is the concept of checks that pass (see taskConcepts).
const greenConcept = "green"

// localCues say a thing is done on the developer's own machine.
var localCues = cuesOf("local", "locally", "localmente", "en local", "lokal", "локально", "локалке", "本地", "ローカル", "手元")

// portCues ask for code to be rewritten in another language.
var portCues = cuesOf("port", "rewrite", "portar", "porta", "reescreva", "reescrever", "reescreve", "reescribe", "reescribir",
	"reescribelo", "porter", "portez", "reecris", "reecrire", "reecrivez", "portieren", "portiere", "umschreiben", "neu schreiben",
	"перепиши", "переписать", "перепишите", "портируй", "портировать", "移植", "重写", "改写", "書き直")

// settingCues name a setting or a flag of the code.
var settingCues = cuesOf("setting", "settings", "option", "config flag", "config key", "config option", "flag", "toggle",
	"configuracao", "configuração", "opcao", "opção", "ajuste", "opcion", "opción", "reglage", "réglage", "parametre", "paramètre",
	"einstellung", "konfigurationsoption", "schalter", "настройку", "настройка", "опцию", "флаг", "配置项", "开关", "設定項目", "設定値", "フラグ", "オプション")

// madeElsewhere are the concepts of things a task creates that are not
// code: a branch, a dependency, a migration, a pull request, a
// container, a pipeline.
var madeElsewhere = []string{"branch", "dependency", "migration", "pullrequest", "docker", "ci"}

// hasAny reports whether concepts hold any of list.
func hasAny(concepts, list []string) bool {
	return slices.ContainsFunc(concepts, func(x string) bool { return slices.Contains(list, x) })
}

// checked are the concepts of checks an error may be the result of: a
// test's, a build's, the pipeline's, the linter's.
var checked = []string{"test", "build", "ci", "lint"}

// runtimeCues place what a task reports in production, after a deploy
// or a release, or in a run at night or this morning.
var runtimeCues = cuesOf("in prod", "in production", "on prod", "on production", "since the deploy", "since the last deploy",
	"after the deploy", "after the release", "since the release", "since deploy", "deploy", "deployed", "em produção", "em producao",
	"em prod", "na produção", "desde o deploy", "depois do deploy", "no deploy", "en producción", "en produccion", "en prod",
	"desde el despliegue", "despliegue", "tras el despliegue", "depuis le déploiement", "déploiement", "mise en prod", "mise en production",
	"in der produktion", "auf prod", "seit dem deploy", "nach dem deploy", "deployment", "release", "на проде", "в проде",
	"в продакшене", "на продакшене", "после деплоя", "после релиза", "деплоя", "релиза", "线上", "生产环境", "生产上", "上线后", "发布后",
	"部署后", "本番", "デプロイ", "リリース後", "nightly", "last night", "overnight", "this morning", "cette nuit", "la nuit dernière", "hier soir",
	"ce matin", "ontem à noite", "esta noite", "de madrugada", "hoje de manhã", "anoche", "esta noche", "esta mañana", "heute nacht",
	"letzte nacht", "nachts", "heute morgen", "ночью", "этой ночью", "вчера вечером", "сегодня утром", "昨晚", "昨夜", "今朝", "夜间", "凌晨", "今天早上",
	"at 1am", "at 2am", "at 3am", "at 4am", "at 5am", "during the night", "heute früh", "seit heute früh", "desde hoje cedo",
	"desde esta mañana", "depuis ce matin", "с утра", "今天凌晨", "夜中")

// upgradesRuntime reports whether a task to act moves the project to
// another version of its language or runtime: it names one with its
// version and a word of upgrading, migrating or porting, or the
// migration concept, and no container (whose base image it would be).
func upgradesRuntime(mode, task string, words, concepts []string) bool {
	return mode == "act" && runtimeVersion.MatchString(task) && !slices.Contains(concepts, "docker") &&
		(cue(task, words, upgradeCues) != "" || cue(task, words, portCues) != "" || slices.Contains(concepts, "migration") || slices.Contains(concepts, "dependency"))
}

// upgradeCues weigh an upgrade of dependencies, or how far behind they
// are: a plan reads their release notes on the web.
var upgradeCues = cuesOf("upgrade", "upgrading", "latest", "outdated", "out of date", "behind", "migrate to", "moving to", "breaking",
	"license", "licenses", "licence", "licences", "atualizar", "desatualizado", "desatualizados", "defasado", "defasados", "última versão",
	"migrar para", "licença", "licenças", "actualizar", "desactualizado", "desactualizados", "última versión", "migrar a", "licencia",
	"licencias", "mettre à jour", "à la traîne", "obsolète", "obsolètes", "dernière version", "passer à", "migrer vers",
	"aktualisieren", "veraltet", "veraltete", "neueste version", "hinterher", "umstieg", "lizenz", "lizenzen", "обновить", "обновление",
	"устарел", "устарели", "устаревшие", "последней версии", "лицензии", "лицензия", "переход на", "升级", "过时", "最新版", "许可证",
	"アップグレード", "最新バージョン", "古い", "ライセンス", "上げた場合", "上げると")

// proposalCues ask for a plan or a proposal of a change.
var proposalCues = cuesOf("propose", "proposal", "suggest", "sketch", "plan", "approach", "how would", "how should",
	"proponha", "propoe", "sugira", "sugere", "plano", "planeje", "propon", "propone", "proponer", "sugiere",
	"proposition", "propose moi", "suggere", "demarche", "schlag vor", "vorschlag", "konzept",
	"предложи", "план", "набросай", "方案", "计划", "建议", "规划", "方針", "計画", "提案", "設計")

// questionWords open a question in the supported languages (as
// embed.Words reads them: lower case, without accents).
var questionWords = []string{"where", "who", "why", "what", "whats", "which", "how", "when",
	"onde", "quem", "qual", "quais", "quantos", "quantas", "quanto",
	"donde", "quien", "cual", "cuales", "cuantos", "cuantas", "cuanto",
	"qui", "pourquoi", "quel", "quelle", "quels", "quelles", "combien",
	"wo", "wer", "warum", "wieso", "weshalb", "welche", "welcher", "welches", "wie",
	"где", "кто", "почему", "зачем", "какой", "какая", "какие", "сколько", "откуда"}

// isQuestion reports whether a task asks a question: a question mark,
// or a question word first.
func isQuestion(task string, words []string) bool {
	return strings.ContainsAny(task, "?？") || len(words) > 0 && slices.Contains(questionWords, words[0])
}

// containsRun reports whether run occurs in words, word for word: a
// keyword of several words ("code review") matches them in a row.
func containsRun(words, run []string) bool {
	for i := 0; i+len(run) <= len(words); i++ {
		if slices.Equal(words[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// leadingKeyword returns the first of keywords the task opens with: at
// its first word, after only the words that ask politely ("could you",
// "bitte", "pode", "帮我"), or "" when it opens with none.
func leadingKeyword(text string, words, keywords []string) string {
	lead := 0
	for lead < len(words) && slices.Contains(politeWords, words[lead]) {
		lead++
	}
	t := strings.TrimLeftFunc(text, func(r rune) bool { return !unicode.IsLetter(r) })
	for _, p := range politeIdeographs {
		t = strings.TrimPrefix(t, p)
	}
	for _, k := range keywords {
		if hasIdeograph(k) {
			if strings.HasPrefix(t, k) {
				return k
			}
			continue
		}
		if kw := embed.Words(k); len(kw) > 0 && lead+len(kw) <= len(words) && slices.Equal(words[lead:lead+len(kw)], kw) {
			return k
		}
	}
	return ""
}

// politeWords ask for something politely before saying what, as
// embed.Words reads them.
var politeWords = []string{"please", "pls", "plz", "can", "could", "would", "you", "hey", "hi", "quick", "quickly",
	"pode", "podes", "voce", "por", "favor", "me", "da", "uma", "puedes", "podrias", "porfa", "oye",
	"peux", "tu", "pourrais", "stp", "svp", "merci", "de", "kannst", "konntest", "du", "bitte", "mal", "kurz", "einmal",
	"можешь", "пожалуйста", "плз", "глянь", "быстро"}

// politeIdeographs ask for something politely before saying what, in
// Chinese or Japanese.
var politeIdeographs = []string{"请帮我", "麻烦帮我", "麻烦", "帮我", "请", "帮忙", "すみません", "ちょっと"}

// whyCues ask why, or what went wrong, how long or how much, or how
// to go about something.
var whyCues = cuesOf("why", "what broke", "which job", "what happened", "por que", "por quê", "porque", "por qué", "o que quebrou",
	"o que aconteceu", "qué pasó", "qué job", "que job", "pourquoi", "quel job", "qu'est-ce qui", "warum", "wieso", "weshalb", "woran",
	"welcher job", "wie lange", "how long", "how do we", "how would", "wie kriegen", "wie würdest", "überlegen", "combien", "cuánto", "quanto",
	"сколько", "почему", "что сломалось", "какой джоб", "какая джоба", "为什么", "为啥", "怎么", "哪个 job", "なぜ", "どうして", "何が")

// askedReviewCues ask for a review by name, in words that mean nothing
// else ("revisa" is also to look something over: "revisa los logs").
var askedReviewCues = cuesOf("review", "reviewe", "reviewen", "relis", "relire", "relisez", "gegenlesen", "gegenlese", "revisão", "revisao",
	"审查", "审核", "复查", "复核", "レビュー", "ревью", "отревьюй")

// reviewOfChange reports whether a task asks for a review of a change
// it names in a word of editing, and makes none: its only concept of
// acting is the edit, said as no verb to do, and it holds a review word
// ("昨日マージされたカート周りの変更、レビューお願いします", "review the
// changes Ana made to the exporter").
func reviewOfChange(task string, words []string, concepts []string) bool {
	return cue(task, words, askedReviewCues) != "" && !editVerb.MatchString(task) &&
		!slices.ContainsFunc(concepts, func(x string) bool { return x != "edit" && slices.Contains(actConcepts, x) })
}

// checkMode refuses a mode that is not plan, act, review, auto or empty.
func checkMode(mode string) error {
	if mode == "" || mode == "auto" || slices.Contains(modes, mode) {
		return nil
	}
	return fmt.Errorf("mode %q: use plan, act, review or auto", mode)
}

// defaultKeywords infer the mode when layered.yaml gives none.
var defaultKeywords = map[string][]string{
	"act": {"check out"},
	"plan": {"plan", "planen", "planejar", "planeje", "planificar", "planifica", "planifier", "planifie", "спланируй", "计划", "計画", "research", "explore", "analyze", "analyse", "investigate",
		"pesquisar", "pesquise", "analisar", "analise", "investigar", "investigue", "explorar",
		"investiga", "analiza", "analizar", "explora",
		"rechercher", "analyser", "analyse", "explorer", "enquêter", "étudier",
		"untersuchen", "untersuche", "analysieren", "analysiere", "recherchieren", "erkunde",
		"调查", "分析", "研究", "調査", "исследуй", "проанализируй", "изучи", "разберись"},
	"review": {"review", "audit", "verify", "check", "go over", "look over",
		"revisar", "revise", "revisa", "verificar", "verifique", "verifica", "auditar",
		"relire", "relis", "vérifier", "vérifie", "auditer",
		"überprüfen", "überprüfe", "prüfen", "prüfe", "review",
		"审查", "审核", "检查", "レビュー", "確認", "проверь", "проверить", "ревью",
		"confirm", "double-check", "confere", "conferir", "confira", "comprueba", "comprobar", "comprobad",
		"gegenprüfen", "gegenprüfe", "сверь", "сверить", "核对", "核一下",
		"go through", "revisada", "gegenlesen", "gegenlese", "lies gegen", "repasser sur", "repasse sur", "复查", "复核", "レビューお願い", "перепроверь"},
}

func keywordsOf(s *Setup, mode string) []string {
	if ms, ok := s.ModeSpecs[mode]; ok && len(ms.Keywords) > 0 {
		return ms.Keywords
	}
	return defaultKeywords[mode]
}
