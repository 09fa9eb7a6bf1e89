package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/serve/registry"
)

// maxNameBytes caps a prompt name.
const maxNameBytes = 512

// checkName returns an error unless name could name a prompt: a
// slash-separated relative path with no empty, "." or ".." element, no
// backslash and no control character.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("the prompt name is empty")
	case len(name) > maxNameBytes:
		return fmt.Errorf("the prompt name is %d bytes long: at most %d", len(name), maxNameBytes)
	case !utf8.ValidString(name):
		return errors.New("the prompt name is not valid UTF-8")
	case strings.ContainsRune(name, '\\'):
		return fmt.Errorf("prompt name %q has a backslash: names are slash-separated, as compile names them", name)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Errorf("prompt name %q has a control character", name)
	case !fs.ValidPath(name) || name == ".":
		return fmt.Errorf("prompt name %q is not a relative path inside the catalog (no leading '/', no '.' or '..' elements)", name)
	}
	return nil
}

// promptPath is a parsed path under /api/public/v2/prompts/.
type promptPath struct {
	Name    string
	Version int // > 0 for .../versions/{version}
}

// parsePromptPath parses the escaped path after "/api/public/v2/prompts/":
// "{name}", or for a PATCH "{name}/versions/{version}" (or ".../version/
// {version}", as older Langfuse servers spelled it). The name comes
// URL-encoded ("pm_discovery.v1%2Fpgc"), as Langfuse's clients send it, or
// with its slashes unencoded, as Langfuse's server also accepts.
func parsePromptPath(escaped string, patch bool) (promptPath, error) {
	var p promptPath
	rest := escaped
	if patch {
		i := strings.LastIndex(rest, "/")
		j := strings.LastIndex(rest[:max(i, 0)], "/")
		if i < 0 || j < 0 || (rest[j+1:i] != "versions" && rest[j+1:i] != "version") {
			return p, errors.New("PATCH needs a version: /api/public/v2/prompts/{name}/versions/{version}")
		}
		n := rest[i+1:]
		v, err := strconv.Atoi(n)
		if err != nil || v < 1 || n != strconv.Itoa(v) {
			return p, fmt.Errorf("version %q is not a whole number from 1", n)
		}
		p.Version, rest = v, rest[:j]
	}
	name, err := url.PathUnescape(rest)
	if err != nil {
		return p, fmt.Errorf("prompt name %q is not URL-encoded correctly: %v", rest, err)
	}
	if err := checkName(name); err != nil {
		return p, err
	}
	p.Name = name
	return p, nil
}

// selector is how a fetch selects a prompt: a label, a version or a
// commit, at most one of them.
type selector struct {
	Label   string
	Version int
	Commit  string
}

// parseSelector reads label, version and commit; none means the
// "production" label, as Langfuse does.
func parseSelector(label, version, commit string) (selector, error) {
	var s selector
	n := 0
	if label != "" {
		n++
		if err := checkLabelOrBranch(label); err != nil {
			return s, err
		}
		s.Label = label
	}
	if version != "" {
		n++
		v, err := strconv.Atoi(version)
		if err != nil || v < 1 {
			return s, fmt.Errorf("version %q is not a whole number from 1", version)
		}
		s.Version = v
	}
	if commit != "" {
		n++
		if len(commit) < 7 || len(commit) > 40 || strings.Trim(commit, "0123456789abcdef") != "" {
			return s, fmt.Errorf("commit %q is not a commit hash: give 7 to 40 lower-case hexadecimal digits", commit)
		}
		s.Commit = commit
	}
	if n > 1 {
		return s, errors.New("give one of label, version and commit, not several")
	}
	if n == 0 {
		s.Label = "production"
	}
	return s, nil
}

// checkLabelOrBranch accepts a label, or a branch name to serve a branch
// by name: letters, digits and "_.-/", no "..", at most 200 bytes.
func checkLabelOrBranch(s string) error {
	if registry.CheckLabel(s) == nil {
		return nil
	}
	ok := len(s) <= 200 && s != "" && !strings.Contains(s, "..") && !strings.HasPrefix(s, "/") && !strings.HasSuffix(s, "/") && !strings.Contains(s, "//")
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.-/", r)) {
			ok = false
		}
	}
	if !ok {
		return registry.CheckLabel(s)
	}
	return nil
}

// listQuery is the query of GET /api/public/v2/prompts.
type listQuery struct {
	Name, Label, Tag string
	Page, Limit      int
	From, To         time.Time // zero for no bound
}

// Paging defaults and caps.
const (
	defaultLimit = 50
	maxLimit     = 1000
)

// parseListQuery parses the list endpoint's query.
func parseListQuery(q url.Values) (listQuery, error) {
	l := listQuery{Name: q.Get("name"), Label: q.Get("label"), Tag: q.Get("tag"), Page: 1, Limit: defaultLimit}
	if l.Label != "" {
		if err := checkLabelOrBranch(l.Label); err != nil {
			return l, err
		}
	}
	if l.Name != "" {
		if err := checkName(l.Name); err != nil {
			return l, err
		}
	}
	var err error
	if s := q.Get("page"); s != "" {
		if l.Page, err = strconv.Atoi(s); err != nil || l.Page < 1 {
			return l, fmt.Errorf("page %q is not a whole number from 1", s)
		}
	}
	if s := q.Get("limit"); s != "" {
		if l.Limit, err = strconv.Atoi(s); err != nil || l.Limit < 1 || l.Limit > maxLimit {
			return l, fmt.Errorf("limit %q is not a whole number from 1 to %d", s, maxLimit)
		}
	}
	for _, b := range []struct {
		key string
		t   *time.Time
	}{{"fromUpdatedAt", &l.From}, {"toUpdatedAt", &l.To}} {
		if s := q.Get(b.key); s != "" {
			if *b.t, err = time.Parse(time.RFC3339Nano, s); err != nil {
				return l, fmt.Errorf("%s %q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", b.key, s)
			}
		}
	}
	return l, nil
}

// patchBody is the body of PATCH .../versions/{version}.
type patchBody struct {
	NewLabels    []string `json:"newLabels"`
	RemoveLabels []string `json:"removeLabels"`
	// Reason says why, for the label history.
	Reason string `json:"reason"`
}

// parsePatchBody parses and checks a PATCH body: known fields only, valid
// labels, "latest" in neither list, no label in both.
func parsePatchBody(data []byte) (patchBody, error) {
	var b patchBody
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return b, fmt.Errorf("the body is not a JSON object of newLabels, removeLabels and reason: %v", err)
	}
	if dec.More() {
		return b, errors.New("the body has more than one JSON value")
	}
	if len(b.NewLabels)+len(b.RemoveLabels) == 0 {
		return b, errors.New("the body has no newLabels nor removeLabels: nothing to do")
	}
	if len(b.Reason) > 1000 {
		return b, errors.New("reason is longer than 1000 bytes")
	}
	seen := map[string]string{}
	for _, list := range []struct {
		key    string
		labels []string
	}{{"newLabels", b.NewLabels}, {"removeLabels", b.RemoveLabels}} {
		for _, l := range list.labels {
			if err := registry.CheckLabel(l); err != nil {
				return b, fmt.Errorf("%s: %v", list.key, err)
			}
			if l == registry.Latest {
				return b, fmt.Errorf("%s: label %q is reserved: it is always the default branch's head", list.key, l)
			}
			if prev, ok := seen[l]; ok {
				return b, fmt.Errorf("%s: label %q is already in %s", list.key, l, prev)
			}
			seen[l] = list.key
		}
	}
	return b, nil
}
