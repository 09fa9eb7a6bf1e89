package prompt

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// keyPattern is the shape of a section key, shared by every preset.
var keyPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// ValidKey reports whether key is a valid section key: one to 64 characters
// of lower-case letters, digits, '.', '_' and '-', starting with a letter or
// digit.
func ValidKey(key string) bool { return keyPattern.MatchString(key) }

// Trust says whether a section's text may be read as instructions.
type Trust uint8

const (
	// Trusted text comes from the catalog or the caller's own code and may
	// instruct the model.
	Trusted Trust = iota
	// Untrusted text comes from users, tools, retrieval or the web; it is
	// fenced and labelled as reference material, never as instructions.
	Untrusted
)

// Visibility says how much of a section is rendered.
type Visibility uint8

const (
	// Full renders the section's body and children.
	Full Visibility = iota
	// Summary renders the section's summary in place of its body, for
	// progressive disclosure; the full text can be expanded on request.
	Summary
)

// Role is the provider-side place a section is sent under.
type Role uint8

const (
	// RoleUser puts the section in the user-side content of a request.
	RoleUser Role = iota
	// RoleSystem puts the section in the system (or developer) instructions.
	RoleSystem
)

// TrimRule says what the budget stage may do to a section that does not fit.
type TrimRule uint8

const (
	// TrimNever keeps the section whole; if never-trimmed sections alone
	// exceed the budget, assembly fails.
	TrimNever TrimRule = iota
	// TrimDrop removes the whole section.
	TrimDrop
	// TrimLowestRelevance removes items, lowest relevance first.
	TrimLowestRelevance
	// TrimOldest removes items, oldest first (transcripts, activity).
	TrimOldest
	// TrimTruncate cuts the body at a token boundary and appends a visible
	// marker.
	TrimTruncate
)

var (
	trustNames      = []string{"trusted", "untrusted"}
	visibilityNames = []string{"full", "summary"}
	roleNames       = []string{"user", "system"}
	trimNames       = []string{"never", "drop", "lowest-relevance", "oldest", "truncate"}
)

func (t Trust) String() string      { return enumName(trustNames, int(t)) }
func (v Visibility) String() string { return enumName(visibilityNames, int(v)) }
func (r Role) String() string       { return enumName(roleNames, int(r)) }
func (t TrimRule) String() string   { return enumName(trimNames, int(t)) }

func enumName(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("invalid(%d)", i)
}

// ParseTrust returns the Trust named s ("trusted" or "untrusted").
func ParseTrust(s string) (Trust, error) { return parseEnum[Trust]("trust", trustNames, s) }

// ParseVisibility returns the Visibility named s ("full" or "summary").
func ParseVisibility(s string) (Visibility, error) {
	return parseEnum[Visibility]("visibility", visibilityNames, s)
}

// ParseRole returns the Role named s ("user" or "system").
func ParseRole(s string) (Role, error) { return parseEnum[Role]("role", roleNames, s) }

// ParseTrimRule returns the TrimRule named s ("never", "drop",
// "lowest-relevance", "oldest" or "truncate").
func ParseTrimRule(s string) (TrimRule, error) { return parseEnum[TrimRule]("trim rule", trimNames, s) }

func parseEnum[T ~uint8](what string, names []string, s string) (T, error) {
	for i, n := range names {
		if n == s {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q: use one of %s", what, s, strings.Join(names, ", "))
}

// Item is one entry of a section whose body is a list that the budget may
// shorten item by item: a memory, a transcript message, an activity record.
type Item struct {
	// ID names the item in budget reports; unique within its section.
	ID string
	// Text is the item as rendered.
	Text string
	// Relevance orders items for TrimLowestRelevance; higher is kept longer.
	Relevance float64
	// Seq orders items for TrimOldest; lower is older.
	Seq int64
	// Keep marks an item the budget may not drop (a required task, say);
	// when only kept items remain, the section is as short as it gets.
	Keep bool
}

// Tool is a capability attached to a section, offered to the model when the
// section is kept.
type Tool struct {
	// Name is the tool's name as the model calls it.
	Name string
	// Description tells the model when to use it.
	Description string
	// Parameters is the JSON Schema of the arguments, kept as written so
	// property order survives to the wire.
	Parameters json.RawMessage
}

// Section is the unit of a prompt. Sources produce sections, presets order
// and label them, the budget trims them and renderers turn them into text
// and provider messages.
type Section struct {
	// Key identifies the section; see ValidKey.
	Key string
	// Title is the heading a preset may render above the body.
	Title string
	// Body is the section's text, already normalised (see Normalize).
	Body string
	// Summary replaces Body when Visibility is Summary.
	Summary string
	// Items, when present, are the body as a list the budget may shorten.
	Items []Item
	// Omitted counts items removed before rendering, by a preset's
	// retention rule or by the budget, so a renderer can say so
	// ("truncated to last 8 exchanges").
	Omitted int
	// Children are nested sections, rendered after the body.
	Children []Section
	// Priority orders trimming: lower numbers are more important and kept
	// longer; presets set defaults.
	Priority int
	// Trust is whether the text may instruct the model.
	Trust Trust
	// Visibility is whether the full body or the summary is rendered.
	Visibility Visibility
	// Role is the provider-side place the section is sent under.
	Role Role
	// Tools are offered to the model while the section is kept.
	Tools []Tool
	// NativeBody, when set, is shown in place of Body when the request
	// carries the section's Tools as native tool definitions: the
	// section's text without what those definitions already say (their
	// schemas), so that a tool is sent once. Empty keeps Body.
	NativeBody string
	// Trim is what the budget may do to this section.
	Trim TrimRule
	// Source is where the section came from, for diagnostics and audit.
	Source string
}

// Validate checks the section and its children: keys valid and unique
// among siblings, enums in range, items uniquely named, tools named.
// It returns every problem found, joined.
func (s *Section) Validate() error {
	var errs []error
	s.validate("", &errs)
	return errors.Join(errs...)
}

// JoinKey returns the key path of the child key under parent: the keys
// joined with '/', as spans, budget reports and caps name nested
// sections.
func JoinKey(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "/" + key
}

func (s *Section) validate(parent string, errs *[]error) {
	path := JoinKey(parent, s.Key)
	if !ValidKey(s.Key) {
		*errs = append(*errs, fmt.Errorf("section %q: key must match %s", path, keyPattern))
	}
	if int(s.Trust) >= len(trustNames) || int(s.Visibility) >= len(visibilityNames) ||
		int(s.Role) >= len(roleNames) || int(s.Trim) >= len(trimNames) {
		*errs = append(*errs, fmt.Errorf("section %q: trust, visibility, role or trim rule out of range", path))
	}
	if s.Visibility == Summary && s.Summary == "" {
		*errs = append(*errs, fmt.Errorf("section %q: visibility is summary but the summary is empty", path))
	}
	if (s.Trim == TrimLowestRelevance || s.Trim == TrimOldest) && len(s.Items) == 0 && s.Body != "" {
		*errs = append(*errs, fmt.Errorf("section %q: trim rule %s works on items, but the section has a body and no items", path, s.Trim))
	}
	ids := make(map[string]bool, len(s.Items))
	for _, it := range s.Items {
		if it.ID == "" || ids[it.ID] {
			*errs = append(*errs, fmt.Errorf("section %q: item id %q is empty or repeated", path, it.ID))
		}
		ids[it.ID] = true
	}
	for _, t := range s.Tools {
		if t.Name == "" {
			*errs = append(*errs, fmt.Errorf("section %q: a tool has no name", path))
		}
	}
	keys := make(map[string]bool, len(s.Children))
	for i := range s.Children {
		c := &s.Children[i]
		if keys[c.Key] {
			*errs = append(*errs, fmt.Errorf("section %q: child key %q is repeated", path, c.Key))
		}
		keys[c.Key] = true
		c.validate(path, errs)
	}
}
