package canonical

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/diag"
)

const minimal = "task:\n  - instruction: Do it.\ninput:\n  userQuery: Why?\n"

// TestParseSpecErrors checks each error of the loader: the file, the
// line and the words that say what to do.
func TestParseSpecErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // each must appear, in this order, one per problem
	}{
		{"empty", "", []string{"spec.yaml: empty: a spec needs at least a task and an input"}},
		{"comment only", "# nothing\n", []string{"spec.yaml: empty:"}},
		{"not a mapping", "- a\n- b\n", []string{"spec.yaml:1:1: want a mapping of keys to values, found a list"}},
		{"bad yaml", "task: [\n", []string{"spec.yaml:1:8: not valid YAML: did not find expected node content"}},
		{"second document", minimal + "---\ntask: []\n", []string{"spec.yaml:5:1: a second YAML document starts here"}},
		{"line separator", minimal + "# a\u2028b\n", []string{`spec.yaml:5:4: holds the character U+2028, which YAML reads as a line break: remove it, or write it as \u2028 inside a double-quoted string`}},
		{"invalid utf-8", minimal + "x: \xff\n", []string{"spec.yaml:5: invalid UTF-8 at byte offset"}},
		{"unknown key", "tsk:\n  - instruction: x\n" + "input:\n  userQuery: q\n", []string{
			`spec.yaml: task: give at least one task annotation`,
			`spec.yaml:1:1: unknown key "tsk": did you mean "task"? the keys are systemPrompt, identity, requestingUser, conversationState, constraints, task, input, tools, assembler`,
		}},
		{"unknown nested key", minimal + "identity:\n  tonee: calm\n", []string{`spec.yaml:6:3: unknown key "tonee" in identity: did you mean "tone"? the keys are personaId, name, role, summary, traits, tone, styleGuidelines`}},
		{"snake case", "task:\n  - instruction: x\ninput:\n  user_query: q\n", []string{
			`spec.yaml:3:1: input.userQuery: missing: give the user's query`,
			`spec.yaml:4:3: unknown key "user_query" in input: did you mean "userQuery"?`,
		}},
		{"repeated key", minimal + "identity:\n  tone: a\n  tone: b\n", []string{`spec.yaml:7:3: key "identity.tone" is repeated (first at line 6): keep one`}},
		{"wrong types", minimal + "identity:\n  tone: [a]\n  traits: calm\nsystemPrompt: rules\n", []string{
			`spec.yaml:6:9: identity.tone: want text, found a list`,
			`spec.yaml:7:11: identity.traits: want a list of text, found the text "calm"`,
			`spec.yaml:8:15: systemPrompt: want a mapping of keys to values, found the text "rules"`,
		}},
		{"boolean as text", minimal + "requestingUser:\n  tier: yes\n  locale: true\n", []string{`spec.yaml:7:11: requestingUser.locale: want text, found true (quote it to use it as text)`}},
		{"task not a list", "task:\n  instruction: x\ninput:\n  userQuery: q\n", []string{
			`spec.yaml:2:3: task: want a list of task annotations, found a mapping`,
		}},
		{"no task", "task: []\ninput:\n  userQuery: q\n", []string{`spec.yaml:1:1: task: give at least one task annotation, for example`}},
		{"no input", "task:\n  - instruction: x\n", []string{`spec.yaml: input.userQuery: missing: give the user's query`}},
		{"blank instruction", "task:\n  - instruction: \"  \"\n  - priority: 2\ninput:\n  userQuery: q\n", []string{
			`spec.yaml:2:5: task[0].instruction: missing: say what to do`,
			`spec.yaml:3:5: task[1].instruction: missing: say what to do`,
		}},
		{"priorities", "task:\n  - instruction: x\n    priority: 7\n  - instruction: y\n    priority: high\n  - instruction: z\n    priority: 0\n  - instruction: w\n    priority: 2.5\ninput:\n  userQuery: q\n", []string{
			`spec.yaml:3:15: task[0].priority: want a whole number from 1 (highest) to 5, found 7`,
			`spec.yaml:5:15: task[1].priority: want a whole number from 1 (highest) to 5, found the text "high"`,
			`spec.yaml:7:15: task[2].priority: want a whole number from 1 (highest) to 5, found 0`,
			`spec.yaml:9:15: task[3].priority: want a whole number from 1 (highest) to 5, found the number 2.5`,
		}},
		{"required", minimal + "constraints:\n  - text: t\n    priority: 9\n", []string{`spec.yaml:7:15: constraints[0].priority: want a whole number from 1 (highest) to 5, found 9`}},
		{"required flag", "task:\n  - instruction: x\n    required: \"no\"\ninput:\n  userQuery: q\n", []string{`spec.yaml:3:15: task[0].required: want true or false, found the text "no"`}},
		{"constraint", minimal + "constraints:\n  - priority: 1\n  - text: t\n    source: user\n    id: a b\n", []string{
			`spec.yaml:6:5: constraints[0].text: missing: write the rule`,
			`spec.yaml:8:5: constraints[1].source: want system, policy or runtime, found "user"`,
			`spec.yaml:9:5: constraints[1].id: want letters, digits, '_' and '-', at most 64, found "a b"`,
		}},
		{"ids", "task:\n  - id: a\n    instruction: x\n  - id: a\n    instruction: y\ninput:\n  userQuery: q\n", []string{`spec.yaml:4:5: task[1].id: the id "a" is also task[0]'s: give each its own`}},
		{"state", minimal + "conversationState:\n  renderMode: full\n  retention:\n    maxMessages: 0\n    maxChars: -5\n  transcript:\n    - role: system\n      content: hi\n    - content: \"\"\n      at: yesterday\n", []string{
			`spec.yaml:6:3: conversationState.renderMode: want summary, transcript or both, found "full"`,
			`spec.yaml:8:18: conversationState.retention.maxMessages: want a whole number of 1 or more (leave the key out for no limit), found 0`,
			`spec.yaml:9:15: conversationState.retention.maxChars: want a whole number of 1 or more (leave the key out for no limit), found -5`,
			`spec.yaml:11:7: conversationState.transcript[0].role: want user, assistant or tool, found "system"`,
			`spec.yaml:13:7: conversationState.transcript[1].content: missing: give the message's text, or leave the message out`,
			`spec.yaml:13:7: conversationState.transcript[1].role: missing: say who sent the message, user, assistant or tool`,
			`spec.yaml:14:7: conversationState.transcript[1].at: want an RFC 3339 time such as 2026-03-01T09:30:00Z, or a date such as 2026-03-01, found "yesterday"`,
		}},
		{"heading level", minimal + "assembler:\n  headingLevel: 4\n  showEmptySections: \"no\"\n", []string{
			`spec.yaml:6:17: assembler.headingLevel: want 1, 2 or 3 (the number of '#' in a heading), found 4`,
			`spec.yaml:7:22: assembler.showEmptySections: want true or false, found the text "no"`,
		}},
		{"blank entry", minimal + "systemPrompt:\n  rules:\n    - one\n    - \"\"\n", []string{`spec.yaml:8:7: systemPrompt.rules[1]: empty: write the entry or remove it`}},
		{"blank tag", minimal + "constraints:\n  - text: t\n    tags: [a, \" \"]\n", []string{`spec.yaml:7:15: constraints[0].tags[1]: empty: write the entry or remove it`}},
		{"alias", minimal + "identity:\n  tone: &t calm\n  name: *t\n", []string{`spec.yaml:7:9: identity.name: aliases (*t) are not supported in a spec: write the value out`}},
		{"output format", "task:\n  - instruction: x\n    outputFormat:\n      type: yaml\n  - instruction: y\n    outputFormat:\n      name: a.b\n      jsonSchema: {type: object}\n  - instruction: z\n    outputFormat:\n      type: markdown\n      jsonSchema: [1]\ninput:\n  userQuery: q\n", []string{
			`spec.yaml:4:7: task[0].outputFormat.type: want markdown, json, xml or text, found "yaml"`,
			`spec.yaml:6:5: task[1].outputFormat.type: missing: say markdown, json, xml or text`,
			`spec.yaml:7:7: task[1].outputFormat.name: want letters, digits, '_' and '-', at most 64, found "a.b"`,
			`spec.yaml:12:19: task[2].outputFormat.jsonSchema: want a JSON Schema object, found a list`,
		}},
		{"schema type", "task:\n  - instruction: x\n    outputFormat:\n      type: text\n      jsonSchema: {type: object}\ninput:\n  userQuery: q\n", []string{
			`spec.yaml:5:7: task[0].outputFormat.jsonSchema: a schema needs type json, not text: change the type or remove the schema`,
		}},
		{"schema values", "task:\n  - instruction: x\n    outputFormat:\n      type: json\n      jsonSchema:\n        maximum: .inf\ninput:\n  userQuery: q\n", []string{
			`spec.yaml:6:18: task[0].outputFormat.jsonSchema: the number .inf cannot be written in JSON`,
		}},
		{"schema repeated key", "task:\n  - instruction: x\n    outputFormat:\n      type: json\n      jsonSchema:\n        type: object\n        type: string\ninput:\n  userQuery: q\n", []string{
			`spec.yaml:7:9: key "task[0].outputFormat.jsonSchema.type" is repeated (first at line 6): keep one`,
		}},
		{"schema tag", "task:\n  - instruction: x\n    outputFormat:\n      type: json\n      jsonSchema:\n        x: !!binary aGk=\ninput:\n  userQuery: q\n", []string{
			`spec.yaml:6:12: task[0].outputFormat.jsonSchema: the tag !!binary has no JSON form`,
		}},
		{"tools", minimal + "tools:\n  - name: look up\n  - description: x\n  - name: a\n    parameters: {type: object}\n  - name: a\n    parameters: \"{}\"\n", []string{
			`spec.yaml:6:5: tools[0].name: "look up": the name holds a space at byte 5, which providers refuse: use only letters, digits, '_' and '-'`,
			`spec.yaml:7:5: tools[1].name: missing: give the name the model calls the tool by`,
			`spec.yaml:10:5: tools[3].name: the name "a" is also tools[2]'s: give each its own`,
			`spec.yaml:11:17: tools[3].parameters: want a JSON Schema object, found the text "{}"`,
		}},
		{"attachments", "task:\n  - instruction: x\ninput:\n  userQuery: q\n  attachments:\n    - name: a.txt\n    - name: b.txt\n      mime: text\n      bytesBase64: \"!!\"\n    - name: c.txt\n      mime: text/plain\n      bytesBase64: /w==\n      uri: a b\n    - mime: image/png\n      bytesBase64: /w==\n", []string{
			`spec.yaml:6:7: input.attachments[0].mime: missing: give the media type, such as text/plain`,
			`spec.yaml:8:7: input.attachments[1].mime: want a media type such as text/plain, found "text"`,
			`spec.yaml:9:7: input.attachments[1].bytesBase64: not valid standard base64`,
			`spec.yaml:12:7: input.attachments[2].bytesBase64: the type text/plain is text, but the bytes are not UTF-8`,
			`spec.yaml:13:7: input.attachments[2].uri: holds white space: percent-encode it`,
			`spec.yaml:14:7: input.attachments[3].name: missing: give the file's name`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSpec("spec.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatalf("no error; spec %+v", s)
			}
			if s != nil {
				t.Error("spec returned with an error")
			}
			var list diag.List
			if !errors.As(err, &list) {
				t.Fatalf("error is %T, want diag.List", err)
			}
			if len(list) != len(tt.want) {
				t.Errorf("%d problems, want %d:\n%v", len(list), len(tt.want), err)
			}
			for i, w := range tt.want {
				if i < len(list) && !strings.Contains(list[i].Error(), w) {
					t.Errorf("problem %d:\n got %s\nwant %s", i, list[i].Error(), w)
				}
			}
		})
	}
}

func TestParseSpecAccepts(t *testing.T) {
	s, err := ParseSpec("spec.yaml", []byte("# a spec\r\n"+strings.ReplaceAll(minimal, "\n", "\r\n")+
		"requestingUser:\r\n  userId: 12345\r\n  tier: ~\r\nconversationState:\r\n  transcript:\r\n    - role: tool\r\n      content: ok\r\n      at: 2026-03-01\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.RequestingUser.UserID != "12345" || s.RequestingUser.Tier != "" || s.ConversationState.Transcript[0].At != "2026-03-01" {
		t.Errorf("values: %+v %+v", s.RequestingUser, s.ConversationState)
	}
	if s.Task[0].Instruction != "Do it." || s.Input.UserQuery != "Why?" {
		t.Errorf("task and input: %+v %+v", s.Task, s.Input)
	}
}

// TestParseSpecJSON reads a JSON spec, tabs, escaped slashes and all, and
// keeps the schema's property order.
func TestParseSpecJSON(t *testing.T) {
	src := "{\n\t\"task\": [{\"instruction\": \"Return the URL https:\\/\\/example.com\\/a\", \"priority\": 2,\n\t\t\"outputFormat\": {\"type\": \"json\", \"jsonSchema\": {\"type\": \"object\", \"properties\": {\"z\": {\"type\": \"string\", \"pattern\": \"^a\\/b$\"}, \"a\": {\"type\": \"integer\", \"maximum\": 1e3}}, \"required\": [\"z\"]}}}],\n\t\"input\": {\"userQuery\": \"Quote: \\\"hi\\\" \\u00e9\"}\n}\n"
	s, err := ParseSpec("spec.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Task[0].Instruction; got != "Return the URL https://example.com/a" {
		t.Errorf("instruction %q", got)
	}
	if got := s.Input.UserQuery; got != "Quote: \"hi\" é" {
		t.Errorf("query %q", got)
	}
	want := `{"type":"object","properties":{"z":{"type":"string","pattern":"^a/b$"},"a":{"type":"integer","maximum":1e3}},"required":["z"]}`
	if got := string(s.Task[0].OutputFormat.JSONSchema); got != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
	_, err = ParseSpec("spec.json", []byte("{\"task\": [], \"input\": {\"userQuery\": \"q\"},\n \"extra\": 1}"))
	if err == nil || !strings.Contains(err.Error(), `spec.json:2:2: unknown key "extra"`) {
		t.Errorf("unknown JSON key: %v", err)
	}
}

// TestSchemaFromYAML checks the conversion of YAML values to JSON: order
// kept, numbers in JSON form, strings escaped as JSON requires.
func TestSchemaFromYAML(t *testing.T) {
	src := "task:\n  - instruction: x\n    outputFormat:\n      type: json\n      jsonSchema:\n" +
		"        zeta: 0x1F\n        alpha: 1_000\n        float: 2.50\n        exp: 1E3\n        neg: -0.5\n        octal: 0o17\n" +
		"        yes: true\n        none: null\n        tilde: ~\n        date: 2026-03-01\n        quoted: \"12\"\n" +
		"        text: \"tab\\there \\\"q\\\" back\\\\slash <&> \\u2028 é\"\n        list: [1, [2, {b: c}], {}]\n        empty: {}\n" +
		"        123: numeric key\ninput:\n  userQuery: q\n"
	s, err := ParseSpec("spec.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"zeta":31,"alpha":1000,"float":2.50,"exp":1E3,"neg":-0.5,"octal":15,"yes":true,"none":null,"tilde":null,` +
		`"date":"2026-03-01","quoted":"12","text":"tab\there \"q\" back\\slash <&> \u2028 é","list":[1,[2,{"b":"c"}],{}],"empty":{},"123":"numeric key"}`
	if got := string(s.Task[0].OutputFormat.JSONSchema); got != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
}

func TestValidateGoSpec(t *testing.T) {
	s := &Spec{
		Task:  []TaskAnnotation{{Instruction: "x", Priority: 6}},
		Input: InputPayload{UserQuery: "q\xff"},
		Tools: []Tool{{Name: "t", Parameters: []byte(`{"type":`)}},
	}
	err := s.Validate()
	for _, want := range []string{
		"input.userQuery: not valid UTF-8 text",
		"task[0].priority: want a whole number from 1 (highest) to 5, found 6",
		"tools[0].parameters: want a JSON Schema object",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
	if strings.Contains(err.Error(), ".yaml") || strings.HasPrefix(err.Error(), ":") {
		t.Errorf("a Go-built spec has no file: %v", err)
	}
	ok := &Spec{Task: []TaskAnnotation{{Instruction: "x"}}, Input: InputPayload{UserQuery: "q"}}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid spec: %v", err)
	}
}

// TestRepeatedNames checks which earlier entry a repeated id or tool name
// is reported against, in short lists and in long ones: the first entry
// with the id, the last tool with the name.
func TestRepeatedNames(t *testing.T) {
	for _, n := range []int{8, 40} {
		var b strings.Builder
		b.WriteString("task:\n")
		for i := range n {
			id := fmt.Sprintf("t%d", i)
			if i == 0 || i == 5 || i == n-1 {
				id = "a"
			}
			fmt.Fprintf(&b, "  - {id: %s, instruction: x}\n", id)
		}
		b.WriteString("input: {userQuery: q}\ntools:\n")
		for i := range n {
			name := fmt.Sprintf("t%d", i)
			if i == 0 || i == 5 || i == n-1 {
				name = "a"
			}
			fmt.Fprintf(&b, "  - {name: %s}\n", name)
		}
		_, err := ParseSpec("spec.yaml", []byte(b.String()))
		if err == nil {
			t.Fatalf("%d entries: no error", n)
		}
		want := []string{
			`task[5].id: the id "a" is also task[0]'s`,
			fmt.Sprintf(`task[%d].id: the id "a" is also task[0]'s`, n-1),
			`tools[5].name: the name "a" is also tools[0]'s`,
			fmt.Sprintf(`tools[%d].name: the name "a" is also tools[5]'s`, n-1),
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%d entries: %q missing from\n%v", n, w, err)
			}
		}
		if got := strings.Count(err.Error(), " is also "); got != len(want) {
			t.Errorf("%d entries: %d repeats reported, want %d:\n%v", n, got, len(want), err)
		}
	}
}

// TestValidName checks the name check against the expression it
// replaces.
func TestValidName(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	for _, s := range []string{"", "a", "A-z_09", strings.Repeat("x", 64), strings.Repeat("x", 65), "a b", "a.b", "é", "a\n", "\u212a", "-", "_"} {
		if got, want := validName(s), re.MatchString(s); got != want {
			t.Errorf("validName(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestParseOwned checks that parseOwned, which reads a file's bytes in
// place when they need no normalising, parses every text as ParseSpec
// does: the same spec, or the same problems.
func TestParseOwned(t *testing.T) {
	for _, text := range []string{
		minimal,
		"\xEF\xBB\xBF" + minimal,
		strings.ReplaceAll(minimal, "\n", "\r\n"),
		minimal + "identity:\n  name: \xff\n",
		`{"task": [{"instruction": "See https:\/\/example.com"}], "input": {"userQuery": "q"}}`,
		"task: [\n",
		"",
	} {
		want, wantErr := ParseSpec("spec.yaml", []byte(text))
		data := []byte(text)
		got, err := parseOwned("spec.yaml", data)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("%q: error %v, ParseSpec's %v", text, err, wantErr)
			continue
		}
		if err != nil {
			continue
		}
		a, errA := got.marshalRecord()
		b, errB := want.marshalRecord()
		if errA != nil || errB != nil || string(a) != string(b) || got.text != want.text {
			t.Errorf("%q: parseOwned gives\n%s\nParseSpec\n%s", text, a, b)
		}
	}
}
