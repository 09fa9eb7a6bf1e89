package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the Tessera version",
		Long: `Print the version of this tessera, the Go version that built it and the
platform. The version comes from the build: the module version when
installed with go install MODULE@VERSION, the pseudo-version go build
stamps from the repository's commit (+dirty when the checkout had
uncommitted changes), else the commit and +modified, else (devel).
"tessera --version" prints the same.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprint(a.stdout, versionLine())
			return nil
		},
	}
}

// versionLine is what "tessera version" and "tessera --version" print.
func versionLine() string {
	info, _ := debug.ReadBuildInfo()
	return fmt.Sprintf("tessera %s (%s %s/%s)\n", buildVersion(info), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// buildVersion is the version of the build info: the main module's
// version when the go command stamped one, else the VCS revision (12
// digits) with +modified for uncommitted changes, else "(devel)".
func buildVersion(info *debug.BuildInfo) string {
	if info == nil {
		return "(devel)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "(devel)"
	}
	rev = rev[:min(len(rev), 12)]
	if modified == "true" {
		rev += "+modified"
	}
	return "(devel) " + rev
}
