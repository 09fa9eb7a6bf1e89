package provider

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/canonical"
	"github.com/tessera-dev/tessera/schema"
)

// canonicalStable are the canonical preset's stable sections: the rules,
// the identity and the requesting user come first and change rarely; the
// constraints are stable too but follow the conversation state, so they
// are outside the stable prefix.
var canonicalStable = StableKeys(canonical.KeySystemPrompt, canonical.KeyIdentity, canonical.KeyRequestingUser, canonical.KeyConstraints)

// canonicalRequest assembles examples/canonical/<name>.yaml with the
// canonical preset (design 004) and makes it a Request: its output
// schema and tool parameters strictified and marked strict, so that the
// same request encodes for every format.
func canonicalRequest(t testing.TB, name string) Request {
	t.Helper()
	res := canonicalResult(t, name)
	req, err := FromPrompt(res.Prompt, res.Sections, canonicalStable)
	if err != nil {
		t.Fatal(err)
	}
	for i, tl := range req.Tools {
		fixed, left, err := schema.Strictify(tl.Parameters)
		if err != nil || len(left) > 0 {
			t.Fatalf("%s: tool %s: %v %v", name, tl.Name, err, left)
		}
		req.Tools[i].Parameters = fixed
	}
	req.StrictTools = len(req.Tools) > 0
	if res.OutputSchema != nil {
		fixed, left, err := schema.Strictify(res.OutputSchema)
		if err != nil || len(left) > 0 {
			t.Fatalf("%s: output schema: %v %v", name, err, left)
		}
		req.Output = &Output{Name: res.OutputName, Schema: fixed, Strict: true}
	}
	return req
}

// canonicalResult assembles examples/canonical/<name>.yaml.
func canonicalResult(t testing.TB, name string) *canonical.Result {
	t.Helper()
	path := filepath.Join("..", "examples", "canonical", name+".yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := canonical.ParseSpec(path, data)
	if err != nil {
		t.Fatal(err)
	}
	res, err := canonical.Assemble(context.Background(), spec, canonical.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// canonicalCases returns the canonical preset's requests for the goldens,
// keyed by golden directory.
func canonicalCases(t *testing.T) map[string]Request {
	return map[string]Request{
		"canonical-v2-example":     canonicalRequest(t, "v2-example"),
		"canonical-support-ticket": canonicalRequest(t, "support-ticket"),
	}
}

// TestCanonicalMapping checks design 004's mapping on both examples: the
// system prompt and identity on the system side, the other five sections
// in canonical order on the user side, and nothing lost or repeated: the
// two sides joined are the rendered prompt.
func TestCanonicalMapping(t *testing.T) {
	for _, name := range []string{"v2-example", "support-ticket"} {
		res := canonicalResult(t, name)
		req, err := FromPrompt(res.Prompt, res.Sections, canonicalStable)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		var texts []string
		for _, p := range append(req.System, req.User...) {
			keys = append(keys, p.Key)
			texts = append(texts, p.Text)
		}
		want := canonical.SectionKeys()
		if len(req.System) != 2 || strings.Join(keys, " ") != strings.Join(want, " ") {
			t.Errorf("%s: %d system parts, keys %v; want 2 and %v", name, len(req.System), keys, want)
		}
		if got := strings.Join(texts, "\n\n"); strings.TrimRight(res.Prompt.Text, "\n") != got {
			t.Errorf("%s: the parts joined differ from the prompt:\n%s\n----\n%s", name, got, res.Prompt.Text)
		}
	}
}
