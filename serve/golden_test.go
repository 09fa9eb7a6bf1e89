package serve_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/serve"
)

// TestGoldenGate marks a render golden, then moves a gated label: to a
// version where the golden case replays to its hash it moves, to one
// where it does not it is refused, until the case is unmarked.
func TestGoldenGate(t *testing.T) {
	f := newFixture(t, serve.Config{GatedLabels: []string{"production"}})
	code, _, body := f.do(member, "POST", "/api/tessera/v1/render", map[string]any{"name": pgc, "version": 2, "golden": true})
	if code != 200 {
		t.Fatalf("golden render: %d %s", code, body)
	}
	var out struct {
		AuditID string
		Golden  bool
	}
	json.Unmarshal(body, &out)
	var list struct {
		Data []struct{ AuditID, Commit string }
	}
	golden := "/api/tessera/v1/prompts/" + url.PathEscape(pgc) + "/golden"
	f.get(golden, &list)
	if !out.Golden || len(list.Data) != 1 || list.Data[0].AuditID != out.AuditID || list.Data[0].Commit != f.c[1].String() {
		t.Fatalf("golden cases: %+v after %s", list, body)
	}
	// Version 2 reproduces it: the gated label moves.
	if code, _, body := f.do(member, "PATCH", promptPath(pgc)+"/versions/2", map[string]any{"newLabels": []string{"production"}}); code != 200 {
		t.Fatalf("gated move to version 2: %d %s", code, body)
	}
	// Version 3 changed the text: refused, with the case that differs.
	code, _, body = f.do(member, "PATCH", promptPath(pgc)+"/versions/3", map[string]any{"newLabels": []string{"production"}})
	var refused struct {
		Message string
		Golden  []struct{ AuditID, Status, ExpectedHash, ActualHash string }
	}
	json.Unmarshal(body, &refused)
	if code != http.StatusConflict || len(refused.Golden) != 1 || refused.Golden[0].Status != "mismatch" || !strings.Contains(refused.Message, "gated") {
		t.Fatalf("gated move to version 3: %d %s", code, body)
	}
	// An ungated label moves anyway.
	if code, _, body := f.do(member, "PATCH", promptPath(pgc)+"/versions/3", map[string]any{"newLabels": []string{"staging"}}); code != 200 {
		t.Errorf("ungated move: %d %s", code, body)
	}
	// Unmarked, the gate lets it through.
	if code, _, body := f.do(member, "DELETE", golden+"/"+out.AuditID, nil); code != http.StatusNoContent {
		t.Fatalf("unmark: %d %s", code, body)
	}
	if code, _, body := f.do(member, "PATCH", promptPath(pgc)+"/versions/3", map[string]any{"newLabels": []string{"production"}}); code != 200 {
		t.Errorf("gated move with no golden case: %d %s", code, body)
	}
	code, _, body = f.do(member, "DELETE", golden+"/"+out.AuditID, nil)
	f.wantError(code, body, http.StatusNotFound, "no golden case")
	code, _, body = f.do(viewer, "DELETE", golden+"/x", nil)
	f.wantError(code, body, http.StatusForbidden, "needs member")
	code, _, body = f.do(viewer, "GET", "/api/tessera/v1/prompts/"+url.PathEscape(pgc)+"/nothing", nil)
	f.wantError(code, body, http.StatusNotFound, "no such endpoint")
}
