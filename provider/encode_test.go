package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/golden"

	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/schema"
)

func TestFormats(t *testing.T) {
	for _, f := range Formats() {
		g, err := ParseFormat(f.String())
		if err != nil || g != f {
			t.Errorf("ParseFormat(%q) = %v, %v", f, g, err)
		}
	}
	_, err := ParseFormat("claude")
	if err == nil || err.Error() != `unknown provider format "claude": use one of openai, openai-responses, anthropic, gemini` {
		t.Errorf("ParseFormat(claude): %v", err)
	}
	if Format(0).String() != "Format(0)" || Format(9).String() != "Format(9)" {
		t.Errorf("invalid formats print as %s, %s", Format(0), Format(9))
	}
	if _, err := Encode(Format(9), Request{User: []Part{{Text: "x"}}}, Options{}); err == nil || !strings.Contains(err.Error(), "unknown format Format(9)") {
		t.Errorf("Encode with an unknown format: %v", err)
	}
}

// decode unmarshals a body into generic JSON for field checks.
func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, b)
	}
	return m
}

// at walks a decoded body by object keys and array indexes.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func TestEncodeFieldsPerFormat(t *testing.T) {
	req := fixtureRequest()
	req.Model = "m-1"
	system := fixtureSections[0].text + "\n\n" + fixtureSections[1].text
	var user []string
	for _, s := range fixtureSections[2:] {
		user = append(user, s.text)
	}
	allUser := strings.Join(user, "\n\n")

	body := func(f Format, o Options) map[string]any {
		b, err := Encode(f, req, o)
		if err != nil {
			t.Fatal(err)
		}
		return decode(t, b.JSON)
	}
	check := func(name string, got, want any) {
		t.Helper()
		if g, _ := json.Marshal(got); string(g) != mustJSON(t, want) {
			t.Errorf("%s = %s, want %s", name, g, mustJSON(t, want))
		}
	}

	m := body(OpenAIChat, Options{})
	check("chat model", m["model"], "m-1")
	check("chat system", at(m, "messages", 0), map[string]any{"role": "developer", "content": system})
	check("chat user", at(m, "messages", 1), map[string]any{"role": "user", "content": allUser})
	check("chat tool", at(m, "tools", 1, "function", "name"), "file_ticket")
	check("chat tool strict", at(m, "tools", 0, "function", "strict"), true)
	check("chat format", at(m, "response_format", "json_schema", "name"), "open_questions")
	check("chat format strict", at(m, "response_format", "json_schema", "strict"), true)
	check("chat max", m["max_completion_tokens"], 1024)
	check("chat system role", at(body(OpenAIChat, Options{SystemRole: "system"}), "messages", 0, "role"), "system")

	m = body(OpenAIResponses, Options{})
	check("responses system", at(m, "input", 0), map[string]any{"type": "message", "role": "developer", "content": system})
	check("responses user", at(m, "input", 1, "content"), allUser)
	check("responses tool", at(m, "tools", 0, "name"), "search_docs")
	check("responses tool strict", at(m, "tools", 0, "strict"), true)
	check("responses format", at(m, "text", "format", "type"), "json_schema")
	check("responses max", m["max_output_tokens"], 1024)

	m = body(Anthropic, Options{})
	check("anthropic system", m["system"], []any{map[string]any{"type": "text", "text": system}})
	check("anthropic user", at(m, "messages", 0, "content"), []any{
		map[string]any{"type": "text", "text": user[0]},
		map[string]any{"type": "text", "text": strings.Join(user[1:], "\n\n")},
	})
	check("anthropic max", m["max_tokens"], 1024)
	check("anthropic format", at(m, "output_config", "format", "type"), "json_schema")
	check("anthropic no breakpoints", at(m, "tools", 1, "cache_control"), nil)

	m = body(Gemini, Options{})
	if _, ok := m["model"]; ok {
		t.Error("the Gemini body names the model, which belongs in the URL")
	}
	check("gemini system", m["systemInstruction"], map[string]any{"parts": []any{map[string]any{"text": system}}})
	check("gemini user", at(m, "contents", 0, "parts", 1, "text"), strings.Join(user[1:], "\n\n"))
	check("gemini tool", at(m, "tools", 0, "functionDeclarations", 1, "name"), "file_ticket")
	check("gemini config", at(m, "generationConfig", "responseMimeType"), "application/json")
	check("gemini max", at(m, "generationConfig", "maxOutputTokens"), 1024)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEncodeKeepsSchemaOrder checks that properties reach the wire in
// the order written, which a Go map would sort.
func TestEncodeKeepsSchemaOrder(t *testing.T) {
	req := fixtureRequest()
	for _, f := range Formats() {
		b, err := Encode(f, req, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, seq := range [][]string{
			{`"summary"`, `"questions"`, `"confidence"`},
			{`"title"`, `"severity"`, `"body"`},
			{`"query":{"type":"string","description":"Words to look for."},"limit"`},
		} {
			i := 0
			for _, s := range seq {
				j := bytes.Index(b.JSON[i:], []byte(s))
				if j < 0 {
					t.Errorf("%s: %s missing or out of order", f, s)
					break
				}
				i += j
			}
		}
	}
}

func TestEncodeDeterministic(t *testing.T) {
	req := fixtureRequest()
	for _, f := range Formats() {
		a, _ := Encode(f, req, Options{CacheBreakpoints: true})
		b, _ := Encode(f, req, Options{CacheBreakpoints: true})
		if !bytes.Equal(a.JSON, b.JSON) || a.StablePrefixHash != b.StablePrefixHash {
			t.Errorf("%s: two encodings differ", f)
		}
	}
}

func TestStablePrefix(t *testing.T) {
	base := fixtureRequest()
	enc := func(r Request, o Options) Body {
		t.Helper()
		b, err := Encode(Anthropic, r, o)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b0 := enc(base, Options{})
	if len(b0.StablePrefixHash) != 64 || b0.StablePrefixTokens != 0 || b0.Counter != "" {
		t.Errorf("without a counter: %+v", b0)
	}
	for _, f := range Formats() {
		if b, _ := Encode(f, base, Options{SystemRole: "system"}); b.StablePrefixHash != b0.StablePrefixHash {
			t.Errorf("%s: prefix hash %s differs from anthropic's %s", f, b.StablePrefixHash, b0.StablePrefixHash)
		}
	}

	// The counted prefix: tool names, descriptions and parameters, the
	// output schema, and the three stable parts before the first
	// volatile one.
	w := golden.WordCounter{}
	want := 0
	for _, tl := range base.Tools {
		var c bytes.Buffer
		json.Compact(&c, tl.Parameters)
		want += w.Count(tl.Name) + w.Count(tl.Description) + w.Count(c.String())
	}
	var c bytes.Buffer
	json.Compact(&c, fixtureOutput)
	want += w.Count(c.String())
	for _, s := range fixtureSections[:3] {
		want += w.Count(s.text)
	}
	if b := enc(base, Options{Counter: w}); b.StablePrefixTokens != want || b.Counter != "test/words" || b.StablePrefixHash != b0.StablePrefixHash {
		t.Errorf("with a counter: tokens %d (want %d), counter %q", b.StablePrefixTokens, want, b.Counter)
	}

	change := func(name string, edit func(r *Request), same bool) {
		t.Helper()
		r := fixtureRequest()
		r.System = append([]Part(nil), r.System...)
		r.User = append([]Part(nil), r.User...)
		r.Tools = append([]prompt.Tool(nil), r.Tools...)
		edit(&r)
		if got := enc(r, Options{}).StablePrefixHash == b0.StablePrefixHash; got != same {
			t.Errorf("%s: prefix hash unchanged = %v, want %v", name, got, same)
		}
	}
	change("volatile input edited", func(r *Request) { r.User[4].Text += "!" }, true)
	change("stable part after a volatile one edited", func(r *Request) { r.User[2].Text += "!" }, true)
	change("model and max tokens", func(r *Request) { r.Model, r.MaxTokens = "other", 7 }, true)
	change("stable user part edited", func(r *Request) { r.User[0].Text += "!" }, false)
	change("system part edited", func(r *Request) { r.System[1].Text += "!" }, false)
	change("part key", func(r *Request) { r.System[0].Key = "other" }, false)
	change("tool description", func(r *Request) { r.Tools[0].Description += "!" }, false)
	change("output schema", func(r *Request) {
		o := *r.Output
		o.Schema = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
		r.Output = &o
	}, false)
	change("whitespace in a schema", func(r *Request) {
		r.Tools[1].Parameters = json.RawMessage("  " + string(r.Tools[1].Parameters) + "\n")
	}, true)
	change("text moved between parts", func(r *Request) {
		r.System[0].Text += "\n\n## [Assistant Identity]"
		r.System[1].Text = strings.TrimPrefix(r.System[1].Text, "## [Assistant Identity]")
	}, false)

	if b := enc(Request{User: []Part{{Text: "volatile"}}}, Options{Counter: w}); b.StablePrefixHash != "" || b.StablePrefixTokens != 0 || b.Counter != "test/words" {
		t.Errorf("nothing stable: %+v", b)
	}
}

// blocks returns the cache_control marks of an Anthropic body: for each
// tool, system block and user block, whether it is marked.
func marks(t *testing.T, body []byte) (tools, system, user []bool) {
	m := decode(t, body)
	get := func(v any) (out []bool) {
		a, _ := v.([]any)
		for _, x := range a {
			out = append(out, at(x, "cache_control", "type") == "ephemeral")
		}
		return out
	}
	return get(m["tools"]), get(m["system"]), get(at(m, "messages", 0, "content"))
}

func TestCacheBreakpoints(t *testing.T) {
	opts := Options{CacheBreakpoints: true}
	sys := func(stable ...bool) (ps []Part) {
		for i, s := range stable {
			ps = append(ps, Part{Key: "s" + string(rune('0'+i)), Text: "system text", Stable: s})
		}
		return ps
	}
	usr := func(stable ...bool) (ps []Part) {
		for i, s := range stable {
			ps = append(ps, Part{Key: "u" + string(rune('0'+i)), Text: "user text", Stable: s})
		}
		return ps
	}
	tools := []prompt.Tool{{Name: "a"}, {Name: "b"}}
	for _, c := range []struct {
		name              string
		req               Request
		tools, sys, users string
		n                 int
	}{
		{"fixture", fixtureRequest(), "01", "1", "10", 3},
		{"all stable", Request{Tools: tools, System: sys(true, true), User: usr(true, true)}, "01", "1", "1", 3},
		{"volatile system part ends the prefix", Request{Tools: tools, System: sys(true, false, true), User: usr(true)}, "01", "10", "0", 2},
		{"first system part volatile", Request{System: sys(false), User: usr(true)}, "", "0", "0", 0},
		{"no system", Request{User: usr(true, false)}, "", "", "10", 1},
		{"nothing stable", Request{Tools: tools[:1], User: usr(false)}, "1", "", "0", 1},
		{"empty parts are skipped", Request{System: []Part{{Text: ""}, {Text: "s", Stable: true}}, User: []Part{{Text: "", Stable: false}, {Text: "u", Stable: true}}}, "", "1", "1", 2},
	} {
		b, err := Encode(Anthropic, c.req, opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		tl, s, u := marks(t, b.JSON)
		str := func(bs []bool) string {
			var sb strings.Builder
			for _, x := range bs {
				if x {
					sb.WriteByte('1')
				} else {
					sb.WriteByte('0')
				}
			}
			return sb.String()
		}
		if str(tl) != c.tools || str(s) != c.sys || str(u) != c.users || b.CacheBreakpoints != c.n {
			t.Errorf("%s: marks tools %s system %s user %s (%d), want %s %s %s (%d)", c.name, str(tl), str(s), str(u), b.CacheBreakpoints, c.tools, c.sys, c.users, c.n)
		}
		if b.CacheBreakpoints > 4 {
			t.Errorf("%s: %d breakpoints, the API allows 4", c.name, b.CacheBreakpoints)
		}
		// Without the option the blocks are the same, unmarked.
		plain, _ := Encode(Anthropic, c.req, Options{})
		if got := strings.ReplaceAll(string(b.JSON), cacheControl, ""); got != string(plain.JSON) || plain.CacheBreakpoints != 0 {
			t.Errorf("%s: without breakpoints the body differs in more than the marks:\n%s\n%s", c.name, got, plain.JSON)
		}
		// Other formats never carry marks.
		for _, f := range []Format{OpenAIChat, OpenAIResponses, Gemini} {
			if o, _ := Encode(f, c.req, opts); bytes.Contains(o.JSON, []byte("cache_control")) || o.CacheBreakpoints != 0 {
				t.Errorf("%s: %s body has cache marks", c.name, f)
			}
		}
	}
}

func TestEncodeSmallRequests(t *testing.T) {
	req := Request{User: []Part{{Text: "Hi \"there\"\n<b>"}}}
	want := map[Format]string{
		OpenAIChat:      `{"messages":[{"role":"user","content":"Hi \"there\"\n<b>"}]}`,
		OpenAIResponses: `{"input":[{"type":"message","role":"user","content":"Hi \"there\"\n<b>"}]}`,
		Anthropic:       `{"max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"Hi \"there\"\n<b>"}]}]}`,
		Gemini:          `{"contents":[{"role":"user","parts":[{"text":"Hi \"there\"\n<b>"}]}]}`,
	}
	for _, f := range Formats() {
		b, err := Encode(f, req, Options{})
		if err != nil || string(b.JSON) != want[f] {
			t.Errorf("%s: %s, %v\nwant %s", f, b.JSON, err, want[f])
		}
	}

	// A tool without parameters, a token limit and no output schema.
	req = Request{User: []Part{{Text: "u"}}, Tools: []prompt.Tool{{Name: "now"}}, MaxTokens: 5}
	want = map[Format]string{
		OpenAIChat:      `{"tools":[{"type":"function","function":{"name":"now"}}],"messages":[{"role":"user","content":"u"}],"max_completion_tokens":5}`,
		OpenAIResponses: `{"tools":[{"type":"function","name":"now","parameters":{"type":"object","properties":{},"additionalProperties":false},"strict":false}],"input":[{"type":"message","role":"user","content":"u"}],"max_output_tokens":5}`,
		Anthropic:       `{"max_tokens":5,"tools":[{"name":"now","input_schema":{"type":"object","properties":{},"additionalProperties":false}}],"messages":[{"role":"user","content":[{"type":"text","text":"u"}]}]}`,
		Gemini:          `{"tools":[{"functionDeclarations":[{"name":"now"}]}],"contents":[{"role":"user","parts":[{"text":"u"}]}],"generationConfig":{"maxOutputTokens":5}}`,
	}
	for _, f := range Formats() {
		b, err := Encode(f, req, Options{})
		if err != nil || string(b.JSON) != want[f] {
			t.Errorf("%s: %s, %v\nwant %s", f, b.JSON, err, want[f])
		}
	}

	// An output schema, not strict, without a name or a limit.
	req = Request{User: []Part{{Text: "u"}}, Output: &Output{Schema: json.RawMessage(` {"type": "object"} `)}}
	want = map[Format]string{
		OpenAIChat:      `{"messages":[{"role":"user","content":"u"}],"response_format":{"type":"json_schema","json_schema":{"name":"output","schema":{"type":"object"}}}}`,
		OpenAIResponses: `{"input":[{"type":"message","role":"user","content":"u"}],"text":{"format":{"type":"json_schema","name":"output","schema":{"type":"object"}}}}`,
		Anthropic:       `{"max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"u"}]}],"output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}}}`,
		Gemini:          `{"contents":[{"role":"user","parts":[{"text":"u"}]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object"}}}`,
	}
	for _, f := range Formats() {
		b, err := Encode(f, req, Options{})
		if err != nil || string(b.JSON) != want[f] {
			t.Errorf("%s: %s, %v\nwant %s", f, b.JSON, err, want[f])
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	user := []Part{{Text: "u"}}
	tool := func(name, params string) []prompt.Tool {
		return []prompt.Tool{{Name: name, Parameters: json.RawMessage(params)}}
	}
	for _, c := range []struct {
		name string
		f    Format
		req  Request
		opts Options
		msg  string
	}{
		{"role", OpenAIChat, Request{User: user}, Options{SystemRole: "assistant"}, `system role "assistant": use "developer" or "system"`},
		{"no user", Anthropic, Request{System: user, User: []Part{{Text: ""}}}, Options{}, "the request has no user-side text"},
		{"max tokens", Gemini, Request{User: user, MaxTokens: -1}, Options{}, "max tokens -1 is negative"},
		{"tool name", OpenAIChat, Request{User: user, Tools: tool("get weather", "")}, Options{}, `tool 1 name "get weather": the name holds a space at byte 4, which providers refuse`},
		{"empty tool name", OpenAIChat, Request{User: user, Tools: tool("", "")}, Options{}, `tool 1 name ""`},
		{"long tool name", OpenAIChat, Request{User: user, Tools: tool(strings.Repeat("a", 65), "")}, Options{}, "providers take at most 64"},
		{"repeated tool", OpenAIChat, Request{User: user, Tools: append(tool("a", ""), tool("a", "")...)}, Options{}, `tool "a" is listed twice`},
		{"params not JSON", Anthropic, Request{User: user, Tools: tool("a", `{"type":`)}, Options{}, `tool "a" parameters: JSON at byte 8 (at "/type"): unexpected end of input`},
		{"params not object", Gemini, Request{User: user, Tools: tool("a", `["x"]`)}, Options{}, `tool "a" parameters: not a JSON object`},
		{"params not UTF-8", Gemini, Request{User: user, Tools: tool("a", "{\"d\":\"\xff\"}")}, Options{}, `tool "a" parameters: JSON at byte 6 (at "/d"): invalid UTF-8 in string`},
		{"output name", OpenAIChat, Request{User: user, Output: &Output{Name: "my output", Schema: json.RawMessage(`{}`)}}, Options{}, `output name "my output"`},
		{"output missing", OpenAIResponses, Request{User: user, Output: &Output{Name: "o"}}, Options{}, `output schema "o": JSON at byte 0 (at the root): unexpected end of input`},
		{"output not object", Anthropic, Request{User: user, Output: &Output{Schema: json.RawMessage(`true`)}}, Options{}, `output schema "output": not a JSON object`},
	} {
		_, err := Encode(c.f, c.req, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "provider: ") {
			t.Errorf("%s: error %v, want %q", c.name, err, c.msg)
		}
	}
}

func TestEncodeStrict(t *testing.T) {
	open := json.RawMessage(`{"type":"object","properties":{"a/b":{"type":"string"}}}`)
	req := Request{User: []Part{{Text: "u"}}, Output: &Output{Schema: open, Strict: true}}
	for _, f := range []Format{OpenAIChat, OpenAIResponses} {
		_, err := Encode(f, req, Options{})
		var se *StrictError
		if !errors.As(err, &se) || se.Schema != "output schema" || len(se.Violations) != 2 || se.Violations[0].Pointer != "/properties/a~1b" || se.Violations[1].Pointer != "" {
			t.Fatalf("%s: %v", f, err)
		}
		want := `provider: output schema breaks OpenAI strict mode in 2 places; at "/properties/a~1b": property "a/b" is not in "required"`
		if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "(fix the schema, run schema.Strictify on it, or turn strict off)") {
			t.Errorf("%s: message %q", f, err)
		}
	}
	// Anthropic and Gemini have no strict flag for the output; the schema
	// goes as written.
	for _, f := range []Format{Anthropic, Gemini} {
		if _, err := Encode(f, req, Options{}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// Strict tools are checked for OpenAI only; not strict, not checked.
	req = Request{User: []Part{{Text: "u"}}, Tools: []prompt.Tool{{Name: "t", Parameters: open}}, StrictTools: true}
	_, err := Encode(OpenAIResponses, req, Options{})
	var se *StrictError
	if !errors.As(err, &se) || se.Schema != `tool "t" parameters` {
		t.Errorf("strict tool: %v", err)
	}
	if _, err := Encode(Anthropic, req, Options{}); err != nil {
		t.Errorf("anthropic strict tool: %v", err)
	}
	req.StrictTools = false
	if _, err := Encode(OpenAIChat, req, Options{}); err != nil {
		t.Errorf("tool not strict: %v", err)
	}
	one := &StrictError{Schema: "x", Violations: []schema.Violation{{Msg: "m"}}}
	if !strings.Contains(one.Error(), "in 1 place;") {
		t.Errorf("singular: %s", one)
	}
}

// TestStablePrefixSerialisation pins the documented serialisation the
// stable prefix hash is taken over.
func TestStablePrefixSerialisation(t *testing.T) {
	req := Request{
		System: []Part{{Key: "rules", Text: "Be brief.", Stable: true}},
		User:   []Part{{Key: "guide", Text: "ünï,\n:", Stable: true}, {Key: "task", Text: "volatile"}},
		Tools:  []prompt.Tool{{Name: "t", Description: "d", Parameters: json.RawMessage(`{ "type": "object" }`)}, {Name: "u"}},
		Output: &Output{Schema: json.RawMessage(`{"type":"object"}`)},
	}
	want := "tessera.stable-prefix.v1\n" +
		"tool 1:t,1:d,17:{\"type\":\"object\"},\n" +
		"tool 1:u,0:,0:,\n" +
		"output 6:output,17:{\"type\":\"object\"},\n" +
		"system 5:rules,9:Be brief.,\n" +
		"user 5:guide,8:ünï,\n:,\n"
	b, err := Encode(Gemini, req, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b.StablePrefixHash != prompt.Hash(want) {
		t.Errorf("prefix hash %s, want the hash of\n%s", b.StablePrefixHash, want)
	}
}

// TestMinCacheTokens checks that each breakpoint whose prefix (tools,
// then stable system text, then stable user text) is under the minimum
// is left out and counted, and that the rest of the body is the same.
func TestMinCacheTokens(t *testing.T) {
	req := Request{
		Tools:  []prompt.Tool{{Name: "a", Description: "one two three"}}, // 4 words
		System: []Part{{Key: "s", Text: "five words of system text", Stable: true}},
		User:   []Part{{Key: "u", Text: "six words of stable user text", Stable: true}, {Key: "v", Text: "volatile"}},
	}
	for _, c := range []struct {
		min             int
		tools, sys, usr string
		placed, dropped int
	}{
		{0, "1", "1", "10", 3, 0},
		{4, "1", "1", "10", 3, 0},
		{5, "0", "1", "10", 2, 1},
		{9, "0", "1", "10", 2, 1},
		{10, "0", "0", "10", 1, 2},
		{15, "0", "0", "10", 1, 2},
		{16, "0", "0", "00", 0, 3},
	} {
		b, err := Encode(Anthropic, req, Options{CacheBreakpoints: true, MinCacheTokens: c.min, Counter: golden.WordCounter{}})
		if err != nil {
			t.Fatal(err)
		}
		tl, s, u := marks(t, b.JSON)
		if got := bits(tl) + " " + bits(s) + " " + bits(u); got != c.tools+" "+c.sys+" "+c.usr || b.CacheBreakpoints != c.placed || b.BreakpointsDropped != c.dropped {
			t.Errorf("min %d: marks %s, %d placed, %d dropped; want %s %s %s, %d, %d", c.min, got, b.CacheBreakpoints, b.BreakpointsDropped, c.tools, c.sys, c.usr, c.placed, c.dropped)
		}
		if b.StablePrefixTokens != 15 {
			t.Errorf("min %d: prefix tokens %d, want 15", c.min, b.StablePrefixTokens)
		}
		plain, _ := Encode(Anthropic, req, Options{Counter: golden.WordCounter{}})
		if got := strings.ReplaceAll(string(b.JSON), cacheControl, ""); got != string(plain.JSON) {
			t.Errorf("min %d: the body differs in more than the marks", c.min)
		}
	}
	// Without a counter nothing is counted, so every breakpoint is placed.
	if b, _ := Encode(Anthropic, req, Options{CacheBreakpoints: true, MinCacheTokens: 1000}); b.CacheBreakpoints != 3 || b.BreakpointsDropped != 0 {
		t.Errorf("without a counter: %d placed, %d dropped", b.CacheBreakpoints, b.BreakpointsDropped)
	}
}

func bits(bs []bool) string {
	var sb strings.Builder
	for _, x := range bs {
		if x {
			sb.WriteByte('1')
		} else {
			sb.WriteByte('0')
		}
	}
	return sb.String()
}
