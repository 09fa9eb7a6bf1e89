package output

import (
	"strings"
	"testing"
)

const itemSchema = `{"type":"object","properties":{"file":{"type":"string"},"line":{"type":"integer","minimum":1},"severity":{"enum":["blocking","nit"]}},"required":["file","line","severity"],"additionalProperties":false}`

func TestParse(t *testing.T) {
	s, err := Compile("review", []byte(itemSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		reply, want, err string
	}{
		{reply: "Here it is:\n```json\n{\"file\": \"a.go\", \"line\": 3, \"severity\": \"nit\"}\n```\nThanks.", want: `{"file":"a.go","line":3,"severity":"nit"}`},
		{reply: `{"file":"a.go","line":3,"severity":"nit"}`, want: `{"file":"a.go","line":3,"severity":"nit"}`},
		{reply: "no json here", err: "review: the reply holds no JSON object (fenced as ```json, or bare)"},
		{reply: "x\n  {\"file\": 1, \"line\": 0, \"severity\": \"major\", \"extra\": true}", err: `review:2:3: /file: got number, want string; /line: minimum: got 0, want 1; /severity: value must be one of 'blocking', 'nit'; /extra: a key the schema does not declare`},
		{reply: "{\"file\": \"a.go\",}", err: "review:1:1: the value is not valid JSON"},
	}
	for _, tt := range tests {
		got, err := Parse("review", []byte(tt.reply), '{', s)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.reply, err, tt.err)
			}
			var pe *Error
			if err != nil && (!asError(err, &pe) || pe.Reply != tt.reply) {
				t.Errorf("%q: the error does not keep the reply", tt.reply)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%q: %s %v, want %s", tt.reply, got, err, tt.want)
		}
	}
}

func asError(err error, pe **Error) bool {
	e, ok := err.(*Error)
	*pe = e
	return ok
}

func TestCompileRefusesRemoteRefs(t *testing.T) {
	_, err := Compile("x", []byte(`{"$ref": "https://example.com/schema.json"}`))
	if err == nil || !strings.Contains(err.Error(), "may not refer to other documents") {
		t.Errorf("remote $ref: %v", err)
	}
	if _, err := Compile("x", []byte(`{"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"}`)); err != nil {
		t.Errorf("local $ref: %v", err)
	}
	if _, err := Compile("x", []byte(`{"type": 5}`)); err == nil {
		t.Error("an invalid schema compiled")
	}
}

type comment struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Severity string `json:"severity"`
}

func TestDecode(t *testing.T) {
	got, err := Decode[[]comment]("review", []byte("Here:\n```json\n[{\"file\": \"a.go\", \"line\": 3, \"severity\": \"nit\"}]\n```"), nil)
	if err != nil || len(got) != 1 || got[0] != (comment{"a.go", 3, "nit"}) {
		t.Errorf("Decode: %+v %v", got, err)
	}
	one, err := Decode[comment]("review", []byte(`{"file": "a.go", "line": 3, "severity": "nit"}`), nil)
	if err != nil || one.Line != 3 {
		t.Errorf("Decode one: %+v %v", one, err)
	}
	for _, tt := range []struct{ reply, want string }{
		{"x\n{\"file\": \"a.go\", \"line\": 3, \"severity\": \"nit\", \"extra\": 1}", `review:2:1: does not fit output.comment: unknown field "extra"`},
		{`{"file": "a.go", "line": "3"}`, `review:1:1: does not fit output.comment: cannot unmarshal string into Go struct field comment.line of type int`},
	} {
		_, err := Decode[comment]("review", []byte(tt.reply), nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q:\n got %v\nwant %s", tt.reply, err, tt.want)
		}
	}
	s, err := Compile("review", []byte(itemSchema))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode[comment]("review", []byte(`{"file": "a.go", "line": 0, "severity": "nit"}`), s); err == nil || !strings.Contains(err.Error(), "/line: minimum") {
		t.Errorf("schema and type: %v", err)
	}
}
