package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset/layered"
	"github.com/tessera-dev/tessera/serve/inspector"
	"github.com/tessera-dev/tessera/serve/registry"
	"github.com/tessera-dev/tessera/tokenizer"
)

// AuditFilter selects the audit records an AuditLister lists; every
// field that is set must match.
type AuditFilter struct {
	// ID and Hash match the correlation id and the assembled prompt's
	// hash.
	ID, Hash string
	// Prompt matches a record's label, or its workflow and node joined
	// by "/" (a workflow node's prompt name).
	Prompt string
	// Limit is the most records listed.
	Limit int
}

// AuditLister is a Store that lists its audit records, newest first, for
// the inspector's search. A Store without it is searched by id only.
type AuditLister interface {
	ListAudit(ctx context.Context, f AuditFilter) ([]*audit.Record, error)
}

// ListAudit lists the records f selects, newest first.
func (s *MemStore) ListAudit(ctx context.Context, f AuditFilter) ([]*audit.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*audit.Record
	for _, id := range slices.Backward(s.order) {
		r := s.records[id]
		if r == nil || !f.matches(r) {
			continue
		}
		out = append(out, r)
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
	}
	return out, nil
}

// matches reports whether f selects r.
func (f AuditFilter) matches(r *audit.Record) bool {
	return (f.ID == "" || r.CorrelationID == f.ID) &&
		(f.Hash == "" || r.AssembledPromptHash == f.Hash) &&
		(f.Prompt == "" || recordPrompt(r) == f.Prompt || r.Label == f.Prompt)
}

// recordPrompt names the prompt of a record: its name (a workflow node's
// is <workflow>/<node>), or its label.
func recordPrompt(r *audit.Record) string {
	if r.Name != "" {
		return r.Name
	}
	return r.Label
}

// auditPageSize is how many records the inspector's audit page lists
// when it does not say.
const auditPageSize = 100

// historyRows is how many label moves the inspector's prompt page pages
// through.
const historyRows = 1000

// inspector returns the web inspector's handler over the server; mounted
// behind a viewer key, it lets member and admin keys move labels and
// replay.
func (s *Server) inspector() http.HandlerFunc {
	h := inspector.New(uiSource{s}, inspector.WithLogger(s.log), inspector.WithAccess(func(r *http.Request) (string, bool) {
		k := keyOf(r)
		return k.Public, roleRank(k.Role) >= roleRank(RoleMember)
	}))
	return h.ServeHTTP
}

// uiSource is the inspector's Source over a Server.
type uiSource struct{ s *Server }

var _ inspector.Source = uiSource{}

func (u uiSource) state() (*registry.State, error) {
	st := u.s.reg.State()
	if st == nil {
		return nil, errors.New("the registry has not been read yet")
	}
	return st, nil
}

// uiErr wraps a registry's not-found error for the inspector.
func uiErr(err error) error {
	if registry.IsNotFound(err) {
		return fmt.Errorf("%w: %v", inspector.ErrNotFound, err)
	}
	return err
}

func (u uiSource) Prompts(ctx context.Context) ([]inspector.Prompt, error) {
	st, err := u.state()
	if err != nil {
		return nil, err
	}
	head, err := u.s.reg.SnapshotAt(ctx, st.Head)
	if err != nil {
		head = nil // the head does not build: presets from each newest version
	}
	out := make([]inspector.Prompt, 0, len(st.Names))
	for _, name := range st.Names {
		vs := st.Versions[name]
		p := inspector.Prompt{Name: name, Versions: len(vs)}
		if len(vs) > 0 {
			p.Latest = vs[len(vs)-1].Time
		}
		for _, v := range vs {
			for _, l := range u.s.reg.Labels(st, name, v.Number) {
				p.Labels = append(p.Labels, inspector.Label{Name: l, Version: v.Number})
			}
		}
		slices.SortFunc(p.Labels, func(a, b inspector.Label) int { return strings.Compare(a.Name, b.Name) })
		if head != nil && head.Prompts[name] != nil {
			p.Preset = head.Prompts[name].Result.Preset
		} else if len(vs) > 0 {
			if res, err := u.s.reg.ByVersion(ctx, st, name, len(vs)); err == nil {
				p.Preset = res.Prompt.Result.Preset
			}
		}
		out = append(out, p)
	}
	return out, nil
}

func (u uiSource) Prompt(ctx context.Context, name string) (*inspector.PromptDetail, error) {
	st, err := u.state()
	if err != nil {
		return nil, err
	}
	vs, ok := st.Versions[name]
	if !ok || len(vs) == 0 {
		return nil, fmt.Errorf("%w: prompt %q", inspector.ErrNotFound, name)
	}
	d := &inspector.PromptDetail{Name: name}
	if res, err := u.s.reg.ByVersion(ctx, st, name, len(vs)); err == nil {
		d.Preset = res.Prompt.Result.Preset
	}
	for _, v := range vs {
		d.Versions = append(d.Versions, inspector.Version{
			Number: v.Number, Commit: v.Commit.String(), Hash: v.Hash, Time: v.Time, Message: strings.TrimSpace(v.Message),
			Labels: slices.Clone(u.s.reg.Labels(st, name, v.Number)),
		})
	}
	return d, nil
}

func (u uiSource) Assembled(ctx context.Context, name string, n int) (*inspector.Assembled, error) {
	st, err := u.state()
	if err != nil {
		return nil, err
	}
	res, err := u.s.reg.ByVersion(ctx, st, name, n)
	if err != nil {
		return nil, uiErr(err)
	}
	r := res.Prompt.Result
	a := &inspector.Assembled{
		Name: name, Version: n, Commit: res.Commit.String(), Hash: r.Prompt.Hash, Preset: r.Preset,
		Labels: slices.Clone(u.s.reg.Labels(st, name, n)),
	}
	var counter tokenizer.Counter = tokenizer.O200kBase()
	if b := r.Budget; b != nil {
		if c, err := tokenizer.CounterNamed(b.Counter); err == nil {
			counter = c
		}
		a.Budgeted, a.Limit, a.Final = true, b.Limit, b.Final
		a.Cut = budgetCuts(b.Sections)
	}
	a.Counter = counter.Name()
	for _, sec := range r.Sections {
		a.Sections = append(a.Sections, inspector.Section{Key: sec.Key, Role: sec.Role.String(), Tokens: counter.Count(sec.Text), Text: sec.Text})
	}
	if len(a.Sections) == 0 {
		a.Sections = []inspector.Section{{Tokens: counter.Count(r.Prompt.Text), Text: r.Prompt.Text}}
	}
	if r.Preset == layered.Name {
		sel, err := u.selection(ctx, res, r)
		if err != nil {
			return nil, err
		}
		a.Selection = sel
	}
	return a, nil
}

// budgetCuts lists what a budget removed.
func budgetCuts(secs []budget.SectionReport) []inspector.Cut {
	var out []inspector.Cut
	for _, s := range secs {
		switch {
		case s.Dropped && s.DroppedWith != "":
			out = append(out, inspector.Cut{Key: s.Key, What: "dropped with " + s.DroppedWith, Tokens: s.Before})
		case s.Dropped:
			out = append(out, inspector.Cut{Key: s.Key, What: "dropped (" + s.Rule + ")", Tokens: s.Before})
		case len(s.ItemsDropped) > 0:
			out = append(out, inspector.Cut{Key: s.Key, What: "items " + strings.Join(s.ItemsDropped, ", "), Tokens: s.Before - s.After})
		case s.TruncatedTokens > 0:
			out = append(out, inspector.Cut{Key: s.Key, What: "truncated by " + strconv.Itoa(s.TruncatedTokens) + " tokens", Tokens: s.Before - s.After})
		}
	}
	return out
}

// selection reads a layered prompt's selection from its audit record,
// assembling it again when the built prompt kept none.
func (u uiSource) selection(ctx context.Context, res *registry.Resolved, r *engine.Result) (*inspector.Selection, error) {
	rec := r.Record
	if rec == nil || len(rec.Inputs) == 0 {
		out, err := u.s.assemble(ctx, res)
		if err != nil {
			return nil, fmt.Errorf("assembling %s again for its selection: %w", res.Name, err)
		}
		rec = out.Record
	}
	var sel layered.Selection
	if rec == nil || json.Unmarshal(rec.Inputs, &sel) != nil {
		return nil, fmt.Errorf("the record of %s holds no layered selection", res.Name)
	}
	out := &inspector.Selection{Task: sel.Task, Mode: sel.Mode, ModeReason: sel.ModeReason, Filtered: sel.Context.FilteredIDs, FilteredCount: sel.Context.Filtered}
	pick := func(kind string, ps []layered.Pick) []inspector.Pick {
		var o []inspector.Pick
		for _, p := range ps {
			o = append(o, inspector.Pick{Kind: kind, Name: p.Name, Score: p.Score, Base: p.Base, Why: p.Why})
		}
		return o
	}
	out.Tools, out.Skills = pick("tool", sel.Tools), pick("skill", sel.Skills)
	out.Passed = append(pick("tool", sel.Passed.Tools), pick("skill", sel.Passed.Skills)...)
	return out, nil
}

func (u uiSource) Diff(ctx context.Context, name string, from, to int) (string, error) {
	st, err := u.state()
	if err != nil {
		return "", err
	}
	a, err := u.s.reg.ByVersion(ctx, st, name, from)
	if err != nil {
		return "", uiErr(err)
	}
	b, err := u.s.reg.ByVersion(ctx, st, name, to)
	if err != nil {
		return "", uiErr(err)
	}
	return unifiedDiff(fmt.Sprintf("%s@%d", name, from), fmt.Sprintf("%s@%d", name, to), a.Prompt.Result.Prompt.Text, b.Prompt.Result.Prompt.Text), nil
}

func (u uiSource) LabelHistory(ctx context.Context, name string) ([]inspector.LabelMove, error) {
	st, err := u.state()
	if err != nil {
		return nil, err
	}
	if _, ok := st.Versions[name]; !ok {
		return nil, fmt.Errorf("%w: prompt %q", inspector.ErrNotFound, name)
	}
	moves, err := u.s.store.LabelMoves(ctx, name, historyRows)
	if err != nil {
		return nil, fmt.Errorf("reading the label history of %s: %w", name, err)
	}
	out := make([]inspector.LabelMove, len(moves))
	for i, m := range moves {
		out[i] = inspector.LabelMove{Label: m.Label, From: m.FromVersion, To: m.ToVersion, Actor: m.Actor, Reason: m.Reason, At: m.At}
	}
	return out, nil
}

// canWrite returns an error unless the request's key may move labels and
// replay.
func canWrite(ctx context.Context) error {
	k, _ := ctx.Value(ctxKey{}).(Key)
	if roleRank(k.Role) < roleRank(RoleMember) {
		return fmt.Errorf("%w: key %s has role %s: this needs member", inspector.ErrForbidden, k.Public, k.Role)
	}
	return nil
}

// call runs one of the API's handlers for the inspector, with the key of
// ctx, and returns its status and body; an error status becomes an error
// wrapping the inspector's matching one.
func (u uiSource) call(ctx context.Context, method string, body any, pathValues map[string]string, h func(http.ResponseWriter, *http.Request)) ([]byte, error) {
	return u.callQuery(ctx, method, nil, body, pathValues, h)
}

// callQuery is call with a query string.
func (u uiSource) callQuery(ctx context.Context, method string, query url.Values, body any, pathValues map[string]string, h func(http.ResponseWriter, *http.Request)) ([]byte, error) {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	target := "/"
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	for k, v := range pathValues {
		req.SetPathValue(k, v)
	}
	rec := &recorder{header: http.Header{}, code: http.StatusOK}
	h(rec, req)
	if rec.code < 300 {
		return rec.body.Bytes(), nil
	}
	var eb errorBody
	msg := strings.TrimSpace(rec.body.String())
	if json.Unmarshal(rec.body.Bytes(), &eb) == nil && eb.Message != "" {
		msg = eb.Message
	}
	switch rec.code {
	case http.StatusNotFound:
		return nil, fmt.Errorf("%w: %s", inspector.ErrNotFound, msg)
	case http.StatusForbidden:
		return nil, fmt.Errorf("%w: %s", inspector.ErrForbidden, msg)
	case http.StatusConflict:
		if strings.Contains(msg, "moved since this server read it") {
			return nil, fmt.Errorf("%w: %s", inspector.ErrConflict, msg)
		}
		return nil, fmt.Errorf("%w: %s", inspector.ErrInvalid, msg)
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		return nil, fmt.Errorf("%w: %s", inspector.ErrInvalid, msg)
	}
	return nil, errors.New(msg)
}

func (u uiSource) MoveLabel(ctx context.Context, name, label string, n int, reason string) error {
	if err := canWrite(ctx); err != nil {
		return err
	}
	body := map[string]any{"newLabels": []string{label}, "reason": reason}
	_, err := u.call(ctx, http.MethodPatch, body, nil, func(w http.ResponseWriter, r *http.Request) {
		u.s.patchLabels(w, r, promptPath{Name: name, Version: n})
	})
	return err
}

func (u uiSource) RemoveLabel(ctx context.Context, name, label, reason string) error {
	if err := canWrite(ctx); err != nil {
		return err
	}
	st, err := u.state()
	if err != nil {
		return err
	}
	vs := st.Versions[name]
	if len(vs) == 0 {
		return fmt.Errorf("%w: prompt %q", inspector.ErrNotFound, name)
	}
	// The PATCH names a version, which a removal does not use: the newest.
	body := map[string]any{"removeLabels": []string{label}, "reason": reason}
	_, err = u.call(ctx, http.MethodPatch, body, nil, func(w http.ResponseWriter, r *http.Request) {
		u.s.patchLabels(w, r, promptPath{Name: name, Version: len(vs)})
	})
	return err
}

func (u uiSource) Audit(ctx context.Context, q inspector.AuditQuery) (*inspector.AuditResult, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = auditPageSize
	}
	f := AuditFilter{ID: q.ID, Hash: q.Hash, Prompt: q.Prompt, Limit: limit}
	res := &inspector.AuditResult{}
	var recs []*audit.Record
	if l, ok := u.s.store.(AuditLister); ok {
		var err error
		if recs, err = l.ListAudit(ctx, f); err != nil {
			return nil, fmt.Errorf("listing audit records: %w", err)
		}
	} else if q.ID != "" {
		r, err := u.s.store.Record(ctx, q.ID)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return nil, fmt.Errorf("reading audit record %q: %w", q.ID, err)
		case f.matches(r):
			recs = []*audit.Record{r}
		}
	} else {
		res.Note = "This audit store finds records by id only: search by id."
	}
	for _, r := range recs {
		res.Records = append(res.Records, inspector.AuditRecord{ID: r.CorrelationID, Prompt: recordPrompt(r), Preset: r.Preset, Hash: r.AssembledPromptHash, Time: r.AssemblyTimestamp})
	}
	return res, nil
}

func (u uiSource) Replay(ctx context.Context, id, against string) (*inspector.Replay, error) {
	if err := canWrite(ctx); err != nil {
		return nil, err
	}
	// Against is a label, or a commit when it is 7 to 40 hexadecimal
	// digits; "" and latest are the default branch's head.
	q := url.Values{}
	switch {
	case against == "" || against == registry.Latest:
		against = ""
	case len(against) >= 7 && len(against) <= 40 && strings.Trim(against, "0123456789abcdef") == "":
		q.Set("commit", against)
	default:
		q.Set("label", against)
	}
	data, err := u.callQuery(ctx, http.MethodPost, q, nil, map[string]string{"id": id}, u.s.replay)
	if err != nil {
		return nil, err
	}
	var out struct {
		Match        bool   `json:"match"`
		Status       string `json:"status"`
		ExpectedHash string `json:"expectedHash"`
		ActualHash   string `json:"actualHash"`
		Commit       string `json:"commit"`
		Diff         string `json:"diff"`
		Error        string `json:"error"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("reading the replay of %s: %w", id, err)
	}
	rp := &inspector.Replay{ID: id, Against: against, Commit: out.Commit, Match: out.Match, Status: out.Status, ExpectedHash: out.ExpectedHash, ActualHash: out.ActualHash, Error: out.Error}
	if !out.Match {
		rp.Line, rp.Expected, rp.Actual = firstDifference(out.Diff)
	}
	return rp, nil
}

// firstDifference reads a unified diff and returns the first line (of
// the old text, from 1) that changed, with its old and new text ("" for a
// side that has no such line).
func firstDifference(d string) (line int, old, cur string) {
	n, inHunk := 0, false
	for l := range strings.Lines(d) {
		l = strings.TrimSuffix(l, "\n")
		switch {
		case !inHunk && (strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ")):
		case strings.HasPrefix(l, "@@ -"):
			inHunk = true
			start, _, _ := strings.Cut(strings.TrimPrefix(l, "@@ -"), " ")
			start, _, _ = strings.Cut(start, ",")
			n, _ = strconv.Atoi(start)
		case strings.HasPrefix(l, "-"):
			if line == 0 {
				line, old = max(n, 1), l[1:]
			}
		case strings.HasPrefix(l, "+"):
			if line == 0 {
				line = max(n, 1)
			}
			return line, old, l[1:]
		case strings.HasPrefix(l, "\\"):
		default:
			if line != 0 {
				return line, old, ""
			}
			n++
		}
	}
	return line, old, ""
}

// recorder keeps what a handler answers.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
	wrote  bool
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.wrote = true
	return r.body.Write(p)
}
