// Package sdktest holds what the tests of the SDK adapter modules (openai,
// anthropic, gemini) share: the golden bodies of the core's tests, a local
// server that records the request an SDK sends, and comparisons of JSON
// documents, whole or at a path, member order included.
//
// The adapters' tests check that a body the core encodes, decoded into an
// SDK's types and sent by that SDK, arrives as the same JSON, its schemas
// in the body's order. Each test builds its own SDK client; this package
// gives it the address to point the client at and the record to check.
package sdktest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tessera-dev/tessera/schema"
)

// GoldenDirs are the directories, relative to the repository root, that
// hold the golden bodies of the core's tests, one folder per case: the
// engine's bodies of assembled prompts and the provider's hand-built
// fixture.
var GoldenDirs = []string{
	filepath.Join("engine", "testdata", "bodies"),
	filepath.Join("provider", "testdata", "golden"),
}

// Goldens returns the golden bodies of the core's tests whose file names
// match pattern (a filepath.Match pattern such as "anthropic.json" or
// "openai*.json"), keyed by path. It looks in ../<dir>/*/ for each of
// GoldenDirs, relative to the directory the test runs in, which for an
// adapter module's tests is that module's directory. It fails the test
// when fewer than min bodies match or one cannot be read.
func Goldens(t testing.TB, pattern string, min int) map[string][]byte {
	t.Helper()
	var paths []string
	for _, dir := range GoldenDirs {
		found, err := filepath.Glob(filepath.Join("..", dir, "*", pattern))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, found...)
	}
	if len(paths) < min {
		t.Fatalf("found %d golden bodies matching %s, want at least %d", len(paths), pattern, min)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = b
	}
	return out
}

// Request is what a server started by Serve received: the method, the
// URL path, the headers and the body of the latest request. It is the
// zero Request until a request arrives.
type Request struct {
	// Method is the request's HTTP method.
	Method string
	// Path is the path of the request's URL, without the query.
	Path string
	// Header holds the request's headers.
	Header http.Header
	// Body is the request's body, as sent.
	Body []byte
}

// Serve starts a local HTTP server, closed when the test ends, that
// records each request it receives in got, replacing the previous record,
// and answers it with reply as application/json. It returns the server's
// base URL, for the SDK client under test, and the record. The record is
// written before the reply, so it is complete once the client has the
// response.
func Serve(t testing.TB, reply string) (url string, got *Request) {
	t.Helper()
	got = &Request{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		*got = Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, got
}

// At returns the compact JSON of the value at a path of object keys
// (strings) and array indexes (ints) in data, object members in their
// order, or "" when the path leads nowhere. It fails the test when data is
// not JSON or a path element is neither a string nor an int.
func At(t testing.TB, data []byte, path ...any) string {
	t.Helper()
	v, err := schema.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	p := &v
	for _, k := range path {
		switch k := k.(type) {
		case string:
			p = p.Get(k)
		case int:
			if p.Kind != schema.Array || k < 0 || k >= len(p.Items) {
				return ""
			}
			p = &p.Items[k]
		default:
			t.Fatalf("path %v: element %v is a %T, not a string or an int", path, k, k)
		}
		if p == nil {
			return ""
		}
	}
	return string(p.Append(nil))
}

// SameJSON fails the test unless sent, what an SDK sent, and body hold the
// same JSON value, whatever the order of their objects' keys; name, such
// as the golden file's path, prefixes the message.
func SameJSON(t testing.TB, name string, sent, body []byte) {
	t.Helper()
	SameJSONExcept(t, name, sent, body, nil)
}

// SameJSONExcept is SameJSON for an SDK that sends some things differently
// from the body in a way the API reads the same: before the comparison,
// forgive (unless nil) gets the decoded documents, maps for objects, and
// may edit them in place to remove the difference. The message on a
// mismatch shows both documents as they were.
func SameJSONExcept(t testing.TB, name string, sent, body []byte, forgive func(sent, body any)) {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(sent, &x); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := json.Unmarshal(body, &y); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if forgive != nil {
		forgive(x, y)
	}
	if !reflect.DeepEqual(x, y) {
		t.Errorf("%s: the SDK sent\n%s\nbut the body is\n%s", name, sent, body)
	}
}

// SameOrder fails the test unless the value at path (see At), typically a
// schema, is the same, member order included, in body and in wire, what
// an SDK sent for it. It fails at once when body has nothing at path, as
// the test then checks nothing.
func SameOrder(t testing.TB, name string, body, wire []byte, path ...any) {
	t.Helper()
	want := At(t, body, path...)
	if want == "" {
		t.Fatalf("%s: the body has nothing at %v", name, path)
	}
	if got := At(t, wire, path...); got != want {
		t.Errorf("%s: schema at %v sent as\n%s\nwant, in the body's order,\n%s", name, path, got, want)
	}
}
