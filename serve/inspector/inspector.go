// Package inspector is the web inspector of a prompt registry: pages
// rendered on the server with html/template, their stylesheet embedded,
// with no script and no asset from elsewhere. It shows the prompts and
// their labels, a prompt's versions with a diff between any two and its
// label history, an assembled version section by section with a token
// bar per section and what the budget cut (and a layered prompt's
// selection report), and the audit records with a search and a replay
// button; it moves labels through a form.
//
// The pages read and act through a Source, which the registry's server
// implements. The handler does no authentication: mount it behind the
// server's. It answers under /ui/.
package inspector

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

//go:embed assets
var assets embed.FS

// Prefix is where the handler answers.
const Prefix = "/ui/"

// CSP is the Content-Security-Policy of every answer: nothing but the
// embedded stylesheet is loaded, no script runs, forms post only here,
// and no other site frames the pages.
const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// maxFormBytes caps a posted form.
const maxFormBytes = 64 << 10

// Option configures the handler.
type Option func(*Handler)

// WithAccess sets how a request's user is named and whether it may move
// labels and replay records; without it, every request may, and no user
// is shown.
func WithAccess(f func(r *http.Request) (user string, canWrite bool)) Option {
	return func(h *Handler) { h.access = f }
}

// WithLogger logs the failures of the Source that are answered with 500;
// nil discards.
func WithLogger(l *slog.Logger) Option {
	return func(h *Handler) { h.log = l }
}

// Handler serves the inspector's pages.
type Handler struct {
	src    Source
	access func(*http.Request) (string, bool)
	log    *slog.Logger
	pages  map[string]*template.Template
	css    []byte
	cop    *http.CrossOriginProtection
}

// New returns the inspector over src. Its templates are embedded and
// checked by its tests; should one not parse, every page answers 500
// with the reason.
func New(src Source, opts ...Option) http.Handler {
	h, err := newHandler(src, opts...)
	if err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		})
	}
	return h
}

func newHandler(src Source, opts ...Option) (*Handler, error) {
	h := &Handler{src: src, access: func(*http.Request) (string, bool) { return "", true }, pages: map[string]*template.Template{}, cop: http.NewCrossOriginProtection()}
	for _, o := range opts {
		o(h)
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	funcs := template.FuncMap{
		"promptURL":  promptURL,
		"versionURL": func(name string, n int) string { return promptURL(name) + "/versions/" + strconv.Itoa(n) },
		"short":      short,
		"when":       when,
		"score":      func(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) },
		"diffLines":  diffLines,
	}
	for _, page := range []string{"index", "prompt", "version", "audit", "error"} {
		t, err := template.New(page).Funcs(funcs).ParseFS(assets, "assets/layout.html", "assets/"+page+".html")
		if err != nil {
			return nil, fmt.Errorf("inspector: parsing the %s page: %w", page, err)
		}
		h.pages[page] = t
	}
	css, err := assets.ReadFile("assets/style.css")
	if err != nil {
		return nil, fmt.Errorf("inspector: reading the stylesheet: %w", err)
	}
	var sb strings.Builder
	sb.Write(css)
	for i := 0; i <= 100; i++ {
		fmt.Fprintf(&sb, ".w%d { width: %d%%; }\n", i, i)
	}
	h.css = []byte(sb.String())
	return h, nil
}

// promptURL is the page of prompt name, its slashes escaped.
func promptURL(name string) string { return "/ui/prompts/" + url.PathEscape(name) }

// short returns the first 12 characters of a hash.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// when formats a time in UTC, to the second.
func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// diffLine is one line of a unified diff, classed for its colour.
type diffLine struct{ Class, Text string }

func diffLines(d string) []diffLine {
	var out []diffLine
	for line := range strings.Lines(d) {
		line = strings.TrimSuffix(line, "\n")
		c := "ctx"
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			c = "file"
		case strings.HasPrefix(line, "@@"):
			c = "hunk"
		case strings.HasPrefix(line, "+"):
			c = "add"
		case strings.HasPrefix(line, "-"):
			c = "del"
		}
		out = append(out, diffLine{c, line})
	}
	return out
}

// view is what every page's template gets.
type view struct {
	Title    string
	User     string
	CanWrite bool
	Data     any
}

// ServeHTTP serves the pages under /ui/.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Cache-Control", "no-store")
	path := r.URL.EscapedPath()
	switch {
	case path == "/ui/static/style.css":
		if !h.method(w, r, http.MethodGet) {
			return
		}
		hd.Set("Content-Type", "text/css; charset=utf-8")
		hd.Set("Cache-Control", "no-cache")
		w.Write(h.css)
	case path == "/ui/" || path == "/ui":
		if h.method(w, r, http.MethodGet) {
			h.index(w, r)
		}
	case path == "/ui/audit":
		if h.method(w, r, http.MethodGet) {
			h.audit(w, r, nil)
		}
	case path == "/ui/audit/replay":
		if h.method(w, r, http.MethodPost) && h.writable(w, r) {
			h.replay(w, r)
		}
	case strings.HasPrefix(path, "/ui/prompts/"):
		h.prompts(w, r, strings.TrimPrefix(path, "/ui/prompts/"))
	default:
		h.fail(w, r, http.StatusNotFound, "There is no page at "+r.URL.Path+".")
	}
}

// prompts dispatches /ui/prompts/{name}[/versions/{n} | /labels] on the
// escaped path, so that a name's escaped slashes stay in the name.
func (h *Handler) prompts(w http.ResponseWriter, r *http.Request, rest string) {
	kind, n := "prompt", 0
	if base, ok := strings.CutSuffix(rest, "/labels/remove"); ok {
		kind, rest = "remove", base
	} else if base, ok := strings.CutSuffix(rest, "/labels"); ok {
		kind, rest = "labels", base
	} else if i := strings.LastIndex(rest, "/versions/"); i >= 0 {
		v, err := strconv.Atoi(rest[i+len("/versions/"):])
		if err == nil {
			if v < 1 {
				h.fail(w, r, http.StatusNotFound, "Versions are numbered from 1.")
				return
			}
			kind, rest, n = "version", rest[:i], v
		}
	}
	name, err := url.PathUnescape(rest)
	if err != nil || !validName(name) {
		h.fail(w, r, http.StatusNotFound, "There is no prompt by that name.")
		return
	}
	switch kind {
	case "labels":
		if h.method(w, r, http.MethodPost) && h.writable(w, r) {
			h.moveLabel(w, r, name)
		}
	case "remove":
		if h.method(w, r, http.MethodPost) && h.writable(w, r) {
			h.removeLabel(w, r, name)
		}
	case "version":
		if h.method(w, r, http.MethodGet) {
			h.version(w, r, name, n)
		}
	default:
		if h.method(w, r, http.MethodGet) {
			h.prompt(w, r, name)
		}
	}
}

// validName reports whether name can be a prompt's: not empty, UTF-8,
// no control characters, no empty, "." or ".." segment.
func validName(name string) bool {
	if name == "" || len(name) > 512 || !utf8.ValidString(name) {
		return false
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	for seg := range strings.SplitSeq(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// method answers 405 unless r's method is m (HEAD counts as GET).
func (h *Handler) method(w http.ResponseWriter, r *http.Request, m string) bool {
	if r.Method == m || m == http.MethodGet && r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", m)
	h.fail(w, r, http.StatusMethodNotAllowed, r.Method+" is not supported here: use "+m+".")
	return false
}

// writable checks a POST: the user may write, and the form was posted
// from these pages (the browser's Sec-Fetch-Site or Origin says so).
func (h *Handler) writable(w http.ResponseWriter, r *http.Request) bool {
	if err := h.cop.Check(r); err != nil {
		h.fail(w, r, http.StatusForbidden, "This form must be posted from the inspector's own pages: the request came from another origin.")
		return false
	}
	if _, ok := h.access(r); !ok {
		h.fail(w, r, http.StatusForbidden, "This needs a member or admin key; the key in use may only read.")
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, http.StatusBadRequest, "The form could not be read.")
		return false
	}
	return true
}

// render writes page with data, or a 500 when the template fails.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, code int, page, title string, data any) {
	user, canWrite := h.access(r)
	var buf bytes.Buffer
	if err := h.pages[page].ExecuteTemplate(&buf, "layout", view{Title: title, User: user, CanWrite: canWrite, Data: data}); err != nil {
		h.log.Error("inspector: rendering a page", "page", page, "err", err)
		http.Error(w, "rendering the page failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
}

type errorData struct {
	Status  string
	Message string
}

// fail answers an error page.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, code int, msg string) {
	h.render(w, r, code, "error", http.StatusText(code), errorData{Status: fmt.Sprintf("%d %s", code, http.StatusText(code)), Message: msg})
}

// failErr answers the error a Source returned.
func (h *Handler) failErr(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, ErrNotFound):
		h.fail(w, r, http.StatusNotFound, err.Error())
	case errors.Is(err, ErrForbidden):
		h.fail(w, r, http.StatusForbidden, err.Error())
	case errors.Is(err, ErrInvalid):
		h.fail(w, r, http.StatusBadRequest, err.Error())
	case errors.Is(err, ErrConflict):
		h.fail(w, r, http.StatusConflict, err.Error())
	case r.Context().Err() != nil:
		h.fail(w, r, http.StatusServiceUnavailable, "The request was canceled.")
	default:
		h.log.Error("inspector", "path", r.URL.Path, "err", err)
		h.fail(w, r, http.StatusInternalServerError, err.Error())
	}
}

type indexData struct {
	Query   string
	Total   int
	Matched int
	Prompts []Prompt
	Pager   pager
}

func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	ps, err := h.src.Prompts(r.Context())
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	page, err := pageNumber(r, "page")
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	d := indexData{Query: q, Total: len(ps)}
	var matched []Prompt
	for _, p := range ps {
		if q == "" || strings.Contains(strings.ToLower(p.Name), strings.ToLower(q)) {
			matched = append(matched, p)
		}
	}
	d.Matched = len(matched)
	d.Prompts, d.Pager = paginate(matched, page, "/ui/", r.URL.Query(), "page", "prompts-pager", false)
	h.render(w, r, http.StatusOK, "index", "Prompts", d)
}

type promptData struct {
	Prompt *PromptDetail
	// Versions and History are the pages of the versions and of the
	// label history shown.
	Versions       []Version
	History        []LabelMove
	VPager, HPager pager
	From, To       int
	Diffed         bool
	Diff           string
	Moved          string
	// Removable are the labels on the prompt's versions but latest.
	Removable []string
}

func (h *Handler) prompt(w http.ResponseWriter, r *http.Request, name string) {
	ctx := r.Context()
	p, err := h.src.Prompt(ctx, name)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	d := promptData{Prompt: p, From: max(len(p.Versions)-1, 1), To: len(p.Versions)}
	q := r.URL.Query()
	vpage, err := pageNumber(r, "vpage")
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	hpage, err := pageNumber(r, "hpage")
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	base := promptURL(name)
	d.Versions, d.VPager = paginate(p.Versions, vpage, base, q, "vpage", "versions-pager", false)
	seen := map[string]bool{"latest": true}
	for _, v := range p.Versions {
		for _, l := range v.Labels {
			if !seen[l] {
				seen[l] = true
				d.Removable = append(d.Removable, l)
			}
		}
	}
	slices.Sort(d.Removable)
	if q.Has("from") || q.Has("to") {
		from, err1 := strconv.Atoi(q.Get("from"))
		to, err2 := strconv.Atoi(q.Get("to"))
		if err1 != nil || err2 != nil || from < 1 || to < 1 || from > len(p.Versions) || to > len(p.Versions) {
			h.fail(w, r, http.StatusBadRequest, fmt.Sprintf("Give two versions from 1 to %d to compare.", len(p.Versions)))
			return
		}
		if d.Diff, err = h.src.Diff(ctx, name, from, to); err != nil {
			h.failErr(w, r, err)
			return
		}
		d.From, d.To, d.Diffed = from, to, true
	}
	if l := q.Get("moved"); l != "" {
		if v, err := strconv.Atoi(q.Get("on")); err == nil {
			d.Moved = fmt.Sprintf("Label %s is now on version %d.", l, v)
		}
	}
	if l := q.Get("removed"); l != "" {
		d.Moved = fmt.Sprintf("Label %s was removed.", l)
	}
	history, err := h.src.LabelHistory(ctx, name)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	d.History, d.HPager = paginate(history, hpage, base, q, "hpage", "history-pager", false)
	h.render(w, r, http.StatusOK, "prompt", name, d)
}

func (h *Handler) moveLabel(w http.ResponseWriter, r *http.Request, name string) {
	label := strings.TrimSpace(r.PostFormValue("label"))
	n, err := strconv.Atoi(r.PostFormValue("version"))
	if label == "" || err != nil || n < 1 {
		h.fail(w, r, http.StatusBadRequest, "Give a label and a version to move it to.")
		return
	}
	if err := h.src.MoveLabel(r.Context(), name, label, n, strings.TrimSpace(r.PostFormValue("reason"))); err != nil {
		h.failErr(w, r, err)
		return
	}
	v := url.Values{"moved": {label}, "on": {strconv.Itoa(n)}}
	http.Redirect(w, r, promptURL(name)+"?"+v.Encode(), http.StatusSeeOther)
}

func (h *Handler) removeLabel(w http.ResponseWriter, r *http.Request, name string) {
	label := strings.TrimSpace(r.PostFormValue("label"))
	if label == "" {
		h.fail(w, r, http.StatusBadRequest, "Give the label to remove.")
		return
	}
	if err := h.src.RemoveLabel(r.Context(), name, label, strings.TrimSpace(r.PostFormValue("reason"))); err != nil {
		h.failErr(w, r, err)
		return
	}
	v := url.Values{"removed": {label}}
	http.Redirect(w, r, promptURL(name)+"?"+v.Encode(), http.StatusSeeOther)
}

// bar is one section with its token bar.
type bar struct {
	Index   int
	Key     string
	Role    string
	Tokens  int
	Text    string
	Width   int    // 0 to 100: the share of the largest section
	Percent string // of the whole prompt
}

type versionData struct {
	Assembled *Assembled
	Total     int
	Bars      []bar
}

func (h *Handler) version(w http.ResponseWriter, r *http.Request, name string, n int) {
	a, err := h.src.Assembled(r.Context(), name, n)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	d := versionData{Assembled: a}
	most := 0
	for _, s := range a.Sections {
		d.Total += s.Tokens
		most = max(most, s.Tokens)
	}
	for i, s := range a.Sections {
		b := bar{Index: i + 1, Key: s.Key, Role: s.Role, Tokens: s.Tokens, Text: s.Text}
		if most > 0 {
			b.Width = int(math.Round(float64(s.Tokens) * 100 / float64(most)))
			if s.Tokens > 0 {
				b.Width = max(b.Width, 1)
			}
		}
		if d.Total > 0 {
			b.Percent = strconv.FormatFloat(float64(s.Tokens)*100/float64(d.Total), 'f', 1, 64) + "%"
		}
		d.Bars = append(d.Bars, b)
	}
	h.render(w, r, http.StatusOK, "version", fmt.Sprintf("%s version %d", name, n), d)
}

type auditData struct {
	Query   AuditQuery
	Records []AuditRecord
	Pager   pager
	Note    string
	Replay  *Replay
}

// maxAuditRows is how far back the audit pages go.
const maxAuditRows = 1000

func (h *Handler) audit(w http.ResponseWriter, r *http.Request, rp *Replay) {
	q := r.URL.Query()
	aq := AuditQuery{Prompt: strings.TrimSpace(q.Get("prompt")), Hash: strings.TrimSpace(q.Get("hash")), ID: strings.TrimSpace(q.Get("id"))}
	page := 1
	if rp != nil {
		aq = AuditQuery{ID: rp.ID}
	} else {
		var err error
		if page, err = pageNumber(r, "page"); err != nil {
			h.failErr(w, r, err)
			return
		}
	}
	// The pages up to this one and one row more, to know whether there is
	// a next page.
	aq.Limit = min(page*PageSize+1, maxAuditRows)
	res, err := h.src.Audit(r.Context(), aq)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	if res == nil {
		res = &AuditResult{}
	}
	recs, more := res.Records, false
	if len(recs) > page*PageSize && page*PageSize < maxAuditRows {
		recs, more = recs[:page*PageSize], true
	}
	search := url.Values{}
	for k, v := range map[string]string{"prompt": aq.Prompt, "hash": aq.Hash, "id": aq.ID} {
		if v != "" {
			search.Set(k, v)
		}
	}
	d := auditData{Query: aq, Note: res.Note, Replay: rp}
	d.Records, d.Pager = paginate(recs, page, "/ui/audit", search, "page", "records-pager", more)
	h.render(w, r, http.StatusOK, "audit", "Audit records", d)
}

func (h *Handler) replay(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimSpace(r.PostFormValue("id"))
	if id == "" {
		h.fail(w, r, http.StatusBadRequest, "Give the id of the record to replay.")
		return
	}
	rp, err := h.src.Replay(r.Context(), id, strings.TrimSpace(r.PostFormValue("against")))
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.audit(w, r, rp)
}
