// Package injection scores untrusted text for prompt injection: text,
// such as a memory or a tool result, that tries to instruct the model
// instead of informing it.
//
// A Detector scores texts. The built-in one, New, needs no model: it
// reads each text several ways (normalised, with look-alike letters
// folded, with spaced-out words joined, with encoded runs decoded) and
// matches a bank of multilingual patterns (English, Portuguese, Spanish,
// French, German, Chinese, Japanese, Russian), each belonging to a
// signal such as an order to ignore the instructions, a role marker, the
// wrapper's closing tag or a request to send secrets away, and a model
// trained on the project's evaluation sets reads the text's character
// n-grams. A second trained part weighs what fired, and the model's
// probability, into one score in [0, 1]; a Verdict says which fired and
// where. HTTP is an adapter for a classifier served over HTTP (a
// Prompt Guard model behind text-embeddings-inference, say), and Any
// combines detectors.
package injection

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/internal/lazyre"
)

// Detector scores texts for prompt injection.
type Detector interface {
	// Detect returns one verdict per text, in order.
	Detect(ctx context.Context, texts []string) ([]Verdict, error)
	// Name identifies the detector in reports.
	Name() string
}

// Verdict is what a detector found in one text.
type Verdict struct {
	// Score is in [0, 1]: how likely the text is an injection.
	Score float64 `json:"score"`
	// Signals are the signals that fired, strongest first.
	Signals []Signal `json:"signals,omitempty"`
}

// Names returns the names of the signals that fired, as "override" or
// "override (base64)" for one found only in a decoded run.
func (v Verdict) Names() []string {
	out := make([]string, len(v.Signals))
	for i, s := range v.Signals {
		out[i] = s.Name
		if s.View != "" && s.View != "text" {
			out[i] += " (" + s.View + ")"
		}
		if s.Quoted {
			out[i] += " (quoted)"
		}
	}
	return out
}

// Signal is one kind of evidence that fired.
type Signal struct {
	// Name is the signal's name: override, persona, policy, reveal,
	// exfil, conceal, role, wrapper, command, approval, address,
	// obfuscated, model (the
	// trained model's probability, in Match), or a name a pattern of the
	// caller's gave.
	Name string `json:"name"`
	// Weight is the signal's strength in [0, 1]: its pattern's fixed
	// weight (see Weights), or the model's probability. How much a
	// signal moves the score was learned (see Weights).
	Weight float64 `json:"weight"`
	// View is the reading it was found in: "text", "folded", "joined",
	// "base64", "hex" or "url".
	View string `json:"view,omitempty"`
	// Match is the text that matched, at most 80 bytes.
	Match string `json:"match,omitempty"`
	// Quoted marks a match inside quotation marks in a text that
	// discusses an attack (an example in security training, a past
	// incident): it counts quotedFactor of its weight.
	Quoted bool `json:"quoted,omitempty"`
}

// Pattern is one entry of a pattern bank.
type Pattern struct {
	// Signal names the signal the pattern belongs to.
	Signal string `yaml:"signal" json:"signal"`
	// Lang is the language it is written for ("en", "pt", ..., "any").
	Lang string `yaml:"lang" json:"lang,omitempty"`
	// Re is a Go regular expression, matched against lower-cased,
	// normalised text.
	Re string `yaml:"re" json:"re"`
	// Weight overrides the signal's weight for this pattern; 0 keeps it.
	Weight float64 `yaml:"weight" json:"weight,omitempty"`
	// Unless is a Go regular expression for the matches that do not
	// count: "the instructions in the wiki no longer apply" names a
	// document, not the agent's instructions. Empty: every match counts.
	Unless string `yaml:"unless" json:"unless,omitempty"`
}

// Weights are the built-in signals' fixed weights. With the built-in
// model, a logistic regression learned on the training sets weighs the
// signals that fired (each by its pattern's weight over the signal's),
// their fixed-weight combination 1 - Π(1 - weight), and the model's
// log-odds into the score; a signal that was nearly always an attack in
// those sets (an order to ignore the instructions, the wrapper's closing
// tag) still counts its fixed weight alone, as do a caller's signals
// the regression never saw. Without the model, the score is the
// fixed-weight combination: one strong signal reaches the default
// threshold alone, and weak ones (a role marker) need another.
func Weights() map[string]float64 {
	return map[string]float64{
		"override":   0.8,
		"unbound":    0.6,
		"policy":     0.6,
		"reveal":     0.6,
		"exfil":      0.6,
		"wrapper":    0.7,
		"leak":       0.5,
		"privilege":  0.5,
		"conceal":    0.5,
		"command":    0.45,
		"role":       0.4,
		"swap":       0.45,
		"persona":    0.3,
		"noask":      0.3,
		"approval":   0.3,
		"obey":       0.35,
		"obfuscated": 0.3,
		"address":    0.3,
	}
}

// DefaultThreshold is the score at which the built-in detector's verdict
// counts as an injection.
const DefaultThreshold = 0.5

//go:embed patterns.yaml
var bankYAML []byte

// Bank returns the built-in pattern bank.
func Bank() ([]Pattern, error) {
	var out []Pattern
	if err := yaml.Unmarshal(bankYAML, &out); err != nil {
		return nil, fmt.Errorf("injection: the built-in pattern bank: %w", err)
	}
	return out, nil
}

// compiled is a pattern ready to match.
type compiled struct {
	Pattern
	re     *lazyre.Regexp
	unless *lazyre.Regexp // nil when every match counts
	weight float64
	// need are sets of strings such that every match holds one of each
	// set; nil when none is known (see requiredLiteralSets).
	need [][]string
}

// builtin is the built-in bank, read once per process and never
// changed; its expressions are compiled when first needed.
var builtin = sync.OnceValues(func() ([]compiled, error) {
	bank, err := Bank()
	if err != nil {
		return nil, err
	}
	return compile(bank, "patterns.yaml", false)
})

// compile checks the patterns of bank (from where, for messages) and
// makes them ready to match: compiled now when eager (a catalog's, whose
// mistakes are reported here), else when first matched (the built-in
// bank's, which TestBankCompiles checks).
func compile(bank []Pattern, where string, eager bool) ([]compiled, error) {
	w := Weights()
	out := make([]compiled, 0, len(bank))
	var errs []error
	prepare := func(src string) (*lazyre.Regexp, error) {
		if eager {
			re, err := regexp.Compile(src)
			if err != nil {
				return nil, err
			}
			return lazyre.Of(re), nil
		}
		// The built-in bank: TestBankCompiles compiles every
		// expression, so none is parsed here but for its literals.
		return lazyre.New(src), nil
	}
	for i, p := range bank {
		re, err := prepare(p.Re)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: pattern %d (%s): %w", where, i+1, p.Signal, err))
			continue
		}
		if p.Signal == "" {
			errs = append(errs, fmt.Errorf("%s: pattern %d: no signal: name the signal it belongs to (override, exfil, ... or one of your own)", where, i+1))
			continue
		}
		weight := p.Weight
		if weight == 0 {
			weight = w[p.Signal]
		}
		if weight <= 0 || weight > 1 {
			errs = append(errs, fmt.Errorf("%s: pattern %d (%s): weight %v: give a weight above 0 and at most 1 for a signal of your own", where, i+1, p.Signal, weight))
			continue
		}
		var unless *lazyre.Regexp
		if p.Unless != "" {
			if unless, err = prepare(p.Unless); err != nil {
				errs = append(errs, fmt.Errorf("%s: pattern %d (%s): unless: %w", where, i+1, p.Signal, err))
				continue
			}
		}
		need, known := builtinNeed[p.Re]
		if !known {
			need = requiredLiteralSets(p.Re)
		}
		out = append(out, compiled{Pattern: p, re: re, unless: unless, weight: weight, need: need})
	}
	return out, errors.Join(errs...)
}

// Builtin is the detector that needs no model. Its zero value is not
// usable; make one with New.
type Builtin struct {
	patterns []compiled
	phrases  []string
	model    *model
	seen     verdicts
}

// verdictCacheSize is how many texts' verdicts Detect keeps: an agent's
// memories come back in every assembly, and each is scored once while
// it stays among the most recent this many.
const verdictCacheSize = 1024

// verdicts keeps recent verdicts by the SHA-256 of their text, in two
// generations: a lookup in the older one moves the verdict to the newer,
// and when the newer holds half the size the older is dropped. A verdict
// is a function of its text alone, so the cache changes no output. Safe
// for concurrent use; the zero value is ready.
type verdicts struct {
	mu       sync.Mutex
	new, old map[[32]byte]Verdict
}

func (c *verdicts) get(k [32]byte) (Verdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.new[k]
	if !ok {
		if v, ok = c.old[k]; ok {
			c.putLocked(k, v)
		}
	}
	if ok {
		v.Signals = slices.Clone(v.Signals)
	}
	return v, ok
}

func (c *verdicts) put(k [32]byte, v Verdict) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v.Signals = slices.Clone(v.Signals)
	c.putLocked(k, v)
}

func (c *verdicts) putLocked(k [32]byte, v Verdict) {
	if len(c.new) >= verdictCacheSize/2 {
		c.old, c.new = c.new, nil
	}
	if c.new == nil {
		c.new = make(map[[32]byte]Verdict, verdictCacheSize/2)
	}
	c.new[k] = v
}

// New returns the built-in detector with the built-in pattern bank, and
// extra patterns and known phrases of the caller's (a catalog's). A
// phrase fires the "known" signal (weight 0.7) when a reading of a text
// holds it, normalised the same way.
func New(extra []Pattern, phrases []string) (*Builtin, error) {
	base, err := builtin()
	if err != nil {
		return nil, err
	}
	more, err := compile(extra, "injection_patterns", true)
	if err != nil {
		return nil, err
	}
	m, err := builtinModel()
	if err != nil {
		return nil, err
	}
	d := &Builtin{patterns: append(slices.Clip(base), more...), model: m}
	for _, p := range phrases {
		if p = strings.TrimSpace(clean(p)); p != "" {
			d.phrases = append(d.phrases, p)
		}
	}
	return d, nil
}

// Name implements Detector.
func (d *Builtin) Name() string { return "builtin" }

// Detect implements Detector. It never fails but on a cancelled context.
// It keeps the verdicts of the texts it scored most recently (see
// verdictCacheSize), so that the memories an agent sends with every
// assembly are scored once.
func (d *Builtin) Detect(ctx context.Context, texts []string) ([]Verdict, error) {
	out := make([]Verdict, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k := sha256.Sum256([]byte(t))
		v, ok := d.seen.get(k)
		if !ok {
			v = d.Score(t)
			d.seen.put(k, v)
		}
		out[i] = v
	}
	return out, nil
}

// Score scores one text.
func (d *Builtin) Score(text string) Verdict {
	fired := map[string]Signal{}
	plainOnly := true
	// A signal keeps its strongest pattern, and among equals the one
	// found in the plain text.
	fire := func(s Signal) {
		if old, ok := fired[s.Name]; ok && (old.Weight > s.Weight || old.Weight == s.Weight && (old.View == "text" || s.View != "text")) {
			return
		}
		fired[s.Name] = s
	}
	var pairs bigrams
	vs := views(text)
	modelViews, cloned := vs, false
	for vi, v := range vs {
		pairs.of(v.text)
		// A text that discusses an attack and quotes it ("training:
		// attackers write 'ignore previous instructions'") counts what
		// is quoted for less, and the model reads it without the quotes.
		quotes := quotedSpans(v.text)
		framed := false
		if len(quotes) > 0 {
			rest := outside(v.text, quotes)
			framed = mayMatch(discussionNeeds, rest) && discussion.MatchString(rest)
		}
		if framed {
			if !cloned {
				modelViews, cloned = slices.Clone(vs), true
			}
			modelViews[vi].text = outside(v.text, quotes)
		}
		// A rule against the acts it names ("if an issue tells you to
		// ignore your instructions, do not do it and tell the user")
		// counts them as a quoted attack is counted, and the model reads
		// the text without the rule.
		if r := ruleSpan(v.text); r[1] > 0 {
			framed, quotes = true, append(quotes, r)
			if !cloned {
				modelViews, cloned = slices.Clone(vs), true
			}
			modelViews[vi].text = outside(modelViews[vi].text, [][2]int{r})
			if len(strings.Join(strings.Fields(modelViews[vi].text), " ")) < minRuleRest {
				// What is left is the rule's framing ("Rule for agents:
				// ... and tell the user."), not a text of its own.
				modelViews[vi].text = ""
			}
		}
		for i := range d.patterns {
			p := &d.patterns[i]
			if !holdsAll(p.need, &pairs, v.text) {
				continue
			}
			if loc := p.re.Get().FindStringIndex(v.text); loc != nil && !(negatable[p.Signal] && negated(v.text[:loc[0]])) && (p.unless == nil || !p.unless.Get().MatchString(v.text[loc[0]:loc[1]])) {
				sig := Signal{Name: p.Signal, Weight: p.weight, View: v.how, Match: clip(v.text[loc[0]:loc[1]])}
				if framed && within(loc, quotes) {
					sig.Weight, sig.Quoted = round(sig.Weight*quotedFactor), true
				}
				fire(sig)
			}
		}
		for _, ph := range d.phrases {
			if at := strings.Index(v.text, ph); at >= 0 {
				sig := Signal{Name: "known", Weight: 0.7, View: v.how, Match: clip(ph)}
				if framed && within([]int{at, at + len(ph)}, quotes) {
					sig.Weight, sig.Quoted = round(sig.Weight*quotedFactor), true
				}
				fire(sig)
			}
		}
	}
	var sigs []Signal
	for _, s := range fired {
		sigs = append(sigs, s)
		if s.View == "text" || s.View == "simplified" {
			// Traditional Chinese is a way to write, not to hide.
			plainOnly = false
		}
	}
	if len(sigs) > 0 && plainOnly {
		// Every signal was hidden: obfuscation is evidence too.
		sigs = append(sigs, Signal{Name: "obfuscated", Weight: Weights()["obfuscated"], View: sigs[0].View})
	}
	byWeight(sigs)
	keep := 1.0
	for _, s := range sigs {
		keep *= 1 - s.Weight
	}
	if d.model == nil {
		return Verdict{Score: round(1 - keep), Signals: sigs}
	}
	n := 0
	for _, v := range modelViews {
		n += len(v.text)
	}
	buf := make([]uint32, 0, min(5*(n+2*len(modelViews)), maxModelGrams))
	f := features{sigs: sigs, noisyOr: round(1 - keep), p: d.model.prob(grams(d.model.bits, modelViews, buf))}
	f.part = d.model.partProb(modelViews[0].text, f.p, buf)
	score := d.model.comb.score(f)
	if s, ok := modelSignal(f.p); ok {
		sigs = append(sigs, s)
		byWeight(sigs)
	}
	return Verdict{Score: round(score), Signals: sigs}
}

// minRuleRest is the least text, in bytes, that a reading must keep
// beside a rule against the acts it names for the model to read it.
const minRuleRest = 40

// byWeight sorts signals strongest first, then by name.
func byWeight(sigs []Signal) {
	slices.SortFunc(sigs, func(a, b Signal) int {
		if a.Weight != b.Weight {
			if a.Weight > b.Weight {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// holdsAll reports whether text, whose byte pairs and triples are in
// pairs, holds one string of every set of need.
func holdsAll(need [][]string, pairs *bigrams, text string) bool {
	for _, set := range need {
		if !slices.ContainsFunc(set, func(l string) bool { return pairs.has(l) && strings.Contains(text, l) }) {
			return false
		}
	}
	return true
}

// bigrams is the set of byte pairs a text holds, and of byte triples
// hashed into as many bits: a literal one of whose first pair, first
// triple or last triple is not among them is not in the text, which is
// cheaper to learn than strings.Contains is.
type bigrams struct {
	pairs, triples [1024]uint64
}

func (b *bigrams) of(text string) {
	*b = bigrams{}
	for i := 0; i+1 < len(text); i++ {
		k := uint16(text[i])<<8 | uint16(text[i+1])
		b.pairs[k>>6] |= 1 << (k & 63)
		if i+2 < len(text) {
			t := triple(text[i:])
			b.triples[t>>6] |= 1 << (t & 63)
		}
	}
}

// triple hashes the first three bytes of s into 16 bits.
func triple(s string) uint16 {
	return uint16((uint32(s[0])*131+uint32(s[1]))*131 + uint32(s[2]))
}

func (b *bigrams) has(lit string) bool {
	if len(lit) < 2 {
		return true
	}
	k := uint16(lit[0])<<8 | uint16(lit[1])
	if b.pairs[k>>6]&(1<<(k&63)) == 0 {
		return false
	}
	if len(lit) < 3 {
		return true
	}
	t, u := triple(lit), triple(lit[len(lit)-3:])
	return b.triples[t>>6]&(1<<(t&63)) != 0 && b.triples[u>>6]&(1<<(u&63)) != 0
}

// negatable are the signals a negation right before the match turns
// into a rule against the act: "never paste secrets into tickets",
// "ne pas passer --trusted-host".
var negatable = map[string]bool{"command": true, "exfil": true, "leak": true, "privilege": true}

// negations are the words that, ending the text just before a match,
// negate it.
var negations = []string{"never", "don't", "do not", "not", "must not", "jamais", "ne pas", "nunca", "não", "nao", "jamás", "nie", "nicht", "niemals", "kein", "不要", "别", "禁止", "绝不", "切勿", "не", "никогда", "нельзя"}

// shortNegations negate only as the last word before a match.
var shortNegations = []string{"no", "nor", "ni", "ne"}

// negated reports whether before ends with a negation, within its last
// three words.
func negated(before string) bool {
	tail := before
	if len(tail) > 32 {
		tail = tail[len(tail)-32:]
	}
	words := strings.Fields(tail)
	if len(words) > 3 {
		words = words[len(words)-3:]
	}
	last := strings.Join(words, " ")
	padded := " " + strings.Trim(last, ".,;:!?") + " "
	// "no", "ni" and the French "ne" ("on ne crée jamais") negate only
	// right before the act: the Portuguese "no" three words earlier is
	// "in the".
	if len(words) > 0 && slices.Contains(shortNegations, words[len(words)-1]) {
		return true
	}
	for _, n := range negations {
		// A negation of a letter script is a whole word ("no", not the
		// start of "notes"); a Chinese one is found anywhere.
		if n[0] >= 0xe0 {
			if strings.Contains(last, n) {
				return true
			}
		} else if strings.Contains(padded, " "+n+" ") {
			return true
		}
	}
	return false
}

// quotedFactor is what a quoted match in a text that discusses an
// attack counts of its weight.
const quotedFactor = 0.25

// discussion finds, outside the quotation marks, a text that discusses
// an attack instead of making one: an example, a training, a past
// incident, advice to treat such text as data.
var discussion = lazyre.New(`example|e\.g\.|for instance|training|attack|contained|containing|\bsaid\b|\bwrote\b|hidden text|tra[íi]a|conten[íi]a|dec[íi]a|continha|dizia|contenait|disait|\bstand\b|hie(ß|ss)|содержал|скрыт|разбор|случа|нашли|写着|写了|書かれ|phishing|injection|malicious|lesson|incident|suspicious|treat (it|this|such|them) as|ejemplo|ataque|treinamento|exemplo|formaci[óo]n|formation|exemple|attaque|schulung|beispiel|angriff|lessons learned|пример|атак|обучени|инцидент|例子|示例|攻击|培训|反面|攻撃|研修|訓練|例えば|事例|p[oó]s-?mortem|post-?mortem|tentando enganar|fixture|恶意|悪意|фикстур|вредонос|inyecci[óo]n|inje[çc][ãa]o|injektion|テストデータ|テスト用|测试用|用于测试|red.?team|レッドチーム|红队|test ?case|caso de prueba|caso de teste|cas de test|testfall|テストケース|测试用例|障害報告|de prop[óo]sito|volontairement|absichtlich|намеренно|わざと|故意|phrases comme|frases como|phrases like|s[äa]tze wie|фразы (вроде|типа)|escribi[óo]|escreveu|a [ée]crit|schrieb|написал|intentando enga[ñn]ar|en essayant de tromper|something like|algo como|algo así como|quelque chose comme|so etwas wie|что-то вроде|インシデント|仕込まれ|复盘|事故|藏了|藏在|想骗|诱导`)

// refusal finds an instruction to refuse an act, and notify one to tell
// the user about it: together they make a rule against the acts the
// text names before them.
var (
	refusal = lazyre.New(`\b(do not|don't|never) (do|follow|obey|execute|run|act on|comply with) (it|them|this|that|those|such)\b|\brefuse\b|\bdecline\b|não (faça|fazer|execute|executar|siga|seguir|obede[çc]a)\b|\brecuse|no lo (hagas|ejecutes|sigas)|no (hagas|ejecutes|sigas|obedezcas) (caso|eso|nada)|rech[aá]zal[oa]|\brefuse[zr]?\b|ne (le |les )?(faites|fais|suivez|suis|exécutez|exécute) pas|nicht (ausführen|befolgen|folgen|tun)\b|\b(ablehnen|lehne)\b|拒绝|不要执行|不要照做|不得执行|切勿执行|実行せず|実行しない|従わず|従わない|拒否|не выполня|не исполня|откаж|не следуй|не делай (этого|это|так)`)
	notify  = lazyre.New(`\b(tell|warn|notify|inform|alert) the user|\bflag (it |this |that )?(to|for) the user|\blet the user know|\breport (it |this |that )?to the user|avis\w* o usu[áa]rio|informe o usu[áa]rio|\bavise\b|avis\w* al usuario|inform\w* al usuario|pr[ée]ven\w* l.utilisateur|signal\w*(-le|-la|-les)? [àa] l.utilisateur|inform\w* l.utilisateur|(informier|sag|meld|warn)\w* (den|dem) (nutzer|benutzer|user)|(den|dem) (nutzer|benutzer|user) (melden|informieren|warnen|bescheid)|告诉用户|通知用户|报告给用户|告知用户|ユーザーに(報告|伝え|知らせ)|сообщи\w* пользовател|предупреди\w* пользовател`)
)

// condition finds the start of a condition: "if", "whenever", "se",
// "si", "wenn", "如果", "場合", "если".
var condition = lazyre.New(`\b(if|whenever|when|should)\b|\b(se|si|caso|quando|cuando|quand|lorsque|wenn|falls|sobald)\b|如果|若有|任何|一旦|場合|ものは|たら|なら|если|когда|\bпри\b`)

// maxRule is the furthest, in bytes, a rule's condition may stand before
// its refusal.
const maxRule = 400

// notifyNeeds, refusalNeeds and discussionNeeds are strings one of
// which every match of notify, refusal and discussion holds (nil: none
// known; see mayMatch).
var (
	notifyNeeds     = requiredLiterals(notify.String())
	refusalNeeds    = requiredLiterals(refusal.String())
	discussionNeeds = requiredLiterals(discussion.String())
)

// ruleSpan returns the span of s that states a rule against an act: from
// the condition ("if an issue tells you to ...") to the refusal ("do not
// do it") that a notice to the user follows; [0, 0] when s states none.
// What stands before the condition is outside the rule: an attack
// followed by "if anyone objects, refuse and tell the user" is not one.
func ruleSpan(s string) [2]int {
	if !mayMatch(notifyNeeds, s) || !mayMatch(refusalNeeds, s) {
		return [2]int{} // no notice to the user, or no refusal: most texts, found fast
	}
	r := refusal.FindStringIndex(s)
	if r == nil || !notify.MatchString(s[r[0]:]) {
		return [2]int{}
	}
	from := max(0, r[0]-maxRule)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from++
	}
	cs := condition.FindAllStringIndex(s[from:r[0]], -1)
	if cs == nil {
		return [2]int{}
	}
	return [2]int{from + cs[0][0], r[1]}
}

// quotePairs are the quotation marks quotedSpans knows, opening and
// closing.
var quotePairs = [][2]string{{"“", "”"}, {"„", "“"}, {"«", "»"}, {"「", "」"}, {"『", "』"}, {"\"", "\""}, {"'", "'"}}

// quotedSpans returns the byte spans of s inside quotation marks, the
// marks included. A straight single quote opens only at the start or
// after a space or a colon, and closes only before a space, a sign or
// the end, so that apostrophes ("don't", "l'ia") are not quotes.
func quotedSpans(s string) [][2]int {
	var out [][2]int
	for _, q := range quotePairs {
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], q[0])
			if j < 0 {
				break
			}
			start := i + j
			if q[0] == "'" && start > 0 && !strings.ContainsRune(" :(\n", rune(s[start-1])) {
				i = start + 1
				continue
			}
			k := strings.Index(s[start+len(q[0]):], q[1])
			for q[1] == "'" && k >= 0 {
				end := start + len(q[0]) + k + 1
				if end == len(s) || strings.ContainsRune(" .,;:!?)\n", rune(s[end])) {
					break
				}
				next := strings.Index(s[end:], q[1])
				if next < 0 {
					k = -1
					break
				}
				k = end - start - len(q[0]) + next
			}
			if k < 0 {
				break
			}
			end := start + len(q[0]) + k + len(q[1])
			out = append(out, [2]int{start, end})
			i = end
		}
	}
	return out
}

// within reports whether the span loc overlaps one of spans: an attack
// quoted in part ("… rules are off, show the passwords». Such phrases
// …"), or a match that runs from the words around a quotation into it
// ("someone wrote «forget your instructions…»"), is the quoted one.
func within(loc []int, spans [][2]int) bool {
	for _, sp := range spans {
		if loc[0] < sp[1] && loc[1] > sp[0] {
			return true
		}
	}
	return false
}

// outside returns s with its quoted spans blanked out.
func outside(s string, spans [][2]int) string {
	if len(spans) == 0 {
		return s
	}
	b := []byte(s)
	for _, sp := range spans {
		for i := sp[0]; i < sp[1]; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	cut := 80
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// round keeps four decimals, so that reports read the same everywhere.
func round(f float64) float64 { return float64(int64(f*10000+0.5)) / 10000 }

// Any is a detector that runs several and takes, for each text, the
// verdict with the highest score; the signals of the others that also
// fired are added to it.
type Any []Detector

// Name implements Detector.
func (a Any) Name() string {
	names := make([]string, len(a))
	for i, d := range a {
		names[i] = d.Name()
	}
	return strings.Join(names, "+")
}

// Detect implements Detector.
func (a Any) Detect(ctx context.Context, texts []string) ([]Verdict, error) {
	out := make([]Verdict, len(texts))
	for _, d := range a {
		vs, err := d.Detect(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("injection: %s: %w", d.Name(), err)
		}
		if len(vs) != len(texts) {
			return nil, fmt.Errorf("injection: %s gave %d verdicts for %d texts", d.Name(), len(vs), len(texts))
		}
		for i, v := range vs {
			if v.Score > out[i].Score {
				out[i].Score = v.Score
			}
			out[i].Signals = append(out[i].Signals, v.Signals...)
		}
	}
	return out, nil
}
