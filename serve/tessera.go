package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/serve/registry"
)

// chat returns the messages of a prompt whose preset sends a system
// side, or nil for a prompt sent as one user message.
func chat(r *engine.Result) []message {
	req := r.Request()
	if len(req.System) == 0 {
		return nil
	}
	sep := req.Separator
	if sep == "" {
		sep = "\n\n"
	}
	var msgs []message
	for _, side := range []struct {
		role  string
		parts []string
	}{{"system", texts(req.System)}, {"user", texts(req.User)}} {
		if len(side.parts) > 0 {
			msgs = append(msgs, message{Role: side.role, Content: strings.Join(side.parts, sep)})
		}
	}
	return msgs
}

func texts(parts []provider.Part) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.Text
	}
	return out
}

// renderBody is the body of POST /api/tessera/v1/render.
type renderBody struct {
	Name      string                     `json:"name"`
	Label     string                     `json:"label"`
	Version   int                        `json:"version"`
	Commit    string                     `json:"commit"`
	Variables map[string]json.RawMessage `json:"variables"`
	// Golden marks the render a golden case of the prompt: a gated label
	// moves to a version only when it replays there to the same hash.
	Golden bool `json:"golden"`
}

// parseRenderBody parses and checks a render body.
func parseRenderBody(data []byte) (renderBody, selector, error) {
	var b renderBody
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return b, selector{}, fmt.Errorf("the body is not a JSON object of name, label, version, commit and variables: %v", err)
	}
	if dec.More() {
		return b, selector{}, errors.New("the body has more than one JSON value")
	}
	if err := checkName(b.Name); err != nil {
		return b, selector{}, err
	}
	v := ""
	if b.Version != 0 {
		v = strconv.Itoa(b.Version)
	}
	sel, err := parseSelector(b.Label, v, b.Commit)
	return b, sel, err
}

// render serves POST /api/tessera/v1/render: the prompt assembled again
// through the engine, recorded in the store.
func (s *Server) render(w http.ResponseWriter, r *http.Request) {
	data, ok := readBody(w, r)
	if !ok {
		return
	}
	b, sel, err := parseRenderBody(data)
	if err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	st := s.state(w)
	if st == nil {
		return
	}
	res, ok := s.resolve(w, r.Context(), st, b.Name, sel)
	if !ok {
		return
	}
	var out *engine.Result
	start := time.Now()
	actx, span := s.tracer.Start(r.Context(), "tessera.assemble")
	tracePrompt(actx, res, sel.Label)
	if len(b.Variables) > 0 {
		out, err = s.assembleWith(actx, res, b.Variables)
	} else {
		out, err = s.assemble(actx, res)
	}
	if err == nil {
		span.SetAttributes(attrPromptHash.String(out.Prompt.Hash), attribute.String("tessera.audit.id", out.Record.CorrelationID))
	}
	span.End()
	s.metrics.assembly.Observe(time.Since(start).Seconds())
	var ve *VariablesError
	if errors.As(err, &ve) {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	} else if err != nil {
		fail(w, http.StatusUnprocessableEntity, "%v", err)
		return
	}
	err = s.store.Append(r.Context(), out.Record)
	s.metrics.auditWrite(s.storeName, err)
	if err != nil {
		s.log.Error("recording a render", "err", err)
		fail(w, http.StatusInternalServerError, "recording the render failed: %v", err)
		return
	}
	if b.Golden {
		if _, err := s.reg.AddGolden(r.Context(), res.Name, out.Record.CorrelationID, res.Commit); err != nil {
			fail(w, http.StatusInternalServerError, "marking the render golden: %v", err)
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"name": res.Name, "version": res.Version, "output": out.Prompt.Text, "hash": out.Prompt.Hash,
		"commit": res.Commit.String(), "auditId": out.Record.CorrelationID, "golden": b.Golden,
	})
}

// assemble assembles the resolved prompt's unit through the engine, with a
// new audit record and no log.
func (s *Server) assemble(ctx context.Context, res *registry.Resolved) (*engine.Result, error) {
	l, err := res.Prompt.Unit.Load(ctx)
	if err != nil {
		return nil, err
	}
	return s.engine.Assemble(ctx, engine.Request{Preset: res.Prompt.Result.Preset, Layout: l, Catalog: res.Snapshot.Catalog, NoLog: true})
}

// replay serves POST /api/tessera/v1/replay/{id}: the record laid out
// again by its preset from the catalog at the default branch's head (or
// at ?label= or ?commit=), and its hash compared.
func (s *Server) replay(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := audit.CheckCorrelationID(id); err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	st := s.state(w)
	if st == nil {
		return
	}
	q := r.URL.Query()
	commit := st.Head
	label := ""
	switch {
	case q.Get("label") != "" && q.Get("commit") != "":
		fail(w, http.StatusBadRequest, "give label or commit, not both")
		return
	case q.Get("label") != "":
		label = q.Get("label")
		if err := checkLabelOrBranch(label); err != nil {
			fail(w, http.StatusBadRequest, "%v", err)
			return
		}
	case q.Get("commit") != "":
		sel, err := parseSelector("", "", q.Get("commit"))
		if err != nil {
			fail(w, http.StatusBadRequest, "%v", err)
			return
		}
		h, err := s.reg.CommitHash(st, sel.Commit)
		if err != nil {
			fail(w, http.StatusNotFound, "%v", err)
			return
		}
		commit = h
	}
	rec, err := s.store.Record(r.Context(), id)
	if errors.Is(err, ErrNotFound) {
		fail(w, http.StatusNotFound, "no audit record has id %q", id)
		return
	} else if err != nil {
		fail(w, http.StatusInternalServerError, "reading audit record %q: %v", id, err)
		return
	}
	if label != "" {
		// The record's prompt's own label first (as PATCH sets them),
		// then a repository-wide label, a tag or a branch.
		name := recordPrompt(rec)
		if _, ok := st.Versions[name]; !ok {
			name = ""
		}
		ref, h, ok := s.reg.LabelRef(st, name, label)
		if !ok || name == "" && strings.HasPrefix(ref.String(), registry.PromptPrefix) {
			fail(w, http.StatusNotFound, "label %q not found", label)
			return
		}
		commit = h
	}
	snap, err := s.reg.SnapshotAt(r.Context(), commit)
	if err != nil {
		fail(w, http.StatusUnprocessableEntity, "the catalog at %s does not build: %v", commit, err)
		return
	}
	rebuild := s.rebuilder(snap)
	v := audit.Verify(r.Context(), audit.Entry{Record: rec}, rebuild)
	s.metrics.replays.WithLabelValues(v.Status.String()).Inc()
	out := map[string]any{"match": v.OK(), "status": v.Status.String(), "expectedHash": rec.AssembledPromptHash, "actualHash": v.NewHash, "commit": commit.String(), "diff": ""}
	if v.Err != nil {
		out["error"] = v.Err.Error()
	}
	if v.Status == audit.Mismatch {
		if cur, err := rebuild(r.Context(), rec); err == nil {
			out["diff"] = unifiedDiff("expected", "actual", rec.AssembledPrompt, cur.Text)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// diffSide is one end of a diff.
type diffSide struct {
	Version int    `json:"version"`
	Commit  string `json:"commit"`
	Hash    string `json:"hash"`
}

// changedSource is a source file that differs between two versions.
type changedSource struct {
	Path     string `json:"path"`
	FromBlob string `json:"fromBlob"`
	ToBlob   string `json:"toBlob"`
}

// diff serves GET /api/tessera/v1/diff?name=&from=&to=: from and to are
// versions, labels or commits.
func (s *Server) diff(w http.ResponseWriter, r *http.Request) {
	st := s.state(w)
	if st == nil {
		return
	}
	q := r.URL.Query()
	name := q.Get("name")
	if err := checkName(name); err != nil {
		fail(w, http.StatusBadRequest, "name: %v", err)
		return
	}
	var sides [2]*registry.Resolved
	for i, key := range []string{"from", "to"} {
		sel, err := parseSide(q.Get(key))
		if err != nil {
			fail(w, http.StatusBadRequest, "%s: %v", key, err)
			return
		}
		res, ok := s.resolve(w, r.Context(), st, name, sel)
		if !ok {
			return
		}
		sides[i] = res
	}
	a, b := sides[0].Prompt, sides[1].Prompt
	var changed []changedSource
	paths := map[string]bool{}
	for p := range a.Blobs {
		paths[p] = true
	}
	for p := range b.Blobs {
		paths[p] = true
	}
	for _, p := range sortedKeys(paths) {
		if a.Blobs[p] != b.Blobs[p] {
			changed = append(changed, changedSource{Path: p, FromBlob: a.Blobs[p], ToBlob: b.Blobs[p]})
		}
	}
	if changed == nil {
		changed = []changedSource{}
	}
	side := func(res *registry.Resolved) diffSide {
		return diffSide{Version: res.Version, Commit: res.Commit.String(), Hash: res.Prompt.Result.Prompt.Hash}
	}
	fromName, toName := name+"@"+q.Get("from"), name+"@"+q.Get("to")
	writeJSON(w, http.StatusOK, map[string]any{
		"name": name, "from": side(sides[0]), "to": side(sides[1]),
		"diff":           unifiedDiff(fromName, toName, a.Result.Prompt.Text, b.Result.Prompt.Text),
		"changedSources": changed,
	})
}

// parseSide reads one end of a diff: a version number, a commit hash of
// 7 to 40 hexadecimal digits, or a label.
func parseSide(s string) (selector, error) {
	switch {
	case s == "":
		return selector{}, errors.New("missing: give a version, a label or a commit")
	case strings.Trim(s, "0123456789") == "":
		return parseSelector("", s, "")
	case len(s) >= 7 && len(s) <= 40 && strings.Trim(s, "0123456789abcdef") == "":
		return parseSelector("", "", s)
	}
	return parseSelector(s, "", "")
}
