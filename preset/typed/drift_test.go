package typed

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestContractHashWorkedExample is the worked example of docs/typed.md:
// the contract hash is the SHA-256 of the RFC 8785 form of
// [description, parameters, result].
func TestContractHashWorkedExample(t *testing.T) {
	params := []byte(`{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}`)
	result := []byte(`{"type": "string"}`)
	got, err := ContractHash("Read a file.", params, result)
	if err != nil {
		t.Fatal(err)
	}
	canon := `["Read a file.",{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"},{"type":"string"}]`
	sum := sha256.Sum256([]byte(canon))
	if want := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("ContractHash = %s, want %s", got, want)
	}
	// The digest docs/typed.md shows.
	if want := "a0d74d438cd37205cf5f4d6d3377f087bf18f91926ae518703a8fb19f3eff7f3"; got != want {
		t.Errorf("ContractHash = %s, docs/typed.md says %s", got, want)
	}
	// Key order and spacing do not change it.
	again, _ := ContractHash("Read a file.", []byte(`{"required":["path"],"properties":{"path":{"type":"string"}},"type":"object"}`), []byte(`{ "type" : "string" }`))
	if again != got {
		t.Errorf("reordered keys hash %s, want %s", again, got)
	}
	// A new description, or a new result, does.
	for _, other := range []string{must(ContractHash("Read one file.", params, result)), must(ContractHash("Read a file.", params, nil))} {
		if other == got {
			t.Error("a changed contract hashes the same")
		}
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

const driftTemplate = `ns: t
key: k
params: [{name: who, type: string, default: you}]
sections:
  - key: a
    title: A
    template: Hello $who.
    tools:
      - name: look
        description: Look a thing up.
        parameters: {type: object, properties: {q: {type: string, description: The query.}, n: {type: integer}}}
`

// TestDriftRules: the rules that decide whether an override applies.
func TestDriftRules(t *testing.T) {
	tpl := mustParse(t, driftTemplate)
	d := tpl.Descriptor()
	sh, th := d.Sections["a"], d.Tools["look"]
	parse := func(src string) (*Overrides, error) {
		return tpl.ParseOverrides("o.yaml", []byte("ns: t\nkey: k\n"+src))
	}

	// A body that names a parameter the template no longer declares is
	// stale: left out with a note, never an error.
	ov, err := parse("sections:\n  - {path: a, hash: " + sh + ", body: Hi $whom.}\n")
	if err != nil || len(ov.Notes) != 1 || !strings.Contains(ov.Notes[0], "note: o.yaml: the override of section \"a\" is stale and left out (line 4): its body names $whom, which the template no longer declares") {
		t.Errorf("undeclared parameter: %v %q", err, ov.Notes)
	}
	text, _ := layoutText(t, tpl, nil, Options{Overrides: ov})
	if !strings.Contains(text, "Hello you.") {
		t.Errorf("the stale override applied:\n%s", text)
	}

	// Malformed hashes are errors at their line, not stale.
	for _, h := range []string{strings.ToUpper(sh), `""`, "zzz", sh[:20]} {
		_, err := parse("sections:\n  - path: a\n    hash: " + h + "\n    body: x\n")
		if err == nil || !strings.Contains(err.Error(), "o.yaml:5:5: hash") || !strings.Contains(err.Error(), "want the 64 lower-case hex digits") {
			t.Errorf("hash %s: %v", h, err)
		}
	}

	// Two entries for one target name both lines.
	_, err = parse("sections:\n  - {path: a, hash: " + sh + ", body: x}\n  - {path: a, hash: " + sh + ", body: y}\n")
	if err == nil || !strings.Contains(err.Error(), `o.yaml:5:6: section "a" is overridden twice, at lines 4 and 5`) {
		t.Errorf("two entries: %v", err)
	}
	_, err = parse("tools:\n  - {name: look, hash: " + th + ", description: x}\n  - {name: look, hash: " + th + ", description: y}\n")
	if err == nil || !strings.Contains(err.Error(), `tool "look" is overridden twice, at lines 4 and 5`) {
		t.Errorf("two tool entries: %v", err)
	}

	// A new tool description makes a description override stale.
	changed := mustParse(t, strings.Replace(driftTemplate, "Look a thing up.", "Look up a thing.", 1))
	ov, err = changed.ParseOverrides("o.yaml", []byte("ns: t\nkey: k\ntools:\n  - {name: look, hash: "+th+", description: Search.}\n"))
	if err != nil || len(ov.Notes) != 1 || !strings.Contains(ov.Notes[0], `tool "look" is stale`) {
		t.Errorf("new description: %v %q", err, ov.Notes)
	}

	// A parameter's description, overridden; the schema otherwise kept
	// byte for byte.
	ov, err = parse("params:\n  - {tool: look, param: q, hash: " + th + ", description: \"What to find, \\\"quoted\\\".\"}\n  - {tool: look, param: n, hash: " + th + ", description: How many.}\n")
	if err != nil || len(ov.Notes) != 0 {
		t.Fatalf("param override: %v %q", err, ov.Notes)
	}
	l, err := tpl.Layout(nil, Options{Overrides: ov})
	if err != nil {
		t.Fatal(err)
	}
	got := string(l.Sections[0].Tools[0].Parameters)
	if want := `{"type":"object","properties":{"q":{"type":"string","description":"What to find, \"quoted\"."},"n":{"description":"How many.","type":"integer"}}}`; got != want {
		t.Errorf("parameters\n got %s\nwant %s", got, want)
	}
	if _, err := parse("params:\n  - {tool: look, param: zz, hash: " + th + ", description: x}\n"); err == nil || !strings.Contains(err.Error(), `tool "look" has no parameter "zz": its parameters are q, n`) {
		t.Errorf("unknown parameter: %v", err)
	}
}
