package catalog

import (
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/internal/yamldoc"
)

// ServeConfig is tessera.yaml's serve section: the settings of tessera
// serve that a catalog keeps beside its prompts. Each names a flag of
// tessera serve (with "-" for "_"); the flag and its TESSERA_* variable
// override it. A field is nil when the section leaves it out.
type ServeConfig struct {
	// Addr is the HOST:PORT to listen on (key "addr").
	Addr *string
	// DB is the database of keys, label moves and records (key "db").
	DB *string
	// Branch is the default branch (key "branch").
	Branch *string
	// Poll is how often the repository is read again (key "poll").
	Poll *time.Duration
	// ProtectedLabels only an admin key may move (key
	// "protected_labels"); GatedLabels move only where the prompt's
	// golden cases replay (key "gated_labels").
	ProtectedLabels, GatedLabels []string
	// CacheSize is how many built catalogs are kept (key "cache_size").
	CacheSize *int
	// ShutdownTimeout bounds a stop (key "shutdown_timeout").
	ShutdownTimeout *time.Duration
	// Webhooks are told of new versions and label moves (key
	// "webhooks").
	Webhooks []string
	// PublicMetrics serves /metrics without a key (key
	// "public_metrics").
	PublicMetrics *bool
	// Remote is the Git repository replicas share (key "remote").
	Remote *string
	// Line is the line of the serve key, for diagnostics.
	Line int
}

// Flags returns the settings the section gives, as tessera serve's flag
// names and their values written as the flags take them.
func (s *ServeConfig) Flags() map[string]string {
	out := map[string]string{}
	if s == nil {
		return out
	}
	str := func(flag string, v *string) {
		if v != nil {
			out[flag] = *v
		}
	}
	dur := func(flag string, v *time.Duration) {
		if v != nil {
			out[flag] = v.String()
		}
	}
	list := func(flag string, v []string) {
		if v != nil {
			out[flag] = strings.Join(v, ",")
		}
	}
	str("addr", s.Addr)
	str("db", s.DB)
	str("branch", s.Branch)
	str("remote", s.Remote)
	dur("poll", s.Poll)
	dur("shutdown-timeout", s.ShutdownTimeout)
	list("protected-labels", s.ProtectedLabels)
	list("gated-labels", s.GatedLabels)
	list("webhook", s.Webhooks)
	if s.CacheSize != nil {
		out["cache-size"] = strconv.Itoa(*s.CacheSize)
	}
	if s.PublicMetrics != nil {
		out["public-metrics"] = strconv.FormatBool(*s.PublicMetrics)
	}
	return out
}

type serveDoc struct {
	Addr            *string   `yaml:"addr"`
	DB              *string   `yaml:"db"`
	Branch          *string   `yaml:"branch"`
	Poll            *duration `yaml:"poll"`
	ProtectedLabels []string  `yaml:"protected_labels"`
	GatedLabels     []string  `yaml:"gated_labels"`
	CacheSize       *int      `yaml:"cache_size"`
	ShutdownTimeout *duration `yaml:"shutdown_timeout"`
	Webhooks        []string  `yaml:"webhooks"`
	PublicMetrics   *bool     `yaml:"public_metrics"`
	Remote          *string   `yaml:"remote"`
}

// config turns the decoded section into a ServeConfig.
func (d *serveDoc) config(line int) *ServeConfig {
	s := &ServeConfig{Addr: d.Addr, DB: d.DB, Branch: d.Branch, ProtectedLabels: d.ProtectedLabels, GatedLabels: d.GatedLabels,
		CacheSize: d.CacheSize, Webhooks: d.Webhooks, PublicMetrics: d.PublicMetrics, Remote: d.Remote, Line: line}
	if d.Poll != nil {
		v := time.Duration(*d.Poll)
		s.Poll = &v
	}
	if d.ShutdownTimeout != nil {
		v := time.Duration(*d.ShutdownTimeout)
		s.ShutdownTimeout = &v
	}
	return s
}

// duration is a Go duration written as a string: "1s", "500ms", "2m".
type duration time.Duration

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (t *duration) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		if v, err := time.ParseDuration(n.Value); err == nil && v >= 0 {
			*t = duration(v)
			return
		}
	}
	d.Wrong(n, at, "a duration such as 1s, 500ms or 2m, not negative")
}
