package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/preset/typed"
)

func runtimeTemplate(t *testing.T, workspace string) *typed.Template {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "tools-template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return mustParse(t, strings.ReplaceAll(string(data), "WORKSPACE", workspace))
}

type writeArgs struct {
	Files map[string]string `json:"files"`
	Fail  bool              `json:"fail"`
	Panic bool              `json:"panic"`
}

type writeResult struct {
	Written int `json:"written"`
}

func writeHandler(ctx context.Context, s *Scope, a writeArgs) (writeResult, error) {
	ws, err := Get[*Workspace](s)
	if err != nil {
		return writeResult{}, err
	}
	s.Session().Set("last", json.RawMessage(`"write"`))
	for name, text := range a.Files {
		if err := ws.Root().MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return writeResult{}, err
		}
		if err := ws.Root().WriteFile(name, []byte(text), 0o644); err != nil {
			return writeResult{}, err
		}
	}
	if a.Panic {
		panic("boom")
	}
	if a.Fail {
		return writeResult{}, errors.New("the disk is full")
	}
	return writeResult{Written: len(a.Files)}, nil
}

func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		data, _ := os.ReadFile(p)
		out[rel] = string(data)
		return nil
	})
	return out
}

// TestDispatchTransaction: a handler that writes files in the workspace
// and then fails, or panics, leaves the workspace and the session as
// they were; one that succeeds keeps its writes.
func TestDispatchTransaction(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("original"), 0o644); err != nil {
		t.Fatal(err)
	}
	tpl := runtimeTemplate(t, dir)
	rt, err := New(tpl, nil, typed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Bind(rt, "write_files", writeHandler); err != nil {
		t.Fatal(err)
	}
	s, err := rt.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := snapshotDir(t, dir)
	for _, args := range []string{
		`{"files": {"keep.txt": "changed", "new/deep/file.txt": "x"}, "fail": true}`,
		`{"files": {"keep.txt": "changed", "other.txt": "y"}, "panic": true}`,
	} {
		res, err := s.Dispatch(ctx, ToolCall{ID: "c1", Name: "write_files", Arguments: json.RawMessage(args)})
		if err != nil || !res.IsError || res.Err == nil {
			t.Fatalf("%s: %+v %v", args, res, err)
		}
		if got := snapshotDir(t, dir); !equalMaps(got, before) {
			t.Errorf("%s: the workspace changed: %v, was %v", args, got, before)
		}
		if s.Session().Get("last") != nil {
			t.Errorf("%s: the session kept the failed call's state", args)
		}
	}
	res, err := s.Dispatch(ctx, ToolCall{ID: "c2", Name: "write_files", Arguments: json.RawMessage(`{"files": {"a.txt": "A"}}`)})
	if err != nil || res.IsError || string(res.Content) != `{"written":1}` {
		t.Fatalf("success: %+v %v", res, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "A" {
		t.Error("a successful call's write was lost")
	}
	// The workspace is confined to its root.
	res, _ = s.Dispatch(ctx, ToolCall{Name: "write_files", Arguments: json.RawMessage(`{"files": {"../escape.txt": "x"}}`)})
	if !res.IsError {
		t.Error("a write outside the workspace succeeded")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.txt")); err == nil {
		t.Error("escape.txt was written outside the workspace")
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestDispatchArguments: arguments are checked against the tool's
// schema (problems at their pointers), decoded with unknown fields
// refused, and a result is checked against the result schema.
func TestDispatchArguments(t *testing.T) {
	ctx := context.Background()
	tpl := runtimeTemplate(t, t.TempDir())
	rt, _ := New(tpl, nil, typed.Options{})
	if err := Bind(rt, "write_files", writeHandler); err != nil {
		t.Fatal(err)
	}
	if err := Bind(rt, "write_files", writeHandler); err == nil {
		t.Error("a tool bound twice")
	}
	if err := Bind(rt, "nope", writeHandler); err == nil || !strings.Contains(err.Error(), `has no tool "nope"`) {
		t.Errorf("unknown tool: %v", err)
	}
	type badResult struct {
		Count int `json:"count"`
	}
	if err := Bind(rt, "lookup", func(context.Context, *Scope, struct{}) (badResult, error) { return badResult{1}, nil }); err != nil {
		t.Fatal(err)
	}
	s, _ := rt.Open(ctx)
	defer s.Close()
	for _, tt := range []struct{ name, args, want string }{
		{"write_files", `{"fail": "yes"}`, `error: write_files arguments:1:1: /files: missing: the schema requires it; /fail: got string, want boolean`},
		{"write_files", `{"files": {}, "extra": 1}`, `/extra: a key the schema does not declare`},
		{"write_files", `not json`, `holds no JSON object`},
	} {
		res, err := s.Dispatch(ctx, ToolCall{Name: tt.name, Arguments: json.RawMessage(tt.args)})
		if err != nil || !res.IsError || !strings.Contains(string(res.Content), tt.want) {
			t.Errorf("%s: %s %v, want %q", tt.args, res.Content, err, tt.want)
		}
	}
	if _, err := s.Dispatch(ctx, ToolCall{Name: "unbound"}); err == nil {
		t.Error("an unbound tool dispatched")
	}
	// lookup declares no result schema, so any result goes.
	if res, err := s.Dispatch(ctx, ToolCall{Name: "lookup", Arguments: json.RawMessage(`{}`)}); err != nil || res.IsError {
		t.Errorf("lookup: %+v %v", res, err)
	}
	s.Close()
	if _, err := s.Dispatch(ctx, ToolCall{Name: "lookup"}); err == nil {
		t.Error("dispatched on a closed scope")
	}
}

type closer struct {
	name string
	log  *[]string
}

func (c *closer) Close() error { *c.log = append(*c.log, c.name); return nil }

type marker struct{ from string }

// TestResources: collected with the design's precedence (template, then
// sections depth first, then bind time), fetched by type, closed in
// reverse order, and unusable once closed.
func TestResources(t *testing.T) {
	ctx := context.Background()
	var log []string
	dir := t.TempDir()
	tpl := runtimeTemplate(t, dir)
	rt, err := New(tpl, nil, typed.Options{},
		func(context.Context) (any, error) { return &closer{"template", &log}, nil },
		func(context.Context) (any, error) { return &marker{"template"}, nil },
	)
	if err != nil {
		t.Fatal(err)
	}
	s, err := rt.Open(ctx, &closer{"bind", &log}, &marker{"bind"})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := Get[*marker](s); err != nil || m.from != "bind" {
		t.Errorf("Get: %v %v, want the bind-time one", m, err)
	}
	if ws, err := Get[*Workspace](s); err != nil || ws.Root() == nil {
		t.Errorf("the workspace section's resource: %v", err)
	}
	if _, err := Get[*os.File](s); err == nil {
		t.Error("Get of an absent type")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"bind", "template"}; !slices.Equal(log, want) {
		t.Errorf("closed %v, want %v", log, want)
	}
	if _, err := Get[*marker](s); err == nil || !strings.Contains(err.Error(), "scope is closed") {
		t.Errorf("Get after Close: %v", err)
	}
	// A provider that fails closes what was opened.
	log = nil
	_, err = rt.Open(ctx, Provider(func(context.Context) (any, error) { return nil, errors.New("no database") }))
	if err == nil || !strings.Contains(err.Error(), "no database") || !slices.Equal(log, []string{"template"}) {
		t.Errorf("failed open: %v, closed %v", err, log)
	}
}

// TestSnapshotRestore: the manual form of a transaction.
func TestSnapshotRestore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	rt, _ := New(runtimeTemplate(t, dir), nil, typed.Options{})
	s, _ := rt.Open(ctx)
	defer s.Close()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "x.txt"), []byte("x"), 0o644)
	s.Session().Set("k", json.RawMessage(`1`))
	if err := s.Restore(ctx, snap); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); err == nil || s.Session().Get("k") != nil {
		t.Error("Restore left the changes")
	}
}

// TestOpenSections: a valid call is an *ExpansionRequired with the
// model's reason; a child of a section still summarized, or a section
// that is not enabled, is refused with why.
func TestOpenSections(t *testing.T) {
	tpl := runtimeTemplate(t, t.TempDir())
	err := tpl.OpenSections([]byte(`{"section_keys": ["more"], "reason": "I need the rules"}`), nil, typed.Options{})
	var er *typed.ExpansionRequired
	if !errors.As(err, &er) || !slices.Equal(er.Paths, []string{"more"}) || er.Reason != "I need the rules" || er.Requested["more"] != "full" {
		t.Fatalf("got %v", err)
	}
	for _, tt := range []struct{ args, want string }{
		{`{"section_keys": ["more/inner"], "reason": "r"}`, `"more/inner" is inside "more", which is still summarized: open it too`},
		{`{"section_keys": ["gated"], "reason": "r"}`, `"gated" is not enabled (enabled: deep)`},
		{`{"section_keys": ["files"], "reason": "r"}`, `"files" is not summarized`},
		{`{"section_keys": ["more"]}`, `gives no reason`},
	} {
		err := tpl.OpenSections([]byte(tt.args), nil, typed.Options{})
		if errors.As(err, &er) || err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.args, err, tt.want)
		}
	}
	// Parent and child together, or the child once the parent is open.
	if err := tpl.OpenSections([]byte(`{"section_keys": ["more", "more/inner"], "reason": "r"}`), nil, typed.Options{}); !errors.As(err, &er) {
		t.Errorf("parent and child: %v", err)
	}
	if err := tpl.OpenSections([]byte(`{"section_keys": ["more/inner"], "reason": "r"}`), nil, typed.Options{Expand: []string{"more"}}); !errors.As(err, &er) {
		t.Errorf("child of an open parent: %v", err)
	}
	// Through Dispatch.
	rt, _ := New(tpl, nil, typed.Options{})
	s, _ := rt.Open(context.Background())
	defer s.Close()
	_, err = s.Dispatch(context.Background(), ToolCall{Name: typed.OpenSectionsTool, Arguments: json.RawMessage(`{"section_keys": ["more"], "reason": "r"}`)})
	if !errors.As(err, &er) {
		t.Errorf("Dispatch: %v", err)
	}
}

func TestResultMessages(t *testing.T) {
	ok := ToolResult{CallID: "call_1", Name: "lookup", Content: json.RawMessage(`{"n":1}`)}
	bad := ToolResult{CallID: "call_2", Name: "lookup", Content: json.RawMessage(`"error: no"`), IsError: true}
	for _, tt := range []struct {
		r        ToolResult
		provider string
		want     string
	}{
		{ok, "openai", `{"role":"tool","tool_call_id":"call_1","content":"{\"n\":1}"}`},
		{ok, "openai-responses", `{"type":"function_call_output","call_id":"call_1","output":"{\"n\":1}"}`},
		{bad, "anthropic", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_2","content":"error: no","is_error":true}]}`},
		{ok, "gemini", `{"role":"user","parts":[{"functionResponse":{"name":"lookup","response":{"n":1}}}]}`},
		{bad, "gemini", `{"role":"user","parts":[{"functionResponse":{"name":"lookup","response":{"error":"error: no"}}}]}`},
	} {
		got, err := tt.r.Message(tt.provider)
		if err != nil || string(got) != tt.want || !json.Valid(got) {
			t.Errorf("%s: %s %v\nwant %s", tt.provider, got, err, tt.want)
		}
	}
	if _, err := ok.Message("other"); err == nil {
		t.Error("an unknown provider")
	}
}

// FuzzDispatchArguments: whatever arguments a model sends, Dispatch
// answers without panicking: a result that matches the tool's result
// schema, or an error result; and a failed call changes nothing.
func FuzzDispatchArguments(f *testing.F) {
	for _, s := range []string{`{"files": {"a": "b"}}`, `{"files": {}, "fail": true}`, `{"files": {"x/y": "z"}, "panic": true}`, `{}`, `[]`, `{"files": 1}`, `null`, ``, `{"files": {"../a": "b"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		ctx := context.Background()
		dir := t.TempDir()
		tpl := runtimeTemplate(t, dir)
		rt, _ := New(tpl, nil, typed.Options{})
		if err := Bind(rt, "write_files", writeHandler); err != nil {
			t.Fatal(err)
		}
		s, err := rt.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		before := snapshotDir(t, dir)
		res, err := s.Dispatch(ctx, ToolCall{Name: "write_files", Arguments: args})
		if err != nil {
			t.Fatalf("Dispatch: %v", err)
		}
		if !json.Valid(res.Content) {
			t.Fatalf("content %q is not JSON", res.Content)
		}
		if res.IsError && !equalMaps(snapshotDir(t, dir), before) {
			t.Fatal("a failed call changed the workspace")
		}
	})
}

func mustParse(t *testing.T, src string) *typed.Template {
	t.Helper()
	tpl, err := typed.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return tpl
}
