package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tessera-dev/tessera/serve/registry"
)

// message is one message of a chat prompt.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// source is one file a prompt was assembled from.
type source struct {
	Path string `json:"path"`
	Blob string `json:"blob"`
}

// promptBody is a prompt as GET /api/public/v2/prompts/{name} returns it:
// Langfuse's fields, then Tessera's.
type promptBody struct {
	Name          string         `json:"name"`
	Version       int            `json:"version"`
	Type          string         `json:"type"`
	Prompt        any            `json:"prompt"`
	Config        map[string]any `json:"config"`
	Labels        []string       `json:"labels"`
	Tags          []string       `json:"tags"`
	CommitMessage *string        `json:"commitMessage"`
	CreatedAt     string         `json:"createdAt"`
	UpdatedAt     string         `json:"updatedAt"`

	Commit  string   `json:"commit"`
	Ref     string   `json:"ref,omitempty"`
	Hash    string   `json:"hash"`
	Preset  string   `json:"preset"`
	Sources []source `json:"sources"`
}

// body makes the JSON of a resolved prompt.
func (s *Server) body(st *registry.State, res *registry.Resolved) promptBody {
	p := res.Prompt
	r := p.Result
	b := promptBody{
		Name: res.Name, Version: res.Version, Type: "text", Prompt: r.Prompt.Text,
		Config: map[string]any{"preset": r.Preset},
		Labels: []string{}, Tags: []string{r.Preset},
		Commit: res.Commit.String(), Ref: res.Ref, Hash: r.Prompt.Hash, Preset: r.Preset,
		Sources: []source{},
	}
	if res.Version > 0 {
		b.Labels = slices.Clone(s.reg.Labels(st, res.Name, res.Version))
		if b.Labels == nil {
			b.Labels = []string{}
		}
	}
	if r.Output != nil {
		b.Config["output"] = map[string]any{"name": r.Output.Name, "schema": r.Output.Schema}
	}
	if t, msg, err := s.reg.CommitInfo(res.Commit); err == nil {
		b.CommitMessage = &msg
		b.CreatedAt = t.Format(time.RFC3339)
		b.UpdatedAt = b.CreatedAt
	}
	if msgs := chat(r); msgs != nil {
		b.Type, b.Prompt = "chat", msgs
	}
	seen := map[string]bool{}
	for _, src := range r.Prompt.Sources {
		if seen[src.Path] {
			continue
		}
		seen[src.Path] = true
		b.Sources = append(b.Sources, source{Path: src.Path, Blob: p.Blobs[src.Path]})
	}
	return b
}

// getPrompt serves GET /api/public/v2/prompts/{name}.
func (s *Server) getPrompt(w http.ResponseWriter, r *http.Request, name string) {
	st := s.state(w)
	if st == nil {
		return
	}
	q := r.URL.Query()
	sel, err := parseSelector(q.Get("label"), q.Get("version"), q.Get("commit"))
	if err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	res, ok := s.resolve(w, r.Context(), st, name, sel)
	if !ok {
		return
	}
	etag := `"` + res.Prompt.Result.Prompt.Hash + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "private, no-cache")
	if match := r.Header.Get("If-None-Match"); match != "" && etagMatches(match, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	data, err := s.answers.get(st, res, func() promptBody { return s.body(st, res) })
	if err != nil {
		fail(w, http.StatusInternalServerError, "encoding the prompt: %v", err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(data)
}

// etagMatches reports whether an If-None-Match header lists etag (or *).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// resolve resolves sel, answering the error itself when it fails.
func (s *Server) resolve(w http.ResponseWriter, ctx context.Context, st *registry.State, name string, sel selector) (*registry.Resolved, bool) {
	var (
		res *registry.Resolved
		err error
		by  string
	)
	switch {
	case sel.Version > 0:
		by = "version"
		res, err = s.reg.ByVersion(ctx, st, name, sel.Version)
	case sel.Commit != "":
		by = "commit"
		res, err = s.reg.ByCommit(ctx, st, name, sel.Commit)
	default:
		by = "label"
		res, err = s.reg.ByLabel(ctx, st, name, sel.Label)
	}
	switch {
	case err == nil:
		s.metrics.resolved(by, "ok")
		tracePrompt(ctx, res, sel.Label)
		return res, true
	case registry.IsNotFound(err):
		s.metrics.resolved(by, "not_found")
		fail(w, http.StatusNotFound, "%v", err)
	case ctx.Err() != nil:
		s.metrics.resolved(by, "canceled")
		fail(w, http.StatusServiceUnavailable, "the request was canceled")
	default:
		s.metrics.resolved(by, "error")
		s.log.Error("resolving a prompt", "name", name, "err", err)
		fail(w, http.StatusInternalServerError, "%v", err)
	}
	return nil, false
}

// listItem is one prompt of GET /api/public/v2/prompts, as Langfuse lists
// it.
type listItem struct {
	Name          string         `json:"name"`
	Type          string         `json:"type"`
	Versions      []int          `json:"versions"`
	Labels        []string       `json:"labels"`
	Tags          []string       `json:"tags"`
	LastUpdatedAt string         `json:"lastUpdatedAt"`
	LastConfig    map[string]any `json:"lastConfig"`
}

// listPrompts serves GET /api/public/v2/prompts, sorted by name.
func (s *Server) listPrompts(w http.ResponseWriter, r *http.Request) {
	st := s.state(w)
	if st == nil {
		return
	}
	q, err := parseListQuery(r.URL.Query())
	if err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	latest, err := s.reg.SnapshotAt(r.Context(), st.Head)
	if err != nil {
		latest = nil // the head does not build: types and tags from each version
	}
	var items []listItem
	for _, name := range st.Names {
		if q.Name != "" && name != q.Name {
			continue
		}
		// Langfuse filters versions, then lists the prompts that have
		// one left.
		var match []registry.Version
		for _, v := range st.Versions[name] {
			if !q.From.IsZero() && v.Time.Before(q.From) || !q.To.IsZero() && !v.Time.Before(q.To) {
				continue
			}
			if q.Label != "" && !slices.Contains(s.reg.Labels(st, name, v.Number), q.Label) {
				continue
			}
			match = append(match, v)
		}
		if len(match) == 0 {
			continue
		}
		last := match[len(match)-1]
		it := listItem{Name: name, Type: "text", Versions: make([]int, len(match)), Labels: []string{}, Tags: []string{}, LastUpdatedAt: last.Time.Format(time.RFC3339)}
		for i, v := range match {
			it.Versions[i] = v.Number
			for _, l := range s.reg.Labels(st, name, v.Number) {
				if !slices.Contains(it.Labels, l) {
					it.Labels = append(it.Labels, l)
				}
			}
		}
		sort.Strings(it.Labels)
		var p *registry.Prompt
		if latest != nil {
			p = latest.Prompts[name]
		}
		if p == nil {
			if res, err := s.reg.ByVersion(r.Context(), st, name, last.Number); err == nil {
				p = res.Prompt
			}
		}
		if p != nil {
			it.Tags = []string{p.Result.Preset}
			it.LastConfig = map[string]any{"preset": p.Result.Preset}
			if chat(p.Result) != nil {
				it.Type = "chat"
			}
		}
		if q.Tag != "" && !slices.Contains(it.Tags, q.Tag) {
			continue
		}
		items = append(items, it)
	}
	total := len(items)
	pages := (total + q.Limit - 1) / q.Limit
	lo := min((q.Page-1)*q.Limit, total)
	hi := min(lo+q.Limit, total)
	page := items[lo:hi]
	if page == nil {
		page = []listItem{}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data": page,
		"meta": map[string]int{"page": q.Page, "limit": q.Limit, "totalItems": total, "totalPages": pages},
	})
}

// patchLabels serves PATCH /api/public/v2/prompts/{name}/versions/{n}:
// each new label is set on the version (moved from the version it was
// on), each removed label deleted, and every change recorded.
func (s *Server) patchLabels(w http.ResponseWriter, r *http.Request, p promptPath) {
	data, ok := readBody(w, r)
	if !ok {
		return
	}
	b, err := parsePatchBody(data)
	if err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	st := s.state(w)
	if st == nil {
		return
	}
	vs, ok := st.Versions[p.Name]
	if !ok {
		fail(w, http.StatusNotFound, "prompt %q not found", p.Name)
		return
	}
	if p.Version > len(vs) {
		fail(w, http.StatusNotFound, "prompt %q has no version %d: its versions are 1 to %d", p.Name, p.Version, len(vs))
		return
	}
	key := keyOf(r)
	for _, l := range slices.Concat(b.NewLabels, b.RemoveLabels) {
		if s.protected[l] && key.Role != RoleAdmin {
			fail(w, http.StatusForbidden, "label %q is protected: moving or removing it needs an admin key", l)
			return
		}
	}
	ctx := r.Context()
	current := func(st *registry.State, label string) *registry.Resolved {
		if _, _, ok := s.reg.LabelRef(st, p.Name, label); !ok {
			return nil
		}
		res, err := s.reg.ByLabel(ctx, st, p.Name, label)
		if err != nil {
			return nil
		}
		return res
	}
	for _, l := range b.NewLabels {
		if !s.gated[l] {
			continue
		}
		failed, err := s.checkGolden(ctx, st, p.Name, p.Version)
		if err != nil {
			fail(w, http.StatusInternalServerError, "replaying the golden cases: %v", err)
			return
		}
		if len(failed) > 0 {
			writeJSON(w, http.StatusConflict, map[string]any{
				"message": fmt.Sprintf("label %q is gated: %d of %s's golden cases do not replay to their hash at version %d; unmark them (DELETE /api/tessera/v1/prompts/{name}/golden/{auditId}) if the change is meant", l, len(failed), p.Name, p.Version),
				"golden":  failed,
			})
			return
		}
		break // one replay covers every gated label: they go to one version
	}
	// Every label moves in one compare-and-swap, from where st has it: a
	// label another server moved since this one read it is a 409, and
	// nothing moves. Each move that changes a ref is kept as pending
	// before the refs move, and recorded after: a server that stops
	// between the two leaves a move the next server to read the ref
	// records (reconcile). The history records each move from where the
	// label was to where it went.
	set := map[string]int{}
	to := vs[p.Version-1].Commit
	var pend []PendingMove
	touched := map[int]bool{} // the versions that gain or lose a label
	add := func(label string, newCommit plumbing.Hash) {
		ref := registry.PromptRef(p.Name, label)
		old := st.Refs[ref]
		if old == newCommit {
			return // already there: nothing moves, nothing is recorded
		}
		m := LabelMove{Prompt: p.Name, Label: label, Actor: key.Public, Reason: b.Reason, At: time.Now().UTC()}
		if from := current(st, label); from != nil {
			m.FromVersion, m.FromCommit = from.Version, from.Commit.String()
		}
		if !newCommit.IsZero() {
			m.ToVersion, m.ToCommit = p.Version, newCommit.String()
		}
		touched[m.FromVersion], touched[m.ToVersion] = true, true
		pend = append(pend, PendingMove{Ref: ref.String(), Old: hashString(old), New: hashString(newCommit), Move: m})
	}
	for _, l := range b.NewLabels {
		set[l] = p.Version
		add(l, to)
	}
	for _, l := range b.RemoveLabels {
		if _, ok := st.Refs[registry.PromptRef(p.Name, l)]; ok {
			add(l, plumbing.ZeroHash)
		}
	}
	delete(touched, 0)
	if len(pend) > 0 {
		if pend, err = s.ledger.AddPendingMoves(ctx, pend); err != nil {
			s.log.Error("keeping a label move", "prompt", p.Name, "err", err)
			fail(w, http.StatusInternalServerError, "keeping the move in the label history failed, so nothing was moved: %v", err)
			return
		}
	}
	if !s.hook(ctx, w, StepPending) {
		return
	}
	if st, err = s.reg.MoveLabels(ctx, st, p.Name, set, b.RemoveLabels); err != nil {
		if registry.IsConflict(err) || registry.IsNotFound(err) || strings.Contains(err.Error(), "every prompt shares") {
			s.dropPending(ctx, pend) // not moved; another error may hide a move made, which reconcile finds
		}
		s.labelFailed(ctx, w, st, p.Name, err)
		return
	}
	if !s.hook(ctx, w, StepMoved) {
		return
	}
	s.complete(context.WithoutCancel(ctx), st, pend)
	res, err := s.reg.ByVersion(ctx, st, p.Name, p.Version)
	if err != nil {
		fail(w, http.StatusInternalServerError, "%v", err)
		return
	}
	s.emitNewVersions(ctx, st)
	for _, n := range sortedKeys(touched) {
		s.emit(ctx, st, "updated", p.Name, n, key.Public)
	}
	writeJSON(w, http.StatusOK, s.body(st, res))
}

// hook calls Config.MoveHook at step; when it fails, it answers 500 and
// reports false.
func (s *Server) hook(ctx context.Context, w http.ResponseWriter, step string) bool {
	if s.cfg.MoveHook == nil {
		return true
	}
	if err := s.cfg.MoveHook(ctx, step); err != nil {
		fail(w, http.StatusInternalServerError, "moving the labels stopped after step %s: %v", step, err)
		return false
	}
	return true
}

// dropPending drops the pending moves of a move that was not made.
func (s *Server) dropPending(ctx context.Context, pend []PendingMove) {
	ids := make([]int64, len(pend))
	for i, p := range pend {
		ids[i] = p.ID
	}
	if len(ids) > 0 {
		if err := s.ledger.DropPendingMoves(ctx, ids...); err != nil {
			s.log.Error("dropping label moves that were not made", "err", err)
		}
	}
}

// labelFailed answers a label move that failed; st is the state read
// after it, when there is one.
func (s *Server) labelFailed(ctx context.Context, w http.ResponseWriter, st *registry.State, name string, err error) {
	var ce *registry.ConflictError
	switch {
	case errors.As(err, &ce):
		now := "removed"
		if label, ok := strings.CutPrefix(ce.Ref.String(), registry.PromptPrefix+name+"/labels/"); ok && st != nil {
			if res, err := s.reg.ByLabel(ctx, st, name, label); err == nil {
				now = fmt.Sprintf("at version %d (commit %s)", res.Version, res.Commit)
			}
			fail(w, http.StatusConflict, "label %q of %s moved since this server read it (another server or git moved it; it is now %s): nothing was moved; read the prompt again and send the PATCH again if it is still meant", label, name, now)
			return
		}
		fail(w, http.StatusConflict, "%v", err)
	case registry.IsNotFound(err):
		fail(w, http.StatusNotFound, "%v", err)
	case strings.Contains(err.Error(), "every prompt shares"):
		fail(w, http.StatusConflict, "%v", err)
	default:
		s.log.Error("moving a label", "err", err)
		fail(w, http.StatusInternalServerError, "%v", err)
	}
}

// moveBody is one label move as the history lists it.
type moveBody struct {
	ID          int64  `json:"id"`
	Prompt      string `json:"prompt"`
	Label       string `json:"label"`
	FromVersion int    `json:"fromVersion"`
	ToVersion   int    `json:"toVersion"`
	FromCommit  string `json:"fromCommit"`
	ToCommit    string `json:"toCommit"`
	Actor       string `json:"actor"`
	Reason      string `json:"reason"`
	At          string `json:"at"`
}

// promptHistory serves GET /api/tessera/v1/prompts/{name}/labels/history.
func (s *Server) promptHistory(w http.ResponseWriter, r *http.Request, name string) {
	st := s.state(w)
	if st == nil {
		return
	}
	if _, ok := st.Versions[name]; !ok {
		fail(w, http.StatusNotFound, "prompt %q not found", name)
		return
	}
	limit := 100
	if l := r.URL.Query().Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxLimit {
			fail(w, http.StatusBadRequest, "limit %q is not a whole number from 1 to %d", l, maxLimit)
			return
		}
		limit = n
	}
	moves, err := s.store.LabelMoves(r.Context(), name, limit)
	if err != nil {
		fail(w, http.StatusInternalServerError, "reading the label history: %v", err)
		return
	}
	out := make([]moveBody, len(moves))
	for i, m := range moves {
		out[i] = moveBody{ID: m.ID, Prompt: m.Prompt, Label: m.Label, FromVersion: m.FromVersion, ToVersion: m.ToVersion, FromCommit: m.FromCommit, ToCommit: m.ToCommit, Actor: m.Actor, Reason: m.Reason, At: m.At.UTC().Format(time.RFC3339Nano)}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

// byHash serves GET /api/tessera/v1/prompts/by-hash/{hash}: the first
// version (of the first prompt, by name) whose assembled text has that
// hash, without labels, since they move. It may be cached for ever.
func (s *Server) byHash(w http.ResponseWriter, r *http.Request) {
	st := s.state(w)
	if st == nil {
		return
	}
	h := r.PathValue("hash")
	if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
		fail(w, http.StatusBadRequest, "hash %q is not a SHA-256: give 64 lower-case hexadecimal digits", h)
		return
	}
	for _, name := range st.Names {
		vs := st.Versions[name]
		for k := range vs {
			if vs[k].Hash != h {
				continue
			}
			res, err := s.reg.ByVersion(r.Context(), st, name, vs[k].Number)
			if err != nil {
				fail(w, http.StatusInternalServerError, "%v", err)
				return
			}
			w.Header().Set("ETag", `"`+h+`"`)
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
			if m := r.Header.Get("If-None-Match"); m != "" && etagMatches(m, `"`+h+`"`) {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			b := s.body(st, res)
			b.Labels = []string{} // labels move; this answer never changes
			writeJSON(w, http.StatusOK, b)
			return
		}
	}
	fail(w, http.StatusNotFound, "no version of any prompt has hash %s", h)
}
