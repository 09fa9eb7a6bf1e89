package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera"
)

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the Tessera version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(a.stdout, "tessera %s (%s %s/%s)\n", tessera.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
