package jinja

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestReferenceRenderings renders the Llama 3, Qwen 3 and Gemma 3 chat
// templates and checks the output byte for byte against @huggingface/jinja's
// (../testdata/chat_templates.json, written by
// bench/peers/hftok/reference.cjs).
func TestReferenceRenderings(t *testing.T) {
	data, err := os.ReadFile("../testdata/chat_templates.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string]struct {
		Template string `json:"template"`
		BOS      string `json:"bos_token"`
		EOS      string `json:"eos_token"`
		Cases    []struct {
			Input  json.RawMessage `json:"input"`
			Output string          `json:"output"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"llama3", "qwen3", "gemma3"} {
		r, ok := ref[m]
		if !ok {
			t.Fatalf("no reference for %s", m)
		}
		tmpl, err := Parse(r.Template)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		for i, c := range r.Cases {
			vars := map[string]any{"bos_token": r.BOS, "eos_token": r.EOS}
			in, err := FromJSON(c.Input)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range in.(*Object).keys {
				vars[k] = in.(*Object).m[k]
			}
			got, err := tmpl.Render(vars)
			if err != nil {
				t.Errorf("%s case %d: %v", m, i, err)
				continue
			}
			if got != c.Output {
				t.Errorf("%s case %d:\n got %q\nwant %q", m, i, got, c.Output)
			}
		}
	}
}

// TestRefused checks that constructs outside the subset are refused
// with their position.
func TestRefused(t *testing.T) {
	for _, tc := range []struct{ tmpl, want string }{
		{"{% macro f() %}x{% endmacro %}", `line 1, column 4: the statement "macro" is not supported`},
		{"a\n{{ x | wordcount }}", `line 2, column 6: the filter "wordcount" is not supported`},
		{"{{ x is divisibleby }}", `the test "divisibleby" is not supported`},
		{"{% if x %}", "the template ends before {% endif %}"},
		{"{{ 'abc }}", "a string is not closed"},
		{"{{ (1, 2) }}", "tuples are not supported"},
		{"{{ raise_exception('no') }}", "raise_exception: no"},
		{"{{ x.y }}", "cannot read y of an undefined value"},
	} {
		tmpl, err := Parse(tc.tmpl)
		if err == nil {
			_, err = tmpl.Render(nil)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.tmpl, err, tc.want)
		}
	}
}

// TestSemantics checks a few rules of the reference renderer.
func TestSemantics(t *testing.T) {
	for _, tc := range []struct{ tmpl, want string }{
		{"{{ 1 + 2 }}|{{ 7 // 2 }}|{{ 7 / 2 }}|{{ 2 * 1.5 }}|{{ 10 % 3 }}", "3|3|3.5|3.0|1"},
		{"{{ 'a' ~ 1 ~ true }}|{{ 'ab'[-1] }}|{{ [1,2,3][::-1] }}|{{ 'hello'[1:3] }}", "a1true|b|[3, 2, 1]|el"},
		{"{% for x in [1,2,3] %}{{ loop.index }}{% if not loop.last %},{% endif %}{% endfor %}", "1,2,3"},
		{"{% set ns = namespace(n=0) %}{% for x in range(4) %}{% set ns.n = ns.n + x %}{% endfor %}{{ ns.n }}", "6"},
		{"{{ ' x '.strip() }}|{{ 'a,b'.split(',')[1] }}|{{ '\\nq\\n'.lstrip('\\n') }}", "x|b|q\n"},
		{"  {%- if true -%}  yes  {%- endif %}\n", "yes"},
		{"{% if true %}\nA\n{% endif %}\nB", "A\nB"},
		{"{{ {'a': 1, 'b': [true, none]} | tojson }}", `{"a": 1, "b": [true, null]}`},
		{"{{ x is defined }}{{ none is none }}{{ 'a' in 'cat' }}{{ 2 in [1, 2] }}", "falsetruetruetrue"},
	} {
		tmpl, err := Parse(tc.tmpl)
		if err != nil {
			t.Errorf("%q: %v", tc.tmpl, err)
			continue
		}
		got, err := tmpl.Render(nil)
		if err != nil {
			t.Errorf("%q: %v", tc.tmpl, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%q = %q, want %q", tc.tmpl, got, tc.want)
		}
	}
}
