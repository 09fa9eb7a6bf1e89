package main

import (
	"runtime/debug"
	"testing"
)

// TestBuildVersion checks where "tessera version" takes its version
// from: the module version, else the commit, else (devel).
func TestBuildVersion(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, c := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{nil, "(devel)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261127174400-6805670abcde+dirty"}, Settings: vcs("6805670abcdef0123", "true")}, "v0.0.0-20261127174400-6805670abcde+dirty"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("6805670abcdef0123", "true")}, "(devel) 6805670abcde+modified"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("6805670", "false")}, "(devel) 6805670"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)"},
	} {
		if got := buildVersion(c.info); got != c.want {
			t.Errorf("buildVersion(%+v) = %q, want %q", c.info, got, c.want)
		}
	}
}
