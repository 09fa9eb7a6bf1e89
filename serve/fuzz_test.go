package serve

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/serve/registry"
)

func FuzzParsePromptPath(f *testing.F) {
	for _, s := range []string{"pm_discovery.v1%2Fpgc", "a/b", "a%2Fb/versions/3", "..%2Fx", "x/versions/01", "%zz", "a%00", "specs%2Fsupport-ticket/versions/1"} {
		f.Add(s, strings.Contains(s, "/versions/"))
	}
	f.Fuzz(func(t *testing.T, s string, patch bool) {
		p, err := parsePromptPath(s, patch)
		if err != nil {
			return
		}
		if err := checkName(p.Name); err != nil {
			t.Fatalf("%q gave name %q, which checkName refuses: %v", s, p.Name, err)
		}
		for _, el := range strings.Split(p.Name, "/") {
			if el == ".." || el == "." || el == "" {
				t.Fatalf("%q gave name %q with element %q", s, p.Name, el)
			}
		}
		if (p.Version > 0) != patch {
			t.Fatalf("%q (patch %v) gave version %d", s, patch, p.Version)
		}
		// The name escaped again parses to itself.
		back := url.PathEscape(p.Name)
		if p.Version > 0 {
			back += "/versions/" + itoa(p.Version)
		}
		if q, err := parsePromptPath(back, patch); err != nil || q != p {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", s, p, back, q, err)
		}
	})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func FuzzParseListQuery(f *testing.F) {
	for _, s := range []string{"", "page=2&limit=10", "name=a%2Fb&label=production&tag=template", "fromUpdatedAt=2026-01-01T00:00:00Z", "limit=0", "page=-1", "label=A"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := url.ParseQuery(s)
		if err != nil {
			return
		}
		q, err := parseListQuery(v)
		if err != nil {
			return
		}
		if q.Page < 1 || q.Limit < 1 || q.Limit > maxLimit {
			t.Fatalf("%q: page %d, limit %d", s, q.Page, q.Limit)
		}
		if q.Name != "" && checkName(q.Name) != nil {
			t.Fatalf("%q: name %q", s, q.Name)
		}
	})
}

func FuzzParseSelector(f *testing.F) {
	f.Add("production", "", "")
	f.Add("", "3", "")
	f.Add("", "", "abcdef1")
	f.Add("feature/x", "", "")
	f.Fuzz(func(t *testing.T, label, version, commit string) {
		s, err := parseSelector(label, version, commit)
		if err != nil {
			return
		}
		n := 0
		if s.Label != "" {
			n++
			if checkLabelOrBranch(s.Label) != nil || strings.Contains(s.Label, "..") {
				t.Fatalf("label %q accepted", s.Label)
			}
		}
		if s.Version != 0 {
			n++
		}
		if s.Commit != "" {
			n++
		}
		if n != 1 {
			t.Fatalf("%q %q %q selects by %d things: %+v", label, version, commit, n, s)
		}
	})
}

func FuzzParsePatchBody(f *testing.F) {
	for _, s := range []string{`{"newLabels":["production"]}`, `{"removeLabels":["staging"],"reason":"x"}`, `{"newLabels":["latest"]}`, `{"newLabels":["a"],"removeLabels":["a"]}`, `{}`, `[]`, `{"newLabels":["a"]} {}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := parsePatchBody(data)
		if err != nil {
			return
		}
		for _, l := range append(append([]string{}, b.NewLabels...), b.RemoveLabels...) {
			if registry.CheckLabel(l) != nil || l == registry.Latest {
				t.Fatalf("%q: label %q accepted", data, l)
			}
		}
		again, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parsePatchBody(again)
		if err != nil || !reflect.DeepEqual(b, c) {
			t.Fatalf("%q -> %s -> %+v, %v", data, again, c, err)
		}
	})
}

func FuzzParseRenderBody(f *testing.F) {
	for _, s := range []string{`{"name":"pm_discovery.v1/pgc"}`, `{"name":"a","label":"staging"}`, `{"name":"a","version":2,"commit":"abcdef1"}`, `{"name":"../a"}`, `{"name":"a","variables":{"x":"y"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, sel, err := parseRenderBody(data)
		if err != nil {
			return
		}
		if checkName(b.Name) != nil {
			t.Fatalf("%q: name %q accepted", data, b.Name)
		}
		if sel.Label == "" && sel.Version == 0 && sel.Commit == "" {
			t.Fatalf("%q: selects nothing", data)
		}
	})
}

func FuzzUnifiedDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("", "x")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\nthree\n4\n5\n6\n7\n8\nnine\n10")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := unifiedDiff("a", "b", a, b)
		if (d == "") != (a == b) {
			t.Fatalf("diff of %q and %q is %q", a, b, d)
		}
		if d != unifiedDiff("a", "b", a, b) {
			t.Fatal("not deterministic")
		}
	})
}

func FuzzMergeObject(f *testing.F) {
	f.Add(`{"a":1,"b":{"c":2}}`, "b", `"x"`)
	f.Add(`{}`, "input", `{"userQuery":"hi"}`)
	f.Add(`[1]`, "a", `1`)
	f.Fuzz(func(t *testing.T, obj, key, val string) {
		if !json.Valid([]byte(val)) || !utf8.ValidString(key) {
			return // keys come from decoded JSON, always UTF-8
		}
		out, err := mergeObject(json.RawMessage(obj), map[string]json.RawMessage{key: json.RawMessage(val)})
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("merge of %q into %q is not JSON: %s", val, obj, out)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		var want, got any
		json.Unmarshal([]byte(val), &want)
		json.Unmarshal(m[key], &got)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("merge of %q into %q: %q is %s", val, obj, key, m[key])
		}
	})
}

func FuzzParseKeyBody(f *testing.F) {
	f.Add([]byte(`{"public":"pk-ci","role":"viewer"}`))
	f.Add([]byte(`{"public":"pk","secret":"short","role":"admin"}`))
	f.Add([]byte(`{"public":"pk-x","secret":"0123456789abcdef","role":"member","x":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := parseKeyBody(data)
		if err != nil {
			return
		}
		if !publicKeyRE.MatchString(b.Public) || CheckRole(b.Role) != nil || (b.Secret != "" && len(b.Secret) < minSecretBytes) {
			t.Fatalf("%q accepted as %+v", data, b)
		}
	})
}

func FuzzVerify(f *testing.F) {
	f.Add("t=1800000000,v1=00ff", []byte(`{}`))
	f.Add("v1=,t=", []byte(nil))
	f.Add("t=-9223372036854775808,v1=zz", []byte("x"))
	now := time.Unix(1_800_000_000, 0)
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		if Verify("secret-0123456789", header, body, now, time.Minute) == nil && header != Sign("secret-0123456789", now, body) {
			// Another spelling of the same signature may pass; a
			// signature of other bytes may not.
			if Verify("secret-0123456789", Sign("secret-0123456789", now, body), body, now, time.Minute) != nil {
				t.Fatalf("a fresh signature does not verify")
			}
		}
		if err := Verify("secret-0123456789", Sign("secret-0123456789", now, body), body, now, time.Minute); err != nil {
			t.Fatal(err)
		}
	})
}
