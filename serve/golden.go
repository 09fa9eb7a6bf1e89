package serve

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/serve/registry"
)

// rebuilder lays a record's prompt out again from snap's catalog, with
// the record's own preset and inputs.
func (s *Server) rebuilder(snap *registry.Snapshot) audit.RebuildFunc {
	return func(ctx context.Context, rec *audit.Record) (*prompt.Prompt, error) {
		p := s.engine.Registry.Lookup(rec.Preset)
		if p == nil {
			return nil, fmt.Errorf("the record's preset %q is not known here", rec.Preset)
		}
		env, err := engine.Env(snap.Catalog)
		if err != nil {
			return nil, err
		}
		l, err := p.Rebuild(ctx, env, rec)
		if err != nil {
			return nil, err
		}
		res, err := s.engine.Assemble(ctx, engine.Request{Preset: rec.Preset, Layout: l, Catalog: snap.Catalog, NoLog: true, AllowEmpty: true})
		if err != nil {
			return nil, err
		}
		return &res.Prompt, nil
	}
}

// goldenFailure is a golden case that did not replay to its hash.
type goldenFailure struct {
	AuditID      string `json:"auditId"`
	Status       string `json:"status"`
	ExpectedHash string `json:"expectedHash"`
	ActualHash   string `json:"actualHash,omitempty"`
	Error        string `json:"error,omitempty"`
}

// checkGolden replays prompt name's golden cases at version n and
// returns those whose hash differs or that do not replay.
func (s *Server) checkGolden(ctx context.Context, st *registry.State, name string, n int) ([]goldenFailure, error) {
	ids := s.reg.Golden(st, name)
	if len(ids) == 0 {
		return nil, nil
	}
	res, err := s.reg.ByVersion(ctx, st, name, n)
	if err != nil {
		return nil, err
	}
	rebuild := s.rebuilder(res.Snapshot)
	var out []goldenFailure
	for _, id := range ids {
		rec, err := s.store.Record(ctx, id)
		if err != nil {
			out = append(out, goldenFailure{AuditID: id, Status: "missing", Error: err.Error()})
			continue
		}
		v := audit.Verify(ctx, audit.Entry{Record: rec}, rebuild)
		s.metrics.replays.WithLabelValues(v.Status.String()).Inc()
		if !v.OK() {
			f := goldenFailure{AuditID: id, Status: v.Status.String(), ExpectedHash: rec.AssembledPromptHash, ActualHash: v.NewHash}
			if v.Err != nil {
				f.Error = v.Err.Error()
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// goldenRoute serves /api/tessera/v1/prompts/{name}/golden (GET: the
// golden cases) and .../golden/{auditId} (DELETE: unmark one).
func (s *Server) goldenRoute(w http.ResponseWriter, r *http.Request, rest string) {
	i := strings.LastIndex(rest, "/golden")
	if i < 0 {
		fail(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
		return
	}
	escName, tail := rest[:i], rest[i+len("/golden"):]
	name, err := url.PathUnescape(escName)
	if err == nil {
		err = checkName(name)
	}
	if err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	switch {
	case tail == "" && r.Method == http.MethodGet:
		s.authed(RoleViewer, func(w http.ResponseWriter, r *http.Request) { s.listGolden(w, r, name) })(w, r)
	case strings.HasPrefix(tail, "/") && r.Method == http.MethodDelete:
		id, err := url.PathUnescape(tail[1:])
		if err != nil || audit.CheckCorrelationID(id) != nil {
			fail(w, http.StatusBadRequest, "audit id %q is not valid", tail[1:])
			return
		}
		s.authed(RoleMember, func(w http.ResponseWriter, r *http.Request) { s.deleteGolden(w, r, name, id) })(w, r)
	default:
		fail(w, http.StatusMethodNotAllowed, "%s %s is not supported: GET .../golden lists the golden cases, DELETE .../golden/{auditId} unmarks one", r.Method, r.URL.Path)
	}
}

func (s *Server) listGolden(w http.ResponseWriter, r *http.Request, name string) {
	st := s.state(w)
	if st == nil {
		return
	}
	if _, ok := st.Versions[name]; !ok {
		fail(w, http.StatusNotFound, "prompt %q not found", name)
		return
	}
	type item struct {
		AuditID string `json:"auditId"`
		Commit  string `json:"commit"`
	}
	data := []item{}
	for _, id := range s.reg.Golden(st, name) {
		data = append(data, item{AuditID: id, Commit: st.Refs[registry.GoldenRef(name, id)].String()})
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data})
}

func (s *Server) deleteGolden(w http.ResponseWriter, r *http.Request, name, id string) {
	if _, err := s.reg.RemoveGolden(r.Context(), name, id); err != nil {
		if registry.IsNotFound(err) {
			fail(w, http.StatusNotFound, "%v", err)
		} else if registry.IsConflict(err) {
			fail(w, http.StatusConflict, "%v", err)
		} else {
			fail(w, http.StatusInternalServerError, "%v", err)
		}
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
