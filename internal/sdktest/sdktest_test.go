package sdktest

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder stands in for a test, to see how the helpers fail one. Its
// Fatal and Fatalf end the goroutine, as a test's do; run calls a helper
// on a goroutine of its own for that reason.
type recorder struct {
	testing.TB
	failed, fatal bool
	msg           string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msg += fmt.Sprintf(format, args...) + "\n"
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.Fatalf("%s", fmt.Sprint(args...))
}

// run calls f with a recorder and returns it once f has returned or
// failed the recorder fatally.
func run(t *testing.T, f func(tb testing.TB)) *recorder {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGoldens(t *testing.T) {
	root := t.TempDir()
	bodies := filepath.Join(root, "engine", "testdata", "bodies")
	golden := filepath.Join(root, "provider", "testdata", "golden")
	write(t, filepath.Join(bodies, "one", "openai.json"), `{"n":1}`)
	write(t, filepath.Join(bodies, "one", "openai-responses.json"), `{"n":2}`)
	write(t, filepath.Join(golden, "two", "openai.json"), `{"n":3}`)
	write(t, filepath.Join(golden, "two", "gemini.json"), `{"n":4}`)
	// The tests run in the adapter module's directory, beside engine and
	// provider.
	if err := os.Mkdir(filepath.Join(root, "openai"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(root, "openai"))

	got := Goldens(t, "openai.json", 2)
	want := map[string]string{
		filepath.Join("..", "engine", "testdata", "bodies", "one", "openai.json"):   `{"n":1}`,
		filepath.Join("..", "provider", "testdata", "golden", "two", "openai.json"): `{"n":3}`,
	}
	if len(got) != len(want) {
		t.Errorf("openai.json: got %d bodies, want %d", len(got), len(want))
	}
	for p, w := range want {
		if string(got[p]) != w {
			t.Errorf("%s: got %q, want %q", p, got[p], w)
		}
	}
	if got := Goldens(t, "openai*.json", 3); len(got) != 3 {
		t.Errorf("openai*.json: got %d bodies, want 3", len(got))
	}

	r := run(t, func(tb testing.TB) { Goldens(tb, "anthropic.json", 1) })
	if !r.fatal || !strings.Contains(r.msg, "found 0 golden bodies matching anthropic.json, want at least 1") {
		t.Errorf("too few bodies: fatal %v, %q", r.fatal, r.msg)
	}
	r = run(t, func(tb testing.TB) { Goldens(tb, "[", 0) })
	if !r.fatal {
		t.Errorf("a bad pattern did not fail the test")
	}
}

func TestServe(t *testing.T) {
	url, got := Serve(t, `{"ok":true}`)
	if got.Method != "" || got.Path != "" || got.Header != nil || got.Body != nil {
		t.Errorf("record before any request: %+v", got)
	}
	req, err := http.NewRequest(http.MethodPost, url+"/v1/things?x=1", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Api-Key", "test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if string(reply) != `{"ok":true}` || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("reply %s as %q", reply, resp.Header.Get("Content-Type"))
	}
	if got.Method != http.MethodPost || got.Path != "/v1/things" || got.Header.Get("X-Api-Key") != "test" || string(got.Body) != `{"a":1}` {
		t.Errorf("recorded %s %s, key %q, body %s", got.Method, got.Path, got.Header.Get("X-Api-Key"), got.Body)
	}

	// A second request replaces the record.
	resp, err = http.Get(url + "/again")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got.Method != http.MethodGet || got.Path != "/again" || got.Header.Get("X-Api-Key") != "" || len(got.Body) != 0 {
		t.Errorf("second request recorded as %s %s, key %q, body %q", got.Method, got.Path, got.Header.Get("X-Api-Key"), got.Body)
	}
}

func TestAt(t *testing.T) {
	doc := []byte(`{"tools":[{"name":"a","schema":{"type":"object","b":1,"a":2}},{"name":"b"}],"n":null}`)
	for _, c := range []struct {
		path []any
		want string
	}{
		{nil, `{"tools":[{"name":"a","schema":{"type":"object","b":1,"a":2}},{"name":"b"}],"n":null}`},
		{[]any{"tools", 0, "schema"}, `{"type":"object","b":1,"a":2}`},
		{[]any{"tools", 1}, `{"name":"b"}`},
		{[]any{"tools", 1, "name"}, `"b"`},
		{[]any{"n"}, `null`},
		{[]any{"tools", 2}, ``},
		{[]any{"tools", -1}, ``},
		{[]any{"tools", "name"}, ``},
		{[]any{"nothing"}, ``},
		{[]any{"n", "x"}, ``},
		{[]any{"n", 0}, ``},
	} {
		if got := At(t, doc, c.path...); got != c.want {
			t.Errorf("At %v = %s, want %s", c.path, got, c.want)
		}
	}
	if r := run(t, func(tb testing.TB) { At(tb, []byte(`{`)) }); !r.fatal {
		t.Errorf("At on broken JSON did not fail the test")
	}
	if r := run(t, func(tb testing.TB) { At(tb, doc, "tools", 0.5) }); !r.fatal || !strings.Contains(r.msg, "float64") {
		t.Errorf("At with a float index: fatal %v, %q", r.fatal, r.msg)
	}
}

func TestSameJSON(t *testing.T) {
	for _, c := range []struct {
		a, b          string
		failed, fatal bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, false, false},
		{` {"a" : 1}`, `{"a":1}`, false, false},
		{`{"a":1}`, `{"a":2}`, true, false},
		{`{"b":[1,2]}`, `{"b":[2,1]}`, true, false},
		{`{"a":1}`, `{"a":1,"b":null}`, true, false},
		{`{"a":`, `{"a":1}`, true, true},
		{`{"a":1}`, `{"a":`, true, true},
	} {
		r := run(t, func(tb testing.TB) { SameJSON(tb, "case", []byte(c.a), []byte(c.b)) })
		if r.failed != c.failed || r.fatal != c.fatal {
			t.Errorf("SameJSON(%s, %s): failed %v, fatal %v; want %v, %v", c.a, c.b, r.failed, r.fatal, c.failed, c.fatal)
		}
		if r.failed && !strings.HasPrefix(r.msg, "case: ") {
			t.Errorf("SameJSON(%s, %s): message %q lacks the name", c.a, c.b, r.msg)
		}
	}
}

func TestSameJSONExcept(t *testing.T) {
	sent := []byte(`{"a":1,"extra":{}}`)
	body := []byte(`{"a":1}`)
	forgive := func(sent, body any) {
		x, _ := sent.(map[string]any)
		if _, ok := body.(map[string]any)["extra"]; !ok {
			delete(x, "extra")
		}
	}
	if r := run(t, func(tb testing.TB) { SameJSONExcept(tb, "forgiven", sent, body, forgive) }); r.failed {
		t.Errorf("a forgiven difference failed the test: %s", r.msg)
	}
	r := run(t, func(tb testing.TB) { SameJSONExcept(tb, "kept", sent, body, nil) })
	if !r.failed || r.fatal {
		t.Errorf("a difference with nothing forgiven: failed %v, fatal %v", r.failed, r.fatal)
	}
	// The message shows what was sent, not what was left after forgiving.
	r = run(t, func(tb testing.TB) { SameJSONExcept(tb, "other", []byte(`{"a":2,"extra":{}}`), body, forgive) })
	if !r.failed || !strings.Contains(r.msg, `{"a":2,"extra":{}}`) {
		t.Errorf("an unforgiven difference: failed %v, %q", r.failed, r.msg)
	}
}

func TestSameOrder(t *testing.T) {
	body := []byte(`{"tools":[{"schema":{"type":"object","b":1,"a":2}}]}`)
	for _, c := range []struct {
		wire          string
		failed, fatal bool
	}{
		{`{"tools":[{"schema":{"type":"object","b":1,"a":2}}],"more":true}`, false, false},
		{`{"tools":[{"schema":{"type":"object","a":2,"b":1}}]}`, true, false},
		{`{"tools":[]}`, true, false},
		{`{`, true, true},
	} {
		r := run(t, func(tb testing.TB) { SameOrder(tb, "case", body, []byte(c.wire), "tools", 0, "schema") })
		if r.failed != c.failed || r.fatal != c.fatal {
			t.Errorf("SameOrder against %s: failed %v, fatal %v; want %v, %v", c.wire, r.failed, r.fatal, c.failed, c.fatal)
		}
	}
	r := run(t, func(tb testing.TB) { SameOrder(tb, "case", body, body, "tools", 1, "schema") })
	if !r.fatal || !strings.Contains(r.msg, "case: the body has nothing at [tools 1 schema]") {
		t.Errorf("nothing at the path in the body: fatal %v, %q", r.fatal, r.msg)
	}
}
