package engine

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"github.com/tessera-dev/tessera/presets"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/golden"

	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/canonical"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/schema"
)

// models are the model names the body goldens use; Gemini's goes in the
// URL, so its body names none.
var models = map[provider.Format]string{
	provider.OpenAIChat:      "gpt-4.1",
	provider.OpenAIResponses: "gpt-4.1",
	provider.Anthropic:       "claude-sonnet-4-5",
}

// bodyCases are the assemblies whose request bodies have goldens under
// testdata/bodies/<name>/: the template preset (design 001) on the
// example catalog's pm_discovery.v1/pgc node, sent as one stable
// user-side part, and the canonical preset (design 004) on both example
// specs.
func bodyCases(t testing.TB) map[string]Request {
	c := open(t, examplePath())
	return map[string]Request{
		"template":                 {Args: preset.Args{"workflow": "pm_discovery.v1", "node": "pgc"}, Catalog: c},
		"canonical-v2-example":     {Args: preset.Args{"spec": examplePath("canonical", "v2-example.yaml")}},
		"canonical-support-ticket": {Args: preset.Args{"spec": examplePath("canonical", "support-ticket.yaml")}},
	}
}

// assemble assembles req with the default engine, logging nothing.
func assemble(t testing.TB, req Request) *Result {
	t.Helper()
	req.NoLog = true
	if req.CorrelationID == "" {
		req.CorrelationID = "test-1"
	}
	e := Engine{Registry: presets.Default()}
	res, err := e.Assemble(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// strictRequest is res's request for format f: the golden's model, its
// output schema and tool parameters strictified (with the keywords the
// model refuses moved into descriptions) and marked strict, so that the
// same request encodes for every format.
func strictRequest(t testing.TB, res *Result, f provider.Format) provider.Request {
	t.Helper()
	req := res.Request()
	req.Model = models[f]
	model := cmp.Or(req.Model, DefaultModel(f))
	m, _, ok := provider.BuiltinModels().Lookup(model)
	if !ok {
		t.Fatalf("%s is not in the model table", model)
	}
	fix := func(what string, s []byte) []byte {
		v, err := schema.Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		v, left := v.Strictify()
		v, _, refused := v.MoveKeywords(m.Keywords())
		if len(left) > 0 || len(refused) > 0 {
			t.Fatalf("%s: %v %v", what, left, refused)
		}
		return v.Append(nil)
	}
	for i, tl := range req.Tools {
		req.Tools[i].Parameters = fix("tool "+tl.Name, tl.Parameters)
	}
	req.StrictTools = len(req.Tools) > 0
	if req.Output != nil {
		req.Output.Schema, req.Output.Strict = fix("output schema", req.Output.Schema), true
	}
	return req
}

// goldenModels is the model table of the body goldens: the built-in one
// with no minimum cacheable length for their models, so that the goldens
// show where breakpoints go (the examples' prefixes are shorter than any
// Anthropic minimum; TestDeliverDropsBreakpoints covers leaving them
// out).
func goldenModels(t testing.TB) *provider.ModelTable {
	t.Helper()
	zero := 0
	tab, err := provider.BuiltinModels().With(provider.ModelOverride{Name: models[provider.Anthropic], MinCacheTokens: &zero})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestBodiesGolden encodes each case's request for every format and
// compares each body, indented for review, with testdata/bodies/<case>/;
// the stable-prefix metadata of all of them is in meta.txt beside them.
// The body Assemble delivers for the format is the same body. Run
// go test ./engine -run TestBodiesGolden -update after an intended
// change, and review the diff.
func TestBodiesGolden(t *testing.T) {
	for name, req := range bodyCases(t) {
		set := golden.NewBodies(t, filepath.Join("testdata", "bodies", name), *update)
		for _, f := range provider.Formats() {
			file := f.String() + ".json"
			r := req
			r.Delivery = &Delivery{Format: f, Model: models[f], CacheBreakpoints: true, Strictify: true, Models: goldenModels(t)}
			res := assemble(t, r)
			b, err := provider.Encode(f, strictRequest(t, res, f), provider.Options{CacheBreakpoints: true, Counter: golden.WordCounter{}})
			if err != nil {
				t.Fatalf("%s/%s: %v", name, file, err)
			}
			if !bytes.Equal(res.Body, b.JSON) {
				t.Errorf("%s/%s: Assemble delivered another body:\n%s\nwant\n%s", name, file, res.Body, b.JSON)
			}
			if d := res.Record.Delivery; d == nil || d.BodyHash != prompt.Hash(string(res.Body)) || d.StablePrefixHash != b.StablePrefixHash || d.Provider != f.String() {
				t.Errorf("%s/%s: record's delivery %+v does not describe the body", name, file, d)
			}
			set.Add(t, file, b.JSON, fmt.Sprintf("hash=%s tokens=%d counter=%s breakpoints=%d", b.StablePrefixHash, b.StablePrefixTokens, b.Counter, b.CacheBreakpoints))
		}
		set.Finish(t)
	}
}

// TestTemplateRequest checks the template preset's mapping: the whole
// prompt as one stable user-side part with the empty key.
func TestTemplateRequest(t *testing.T) {
	res := assemble(t, bodyCases(t)["template"])
	req := res.Request()
	if len(req.System) != 0 || !slices.Equal(req.User, []provider.Part{{Text: res.Prompt.Text, Stable: true}}) {
		t.Errorf("parts %+v %+v", req.System, req.User)
	}
	if req.Model != "" || req.Output != nil || req.MaxTokens != 0 || len(req.Tools) != 0 {
		t.Errorf("Request set fields it should leave: %+v", req)
	}
}

// TestCanonicalRequest checks design 004's mapping on both examples, with
// each rendering setting: the system prompt and identity, the
// system-role sections, on the system side; the other sections in
// canonical order on the user side; each part the rendered text of its
// section; each side's parts joined by the separator are that side's
// text, and the two sides are the prompt, nothing lost or repeated; and
// the parts marked stable are the canonical stable keys.
func TestCanonicalRequest(t *testing.T) {
	if got, want := canonical.StableKeys(), []string{"system-prompt", "identity", "requesting-user", "constraints"}; !slices.Equal(got, want) {
		t.Fatalf("canonical stable keys %v, want %v", got, want)
	}
	for _, name := range []string{"v2-example", "support-ticket"} {
		for _, args := range []preset.Args{{}, {"heading-level": "3"}, {"hide-empty": "true"}} {
			args["spec"] = examplePath("canonical", name+".yaml")
			res := assemble(t, Request{Args: args})
			req := res.Request()
			what := fmt.Sprint(name, " ", args)

			var system []string
			for _, s := range res.fitted {
				if s.Role == prompt.RoleSystem {
					system = append(system, s.Key)
				}
			}
			if !slices.Equal(system, []string{"system-prompt", "identity"}) {
				t.Fatalf("%s: system-role sections %v", what, system)
			}
			spans := map[string]prompt.SectionSpan{}
			for _, sp := range res.Prompt.Sections {
				spans[sp.Key] = sp
			}
			var want []string // the top-level sections rendered, in order
			for _, k := range canonical.SectionKeys() {
				if _, ok := spans[k]; ok {
					want = append(want, k)
				}
			}
			if args["hide-empty"] == "" && !slices.Equal(want, canonical.SectionKeys()) {
				t.Errorf("%s: sections rendered %v, want all of %v", what, want, canonical.SectionKeys())
			}
			keys := func(ps []provider.Part) (out []string) {
				for _, p := range ps {
					out = append(out, p.Key)
				}
				return out
			}
			var wantUser []string
			for _, k := range want {
				if !slices.Contains(system, k) {
					wantUser = append(wantUser, k)
				}
			}
			if got := keys(req.System); !slices.Equal(got, system) {
				t.Errorf("%s: system parts %v, want %v", what, got, system)
			}
			if got := keys(req.User); !slices.Equal(got, wantUser) {
				t.Errorf("%s: user parts %v, want %v", what, got, wantUser)
			}
			for _, p := range slices.Concat(req.System, req.User) {
				sp := spans[p.Key]
				if p.Text != res.Prompt.Text[sp.Start:sp.End] || prompt.Hash(p.Text) != sp.Hash {
					t.Errorf("%s: part %q is not its section's rendered text:\n%s", what, p.Key, p.Text)
				}
				if p.Stable != slices.Contains(canonical.StableKeys(), p.Key) {
					t.Errorf("%s: part %q stable = %v", what, p.Key, p.Stable)
				}
			}
			sep := cmp.Or(req.Separator, "\n\n")
			sys, usr := joinParts(req.System, sep), joinParts(req.User, sep)
			first := spans[req.User[0].Key].Start
			if sys != res.Prompt.Text[:len(sys)] || usr != res.Prompt.Text[first:] {
				t.Errorf("%s: a side's parts joined differ from its text", what)
			}
			if got := sys + sep + usr; got != res.Prompt.Text {
				t.Errorf("%s: the parts joined differ from the prompt:\n%s\n----\n%s", what, got, res.Prompt.Text)
			}
		}
	}
}

func joinParts(ps []provider.Part, sep string) string {
	texts := make([]string, len(ps))
	for i, p := range ps {
		texts[i] = p.Text
	}
	return strings.Join(texts, sep)
}
