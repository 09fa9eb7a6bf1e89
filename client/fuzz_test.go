package client

import (
	"strings"
	"testing"
)

// Compile never panics, leaves a text without placeholders as it is, and
// replaces every placeholder Variables names.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{"Hi {{name}}", "{{ a }}{{b}}}}{{", "{{}}", "no vars", "{{{{x}}}}", "{{ unclosed"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := &Prompt{Text: s}
		vars := map[string]any{}
		for _, n := range p.Variables() {
			vars[n] = "\x00"
		}
		got := p.Compile(vars)
		if len(vars) == 0 && got != s {
			t.Fatalf("no variables, yet %q became %q", s, got)
		}
		if strings.Count(got, "\x00") < len(vars) && !strings.Contains(s, "\x00") {
			t.Fatalf("%q: %d variables, %d replaced: %q", s, len(vars), strings.Count(got, "\x00"), got)
		}
	})
}

// parsePrompt never panics, and what it accepts has a name and a type.
func FuzzParsePrompt(f *testing.F) {
	f.Add([]byte(`{"name":"a/b","version":1,"type":"text","prompt":"x","labels":["production"]}`))
	f.Add([]byte(`{"name":"c","type":"chat","prompt":[{"role":"system","content":"x"},{"type":"placeholder","name":"h"}]}`))
	f.Add([]byte(`{"name":"c","type":"chat","prompt":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parsePrompt(data)
		if err != nil {
			return
		}
		if p.Name == "" || p.Type != "text" && p.Type != "chat" {
			t.Fatalf("accepted %+v", p)
		}
	})
}
