package canonical_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/canonical"
	"github.com/tessera-dev/tessera/preset/template"
	"github.com/tessera-dev/tessera/presets"
)

// The assembly fixture is one prompt written two ways, so that the
// canonical preset and the catalog can be timed producing the same text:
//
//	testdata/assembly/spec.yaml            an 11 KB canonical spec
//	testdata/assembly/tessera.yaml         a catalog whose one node,
//	testdata/assembly/workflows/w.json     assembly/prompt, is a template
//	testdata/assembly/tasks/prompt.txt     with two $$TOKEN lines and an
//	testdata/assembly/parts/*.txt          $$include, giving the same text
//
// Both come from assemblyFiles: the spec is generated from a fixed seed,
// and the catalog is cut out of the spec's canonical text. Regenerate
// them with
//
//	go test ./preset/canonical -run TestAssemblyFixture -update
const (
	assemblyDir      = "testdata/assembly"
	assemblySpec     = assemblyDir + "/spec.yaml"
	assemblyWorkflow = "assembly"
	assemblyNode     = "prompt"
)

// updateFlag reports whether -update (declared by the package's golden
// test) was given.
func updateFlag() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// TestAssemblyFixture checks that the fixture's files are what its
// generator writes, and that the canonical preset and the template preset
// assemble them, through the engine, to the same text byte for byte.
func TestAssemblyFixture(t *testing.T) {
	files, err := assemblyFiles()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		p := filepath.Join(assemblyDir, filepath.FromSlash(name))
		if updateFlag() {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the generator writes: run with -update", p)
		}
	}
	if n := len(files["spec.yaml"]); n < 10_500 || n > 11_500 {
		t.Errorf("spec.yaml is %d bytes, want about 11 KB", n)
	}

	canon, cat := assembleBoth(t)
	if canon.Prompt.Text != cat.Prompt.Text {
		t.Fatalf("the canonical and catalog texts differ:\n--- canonical\n%s\n--- catalog\n%s", canon.Prompt.Text, cat.Prompt.Text)
	}
	if canon.Prompt.Hash != cat.Prompt.Hash {
		t.Errorf("same text, different hashes: %s and %s", canon.Prompt.Hash, cat.Prompt.Hash)
	}
	// The spec exercises every section, redaction included.
	if len(canon.Record.Redactions) == 0 {
		t.Error("nothing was redacted; the fixture should hold an e-mail address in its transcript")
	}
	for _, title := range []string{"[System Prompt]", "[Assistant Identity]", "[Requesting User]", "[Conversation State / History]", "[Constraints]", "[Task]", "[Input]"} {
		if !strings.Contains(canon.Prompt.Text, "## "+title+"\n") {
			t.Errorf("the text has no %s section", title)
		}
	}
}

// assemblyRequests returns the two engine requests of the fixture: the
// canonical spec, and the catalog node c (opened on testdata/assembly).
func assemblyRequests(c *catalog.Catalog) (canon, cat engine.Request) {
	canon = engine.Request{Preset: canonical.Name, Args: preset.Args{"spec": assemblySpec}, NoLog: true, CorrelationID: "bench"}
	cat = engine.Request{Preset: template.Name, Args: preset.Args{"workflow": assemblyWorkflow, "node": assemblyNode}, Catalog: c, NoLog: true, CorrelationID: "bench"}
	return canon, cat
}

func assembleBoth(t testing.TB) (canon, cat *engine.Result) {
	t.Helper()
	ctx := context.Background()
	c, err := catalog.Open(ctx, assemblyDir, presets.Default().Sections()...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e := engine.Engine{Registry: presets.Default()}
	rc, rt := assemblyRequests(c)
	if canon, err = e.Assemble(ctx, rc); err != nil {
		t.Fatal(err)
	}
	if cat, err = e.Assemble(ctx, rt); err != nil {
		t.Fatal(err)
	}
	return canon, cat
}

// assemblyFiles generates the fixture: file names under testdata/assembly
// to their content.
func assemblyFiles() (map[string][]byte, error) {
	spec := genSpec()
	s, err := canonical.ParseSpec(assemblySpec, spec)
	if err != nil {
		return nil, fmt.Errorf("the generated spec: %w", err)
	}
	res, err := canonical.Assemble(context.Background(), s, canonical.Config{})
	if err != nil {
		return nil, fmt.Errorf("the generated spec: %w", err)
	}
	text := res.Prompt.Text
	files := map[string][]byte{
		"spec.yaml":    spec,
		"tessera.yaml": []byte("# The catalog side of the assembly fixture: generated, see\n# preset/canonical/assembly_fixture_test.go.\ntasks: tasks\nworkflows: workflows\n"),
	}
	// The template is the text with three of its sections taken out: the
	// conversation state and the input as the node's tokens, the task as
	// an $$include.
	tmpl := text
	cut := func(title, line string) (string, error) {
		start := strings.Index(tmpl, title)
		if start < 0 {
			return "", fmt.Errorf("no %s in the text", title)
		}
		end := strings.Index(tmpl[start:], "\n\n## [")
		if end < 0 {
			end = len(tmpl)
		} else {
			end += start
		}
		part := tmpl[start:end]
		tmpl = tmpl[:start] + line + tmpl[end:]
		return part + "\n", nil
	}
	for _, c := range []struct{ title, line, file string }{
		{"## [Conversation State / History]", "$$STATE", "parts/state.txt"},
		{"## [Task]", "$$include parts/task.txt", "parts/task.txt"},
		{"## [Input]", "$$INPUT", "parts/input.txt"},
	} {
		part, err := cut(c.title, c.line)
		if err != nil {
			return nil, err
		}
		files[c.file] = []byte(part)
	}
	// No line break after the last line: the template's text is the
	// prompt's, and a canonical prompt has none.
	files["tasks/"+assemblyNode+".txt"] = []byte(tmpl)
	files["workflows/"+assemblyWorkflow+".json"] = []byte(`{
  "title": "The assembly fixture: the canonical spec's text as a template",
  "nodes": [
    {
      "node_id": "` + assemblyNode + `",
      "type": "task",
      "task_ref": "` + assemblyNode + `",
      "includes": {
        "STATE": "parts/state.txt",
        "INPUT": "parts/input.txt"
      }
    }
  ]
}
`)
	return files, nil
}

// words are what the generated prose is made of: the vocabulary of a
// support desk for a software product.
var words = strings.Fields(`the a an order account invoice customer service team release build
deploy queue ticket report status update change request review policy
plan window region cluster database backup restore migration schema index
query latency error timeout retry limit quota usage billing refund credit
contract renewal owner engineer manager support escalation incident outage
alert metric dashboard log trace endpoint client server token session user
group role permission audit record history summary note draft document
page section answer question reply message thread channel email call
week day month quarter morning evening before after during within without
about across between under over into onto from with for and but or so
then when while if because although unless until since is was are were
has had will would should could may might must can not never always often
rarely usually first last next previous current new old large small slow
fast stable broken pending closed open resolved shipped delayed failed
checked confirmed asked told sent received moved kept dropped added removed
fixed found expected reported known unknown clear short long simple exact`)

// prose returns n words of deterministic text in sentences.
func prose(r *rand.Rand, n int) string {
	var b strings.Builder
	sentence := 0
	for i := range n {
		w := words[r.IntN(len(words))]
		if sentence == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		sentence++
		if sentence >= 8+r.IntN(9) || i == n-1 {
			b.WriteByte('.')
			if i < n-1 {
				b.WriteByte(' ')
			}
			sentence = 0
		}
	}
	return b.String()
}

// folded writes text as a YAML block scalar, wrapped near 72 columns.
func folded(b *strings.Builder, indent, text string) {
	b.WriteString(">-\n")
	col := 0
	for _, w := range strings.Fields(text) {
		switch {
		case col == 0:
			b.WriteString(indent)
			col = len(indent)
		case col+1+len(w) > 72:
			b.WriteString("\n" + indent)
			col = len(indent)
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	b.WriteByte('\n')
}

// genSpec returns the fixture's spec: every section of design 004 filled
// in, at the sizes of a working support assistant's prompt.
func genSpec() []byte {
	r := rand.New(rand.NewPCG(4, 11))
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# The canonical side of the assembly fixture: generated, see\n# preset/canonical/assembly_fixture_test.go.\n\n")

	p("systemPrompt:\n  summary: %s\n  rules:\n", prose(r, 14))
	for range 10 {
		p("    - %s\n", prose(r, 16))
	}
	p("  sources: [policies/support.md, policies/privacy.md, runbooks/escalation.md]\n\n")

	p("identity:\n  personaId: support-lead\n  name: Ada\n  role: Support Engineer\n  summary: %s\n", prose(r, 18))
	p("  traits: [patient, exact, calm, direct]\n  tone: Friendly, plain\n  styleGuidelines:\n")
	for range 4 {
		p("    - %s\n", strings.TrimSuffix(prose(r, 7), "."))
	}

	p("\nrequestingUser:\n  userId: u-20417\n  handle: \"@mrivera\"\n  displayName: Marta Rivera\n  roles: [Admin, Billing]\n  locale: es-ES\n  timezone: Europe/Madrid\n  tier: enterprise\n\n")

	p("conversationState:\n  summary: ")
	folded(&b, "    ", prose(r, 60))
	p("  scope: %s\n  renderMode: both\n  retention:\n    maxMessages: 10\n  transcript:\n", prose(r, 10))
	roles := []string{"user", "assistant", "user", "tool"}
	for i := range 12 {
		content := prose(r, 18+r.IntN(22))
		if i == 2 {
			content = "You can reach me at marta.rivera@example.com. " + content
		}
		p("    - role: %s\n      content: ", roles[i%len(roles)])
		folded(&b, "        ", content)
		p("      at: 2026-03-04T09:%02d:%02dZ\n", 10+i*3, (i*17)%60)
	}

	p("\nconstraints:\n")
	for i := range 10 {
		p("  - id: c%d\n    priority: %d\n    text: %s\n", i+1, 1+(i*3)%5, prose(r, 14+r.IntN(8)))
		if i%3 == 0 {
			p("    source: policy\n    tags: [support]\n")
		}
	}

	p("\ntask:\n")
	p("  - id: reply\n    priority: 1\n    instruction: %s\n", prose(r, 16))
	p(`    outputFormat:
      type: json
      name: support_reply
      jsonSchema:
        type: object
        properties:
          reply: {type: string, description: The message to the customer.}
          escalate: {type: boolean}
          next_check: {type: string, format: date}
          tickets: {type: array, items: {type: string}}
        required: [reply, escalate]
        additionalProperties: false
`)
	for i := range 4 {
		p("  - id: t%d\n    priority: %d\n    instruction: %s\n", i+2, 2+i%3, prose(r, 14+r.IntN(10)))
		if i == 1 {
			p("    required: false\n")
		}
	}

	p("\ntools:\n  - name: lookup_order\n    description: %s\n", prose(r, 10))
	p("    parameters:\n      type: object\n      properties:\n        order_id: {type: integer, minimum: 1}\n      required: [order_id]\n")

	p("\ninput:\n  userQuery: ")
	folded(&b, "    ", prose(r, 45))
	p("  context: |\n")
	for range 6 {
		p("    %s\n", prose(r, 20))
	}
	var csv strings.Builder
	csv.WriteString("order_id,status,updated\n")
	for i := range 12 {
		fmt.Fprintf(&csv, "%d,%s,2026-03-%02d\n", 1040+i, []string{"shipped", "pending", "delayed"}[i%3], 1+i%28)
	}
	p("  attachments:\n    - name: orders.csv\n      mime: text/csv\n      bytesBase64: %s\n", base64.StdEncoding.EncodeToString([]byte(csv.String())))
	p("    - name: screenshot.png\n      mime: image/png\n      uri: https://files.example.com/t/8812/screenshot.png\n")
	return []byte(b.String())
}
