package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/presets"
)

// failure is an error in the catalog, an assembly or a replay: exit 1.
// Any other error from a command is a usage error: exit 2.
type failure struct{ err error }

func (f failure) Error() string { return f.err.Error() }
func (f failure) Unwrap() error { return f.err }

// silentFailure exits 1 after the command has already said why.
var silentFailure = failure{errors.New("")}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var f failure
	if errors.As(err, &f) {
		if msg := missingPath(f.err, f.Error()); msg != "" {
			fmt.Fprintln(stderr, msg)
		}
		return 1
	}
	help := "tessera"
	var h usageHint
	if errors.As(err, &h) {
		help = h.help
	}
	fmt.Fprintf(stderr, "tessera: %v\nRun '%s --help' for usage.\n", err, help)
	return 2
}

// app is the command's state: its streams, the --root flag, the catalog
// root in use once found, and the engine every command calls.
type app struct {
	stdout, stderr io.Writer
	root           string // --root
	maxFile        string // --max-file-bytes
	dir            string // the root in use, once found
	engine         *engine.Engine
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	return newRootCmdWith(stdout, stderr, presets.Default())
}

// newRootCmdWith is the tessera command with the presets of reg: every
// command, flag and help text that names presets is made from reg, so a
// preset registered there needs no other change to the command.
func newRootCmdWith(stdout, stderr io.Writer, reg *preset.Registry) *cobra.Command {
	a := &app{stdout: stdout, stderr: stderr, engine: &engine.Engine{Registry: reg, Now: time.Now}}
	root := &cobra.Command{
		Use:   "tessera",
		Short: "Assemble, compile and replay prompts from a catalog",
		Long: `Tessera assembles prompts for large language models from a catalog of
versioned files: templates, includes and workflows, named by tessera.yaml.

Every prompt is deterministic to the byte and carries a SHA-256 hash;
assemblies can be logged and replayed, and compile checks every workflow
node in CI.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// No Run: cobra then reports a mistyped command as an unknown
		// command with suggestions, even when flags follow it.
	}
	root.SetOut(stdout)
	root.SetFlagErrorFunc(flagError)
	root.Version = "version" // any non-empty value: cobra then adds --version
	root.SetVersionTemplate(versionLine())
	root.InitDefaultVersionFlag() // now, so docs/CLI.md lists it
	root.Flags().Lookup("version").Usage = "print the version, as tessera version does"
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&a.root, "root", "", "catalog root, the directory holding tessera.yaml (default: the nearest one at or above the current directory)")
	root.PersistentFlags().StringVar(&a.maxFile, "max-file-bytes", "", "cap, a `SIZE` such as 64MiB, on each file named on the command line and on standard input (default: $"+fileread.EnvMaxBytes+", else the catalog's limits.max_file_bytes, else 16MiB)")
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(a.assembleCmd(), a.compileCmd(), a.replayCmd(), a.tokensCmd(), a.redactCmd(), a.logCmd(), a.versionCmd())
	root.AddCommand(a.agentCmd())
	root.AddCommand(a.parseCmd(), a.overridesCmd())
	root.AddCommand(a.layeredCmd())
	root.AddCommand(a.serveCmd())
	root.AddCommand(a.completionCmd(), a.schemaCmd())
	finishHelp(root)
	return root
}

// maxFileBytes returns the cap on each file named on the command line
// and on standard input: --max-file-bytes, else $TESSERA_MAX_FILE_BYTES,
// else 0, which leaves the catalog's limits.max_file_bytes or the
// default.
func (a *app) maxFileBytes() (int64, error) {
	name, v := "--max-file-bytes", a.maxFile
	if v == "" {
		name = fileread.EnvMaxBytes
		v = strings.TrimSpace(os.Getenv(fileread.EnvMaxBytes))
		if v == "" {
			return 0, nil
		}
	}
	n, ok := catalog.ParseSize(v)
	if !ok {
		return 0, fmt.Errorf("%s %q: write a size such as 64MiB or 67108864, from 1 byte to 1GiB", name, v)
	}
	return n, nil
}

// openCatalog opens the catalog named by --root, or the nearest one found
// by walking up from the current directory.
func (a *app) openCatalog(ctx context.Context) (*catalog.Catalog, error) {
	dir := a.root
	if dir == "" {
		found, err := findRoot()
		if err != nil {
			return nil, failure{err}
		}
		dir = found
	}
	a.dir = dir
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) && a.root != "" {
		return nil, failure{fmt.Errorf("--root %s: no such directory: pass the directory that holds %s", dir, catalog.ConfigFile)}
	}
	c, err := a.engine.Open(ctx, dir)
	if err != nil {
		return nil, a.fail(err)
	}
	return c, nil
}

// openCatalogIfAny opens the catalog named by --root, or the nearest one
// above the current directory, or returns nil when there is none.
func (a *app) openCatalogIfAny(ctx context.Context) (*catalog.Catalog, error) {
	if a.root == "" {
		if _, err := findRoot(); err != nil {
			return nil, nil
		}
	}
	return a.openCatalog(ctx)
}

func findRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, catalog.ConfigFile)); err == nil {
			if rel, err := filepath.Rel(wd, dir); err == nil {
				return rel, nil
			}
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no %s in %s or any directory above it: pass --root DIR", catalog.ConfigFile, wd)
		}
		dir = parent
	}
}

// fail turns an error into a failure whose diagnostics name paths as the
// user can open them from the current directory: catalog paths are
// joined to the root in use, and the files named on the command line
// (keep) are left as given.
func (a *app) fail(err error, keep ...string) error {
	list := a.diags(err, keep...)
	lines := make([]string, len(list))
	for i, e := range list {
		lines[i] = missingPath(err, e.Error())
	}
	return failure{errors.New(strings.Join(lines, "\n"))}
}

// diags lists err's problems with their paths as fail shows them.
func (a *app) diags(err error, keep ...string) diag.List {
	var list diag.List
	list.Add(err)
	dir := a.dir
	for i, e := range list {
		if dir != "" && dir != "." {
			list[i] = e.MapPaths(func(p string) string {
				if filepath.IsAbs(p) || slices.Contains(keep, p) {
					return p
				}
				return filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(p)))
			})
		}
	}
	return list
}
