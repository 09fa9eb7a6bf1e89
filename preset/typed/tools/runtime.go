package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/tessera-dev/tessera/output"
	"github.com/tessera-dev/tessera/preset/typed"
	"github.com/tessera-dev/tessera/schema"
)

// ToolCall is a model's call of a tool, as a provider returns it.
type ToolCall struct {
	// ID is the provider's id of the call (OpenAI's tool_call_id,
	// Anthropic's tool_use id); Gemini's calls have none.
	ID string
	// Name is the tool's name.
	Name string
	// Arguments is the JSON object of arguments.
	Arguments json.RawMessage
}

// ToolResult is what a call returned, ready to send back.
type ToolResult struct {
	// CallID and Name are the call's.
	CallID, Name string
	// Content is the result as JSON: the handler's value, or, when
	// IsError, a JSON string saying what went wrong.
	Content json.RawMessage
	// IsError marks a call that failed: arguments that do not match the
	// tool's schema, a handler that returned an error or panicked, a
	// result that does not match the tool's result schema. The model is
	// told, and may try again.
	IsError bool
	// Err is the cause of a failed call, for the caller's logs; it is
	// not sent.
	Err error
}

// Message returns the result as the message (or input item) a provider
// wants after its tool call: provider is "openai" (Chat Completions),
// "openai-responses", "anthropic" or "gemini".
func (r ToolResult) Message(provider string) (json.RawMessage, error) {
	text := string(r.Content)
	if len(r.Content) > 0 && r.Content[0] == '"' {
		var s string
		if json.Unmarshal(r.Content, &s) == nil {
			text = s
		}
	}
	str := func(b []byte, s string) []byte { return schema.AppendString(b, s) }
	var b []byte
	switch provider {
	case "openai":
		b = append(b, `{"role":"tool","tool_call_id":`...)
		b = str(b, r.CallID)
		b = append(b, `,"content":`...)
		b = str(b, text)
		b = append(b, '}')
	case "openai-responses":
		b = append(b, `{"type":"function_call_output","call_id":`...)
		b = str(b, r.CallID)
		b = append(b, `,"output":`...)
		b = str(b, text)
		b = append(b, '}')
	case "anthropic":
		b = append(b, `{"role":"user","content":[{"type":"tool_result","tool_use_id":`...)
		b = str(b, r.CallID)
		b = append(b, `,"content":`...)
		b = str(b, text)
		if r.IsError {
			b = append(b, `,"is_error":true`...)
		}
		b = append(b, `}]}`...)
	case "gemini":
		b = append(b, `{"role":"user","parts":[{"functionResponse":{"name":`...)
		b = str(b, r.Name)
		b = append(b, `,"response":`...)
		switch {
		case r.IsError:
			b = append(b, `{"error":`...)
			b = str(b, text)
			b = append(b, '}')
		case len(r.Content) > 0 && r.Content[0] == '{':
			b = append(b, r.Content...)
		default:
			b = append(b, `{"result":`...)
			b = append(b, r.Content...)
			b = append(b, '}')
		}
		b = append(b, `}}]}`...)
	default:
		return nil, fmt.Errorf("tool result for provider %q: use openai, openai-responses, anthropic or gemini", provider)
	}
	return b, nil
}

// Snapshotter is a resource that can save its state and put it back;
// Dispatch snapshots every one before a call and restores them all when
// the call fails.
type Snapshotter interface {
	Snapshot(ctx context.Context) (any, error)
	Restore(ctx context.Context, snapshot any) error
}

// Provider makes a resource when a scope opens; the resource is closed
// with the scope when it is an io.Closer.
type Provider func(ctx context.Context) (any, error)

// handler is a bound tool.
type handler struct {
	call   func(ctx context.Context, s *Scope, args []byte) (any, error)
	args   reflect.Type
	params *output.Schema
	result *output.Schema
}

// Runtime binds Go functions to a template's tools and opens the
// resources they use. Make one with New; it is safe for
// concurrent use once its handlers are bound.
type Runtime struct {
	t         *typed.Template
	vals      typed.Values
	opts      typed.Options
	mu        sync.Mutex
	handlers  map[string]*handler
	resources []Provider // the template's
	workDirs  []string   // workspace sections', depth first
}

// New returns a runtime for t laid out with vals and opts (which
// read_section answers use). templateResources are the template's own
// resources, the lowest in precedence; workspace sections contribute
// theirs, then Open's arguments, the highest.
func New(t *typed.Template, vals typed.Values, opts typed.Options, templateResources ...Provider) (*Runtime, error) {
	if t == nil {
		return nil, errNilTemplate
	}
	if err := t.Check(); err != nil {
		return nil, err
	}
	rt := &Runtime{t: t, vals: vals, opts: opts, handlers: map[string]*handler{}, resources: slices.Clone(templateResources)}
	t.Walk(func(_ string, s *typed.SectionSpec) {
		if s.Workspace != "" {
			rt.workDirs = append(rt.workDirs, s.Workspace)
		}
	})
	return rt, nil
}

// Bind binds fn to the template's tool name: its arguments are checked
// against the tool's parameter schema and decoded into an A (unknown
// fields refused); its result is encoded as JSON and, when the tool
// declares a result schema, checked against it. Binding a tool the
// template does not have, or one of the disclosure tools, is an error.
func Bind[A, R any](rt *Runtime, name string, fn func(ctx context.Context, s *Scope, args A) (R, error)) error {
	if rt == nil || rt.t == nil {
		return errors.New("typed: Bind needs a runtime: make one with tools.New")
	}
	if fn == nil {
		return fmt.Errorf("typed: Bind %q: the function is nil", name)
	}
	tl := toolOf(rt.t, name)
	if tl == nil {
		return fmt.Errorf("typed %s/%s has no tool %q to bind: its tools are %s", rt.t.NS, rt.t.Key, name, keyList(rt.t.Descriptor().Tools))
	}
	h := &handler{args: reflect.TypeFor[A]()}
	var err error
	if h.params, err = output.Compile(name+" arguments", tl.Parameters); err != nil {
		return err
	}
	if len(tl.Result) > 0 {
		if h.result, err = output.Compile(name+" result", tl.Result); err != nil {
			return err
		}
	}
	h.call = func(ctx context.Context, s *Scope, data []byte) (any, error) {
		var args A
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&args); err != nil {
			return nil, &argsError{fmt.Errorf("the arguments do not fit %s: %w", h.args, err)}
		}
		return fn(ctx, s, args)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if _, ok := rt.handlers[name]; ok {
		return fmt.Errorf("typed: tool %q is bound twice: bind each tool once", name)
	}
	rt.handlers[name] = h
	return nil
}

// argsError is arguments that could not be read.
type argsError struct{ err error }

func (e *argsError) Error() string { return e.err.Error() }
func (e *argsError) Unwrap() error { return e.err }

// Scope is a runtime's resources, open. Get fetches one by type;
// Dispatch runs tool calls with them; Close closes them, in reverse
// order. A closed scope gives nothing.
type Scope struct {
	rt        *Runtime
	mu        sync.Mutex
	resources []any // lowest precedence first
	closed    bool
	session   *Session
}

// Open collects the runtime's resources with design 003's precedence
// (the template's, then each workspace section's, depth first, then
// bindTime's), making each from its Provider, and returns them open. A
// bind-time value that is a Provider is called; any other value is a
// resource as it is. If one fails, those already opened are closed.
func (rt *Runtime) Open(ctx context.Context, bindTime ...any) (*Scope, error) {
	if rt == nil || rt.t == nil {
		return nil, errors.New("typed: no runtime: make one with tools.New")
	}
	s := &Scope{rt: rt, session: &Session{}}
	add := func(p Provider) error {
		r, err := p(ctx)
		if err != nil {
			return err
		}
		s.resources = append(s.resources, r)
		return nil
	}
	var providers []Provider
	providers = append(providers, rt.resources...)
	for _, dir := range rt.workDirs {
		providers = append(providers, func(context.Context) (any, error) { return OpenWorkspace(resolvePath(rt.t, dir)) })
	}
	for _, b := range bindTime {
		if p, ok := b.(Provider); ok {
			providers = append(providers, p)
			continue
		}
		providers = append(providers, func(context.Context) (any, error) { return b, nil })
	}
	for _, p := range providers {
		if err := ctx.Err(); err != nil {
			s.Close()
			return nil, err
		}
		if err := add(p); err != nil {
			s.Close()
			return nil, fmt.Errorf("typed %s/%s: opening a resource: %w", rt.t.NS, rt.t.Key, err)
		}
	}
	return s, nil
}

// errClosed is using a scope after Close.
var errClosed = errors.New("typed: the resource scope is closed: use resources between Runtime.Open and Scope.Close")

// Get returns the resource of type T with the highest precedence (the
// last opened). Outside its scope, or when there is none, it is an
// error.
func Get[T any](s *Scope) (T, error) {
	var zero T
	if s == nil {
		return zero, errClosed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return zero, errClosed
	}
	for i := len(s.resources) - 1; i >= 0; i-- {
		if r, ok := s.resources[i].(T); ok {
			return r, nil
		}
	}
	return zero, fmt.Errorf("typed: no resource of type %s in this scope: provide one with the template, a workspace section or Open", reflect.TypeFor[T]())
}

// Session is the state a conversation keeps between tool calls, by key;
// Dispatch snapshots it and restores it when a call fails.
type Session struct {
	mu     sync.Mutex
	values map[string]json.RawMessage
}

// Session returns the scope's session state; nil once closed.
func (s *Scope) Session() *Session {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	return s.session
}

// Get returns the value at key, or nil.
func (ss *Session) Get(key string) json.RawMessage {
	if ss == nil {
		return nil
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return slices.Clone(ss.values[key])
}

// Set sets the value at key (nil deletes it).
func (ss *Session) Set(key string, v json.RawMessage) {
	if ss == nil {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if v == nil {
		delete(ss.values, key)
		return
	}
	if ss.values == nil {
		ss.values = map[string]json.RawMessage{}
	}
	ss.values[key] = slices.Clone(v)
}

// Snapshot implements Snapshotter.
func (ss *Session) Snapshot(context.Context) (any, error) {
	if ss == nil {
		return nil, nil
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	snap := make(map[string]json.RawMessage, len(ss.values))
	for k, v := range ss.values {
		snap[k] = slices.Clone(v)
	}
	return snap, nil
}

// Restore implements Snapshotter.
func (ss *Session) Restore(_ context.Context, snapshot any) error {
	if ss == nil {
		return nil
	}
	snap, ok := snapshot.(map[string]json.RawMessage)
	if !ok {
		return fmt.Errorf("typed: a session snapshot is a map, not %T", snapshot)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.values = snap
	return nil
}

// Snapshot is the saved state of a scope's session and of each of its
// resources that can snapshot itself.
type Snapshot struct {
	items []snapItem
}

type snapItem struct {
	s    Snapshotter
	data any
}

// Snapshot saves the session and every resource that is a Snapshotter.
func (s *Scope) Snapshot(ctx context.Context) (*Snapshot, error) {
	if s == nil {
		return nil, errClosed
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errClosed
	}
	targets := []Snapshotter{s.session}
	for _, r := range s.resources {
		if sn, ok := r.(Snapshotter); ok {
			targets = append(targets, sn)
		}
	}
	s.mu.Unlock()
	snap := &Snapshot{}
	for _, t := range targets {
		data, err := t.Snapshot(ctx)
		if err != nil {
			return nil, fmt.Errorf("typed: snapshot of %T: %w", t, err)
		}
		snap.items = append(snap.items, snapItem{t, data})
	}
	return snap, nil
}

// Restore puts back what snap saved, last saved first; every failure is
// reported, joined.
func (s *Scope) Restore(ctx context.Context, snap *Snapshot) error {
	if snap == nil {
		return errors.New("typed: Restore needs a snapshot from Scope.Snapshot")
	}
	var errs []error
	for i := len(snap.items) - 1; i >= 0; i-- {
		it := snap.items[i]
		if err := it.s.Restore(ctx, it.data); err != nil {
			errs = append(errs, fmt.Errorf("typed: restoring %T: %w", it.s, err))
		}
	}
	return errors.Join(errs...)
}

// Close closes every resource that is an io.Closer, in the reverse of
// the order they were opened, and ends the scope; every failure is
// reported, joined. Closing twice does nothing.
func (s *Scope) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	for i := len(s.resources) - 1; i >= 0; i-- {
		if c, ok := s.resources[i].(io.Closer); ok {
			if err := c.Close(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	s.resources = nil
	return errors.Join(errs...)
}

// Dispatch runs the model's call inside a transaction: the session and
// every resource that can snapshot itself are saved first and restored
// when the call fails (its arguments do not match, its handler returns
// an error or panics, its result does not match). A failed call is a
// ToolResult with IsError set, for the model; the error return is for
// what cannot be answered at all: a tool that is not bound, a closed
// scope, a cancelled context, a restore that failed. An open_sections
// call returns an *ExpansionRequired, read_section is answered with the
// section in full.
func (s *Scope) Dispatch(ctx context.Context, call ToolCall) (ToolResult, error) {
	res := ToolResult{CallID: call.ID, Name: call.Name}
	if s == nil || s.rt == nil || s.rt.t == nil {
		return res, errors.New("typed: no scope: open one with Runtime.Open")
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return res, errClosed
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	rt := s.rt
	switch call.Name {
	case typed.OpenSectionsTool:
		return res, rt.t.OpenSections(call.Arguments, rt.vals, rt.opts)
	case typed.ReadSectionTool:
		text, err := rt.t.ReadSection(call.Arguments, rt.vals, rt.opts)
		if err != nil {
			return failed(res, err), nil
		}
		res.Content = schema.AppendString(nil, text)
		return res, nil
	}
	rt.mu.Lock()
	h := rt.handlers[call.Name]
	rt.mu.Unlock()
	if h == nil {
		return res, fmt.Errorf("typed %s/%s: no handler is bound to tool %q: bind one with tools.Bind", rt.t.NS, rt.t.Key, call.Name)
	}
	args := call.Arguments
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	sp := output.Spec{Name: call.Name + " arguments", Schema: h.params}
	checked, err := sp.Parse(args)
	if err != nil {
		return failed(res, err), nil
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return res, err
	}
	value, err := s.run(ctx, h, checked.Value)
	if err == nil {
		var data []byte
		if data, err = json.Marshal(value); err == nil {
			res.Content = data
			if h.result != nil {
				if probs := h.result.Check(data); len(probs) > 0 {
					err = &output.Error{Name: call.Name + " result", Reply: string(data), Problems: probs}
				}
			}
		}
	}
	if err != nil {
		if rerr := s.Restore(ctx, snap); rerr != nil {
			return failed(res, err), rerr
		}
		return failed(res, err), nil
	}
	return res, nil
}

// run calls h, turning a panic into an error.
func (s *Scope) run(ctx context.Context, h *handler, args []byte) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the handler panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return h.call(ctx, s, args)
}

func failed(res ToolResult, err error) ToolResult {
	res.IsError, res.Err = true, err
	res.Content = schema.AppendString(nil, "error: "+firstLine(err.Error()))
	return res
}

func firstLine(s string) string {
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// errNilTemplate is New's error for a nil template.
var errNilTemplate = errors.New("typed: no template (nil *Template): parse one with typed.Parse")

// toolOf returns t's tool named name, or nil.
func toolOf(t *typed.Template, name string) *typed.Tool {
	var found *typed.Tool
	t.Walk(func(_ string, s *typed.SectionSpec) {
		for i := range s.Tools {
			if found == nil && s.Tools[i].Name == name {
				found = &s.Tools[i]
			}
		}
	})
	return found
}

func keyList(m map[string]string) string {
	if len(m) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

// resolvePath returns dir, relative to the template file's directory
// when it is relative.
func resolvePath(t *typed.Template, dir string) string {
	if filepath.IsAbs(dir) || t.Path() == "" {
		return dir
	}
	return filepath.Join(filepath.Dir(filepath.FromSlash(t.Path())), dir)
}
