package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/preset/typed"
)

// overridesCmd is "tessera overrides seed|list|verify": the typed
// preset's overrides store.
func (a *app) overridesCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "overrides seed|list|verify",
		Short: "Seed, list and verify the typed preset's overrides store",
		Long: `The overrides store keeps replacements for a typed template's section
bodies, tool descriptions and tool parameter descriptions, one YAML file
per template and tag: ` + typed.StoreDir + `/<ns>/<key>/<tag>.yaml under
the catalog root (the current directory without a catalog), or under
--dir. "tessera assemble --typed TEMPLATE --typed-tag TAG" applies them.`,
		Annotations: map[string]string{"exit1": "a template or store file cannot be read; verify found a stale or\n     invalid override"},
	}
	cmd.PersistentFlags().StringVar(&dir, "dir", "", "the store's `DIR` (default: "+typed.StoreDir+" under the catalog root, else the current directory)")
	store := func(cmd *cobra.Command) (*typed.Store, error) {
		d := dir
		if d == "" {
			d = typed.StoreDir
			c, err := a.openCatalogIfAny(cmd.Context())
			if err != nil {
				return nil, err
			}
			if c != nil {
				d = filepath.Join(c.Dir(), typed.StoreDir)
				c.Close()
			}
		}
		return typed.NewStore(d)
	}
	template := func(path string) (*typed.Template, error) {
		if path == "" {
			return nil, errors.New("give the template with --typed TEMPLATE")
		}
		return a.typedTemplate(path)
	}
	var tpl, tag string
	seed := &cobra.Command{
		Use:   "seed --typed TEMPLATE [--tag TAG]",
		Short: "Write a template's current bodies and descriptions into the store, with their hashes",
		Long: `Write the typed template's overridable section bodies and its tool
descriptions, each with its hash, into the store's file for the tag
(default latest), as a starting point to edit. Entries the file already
has are kept.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := template(tpl)
			if err != nil {
				return err
			}
			s, err := store(cmd)
			if err != nil {
				return err
			}
			if err := s.Seed(cmd.Context(), t, tag); err != nil {
				return failure{err}
			}
			path, _ := s.Path(t, tag)
			fmt.Fprintln(a.stdout, filepath.ToSlash(path))
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the store's files: ns/key, tag and path",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := store(cmd)
			if err != nil {
				return err
			}
			files, err := s.List(cmd.Context())
			if err != nil {
				return failure{err}
			}
			for _, f := range files {
				fmt.Fprintf(a.stdout, "%s/%s\t%s\t%s\n", f.NS, f.Key, f.Tag, filepath.ToSlash(f.Path))
			}
			return nil
		},
	}
	verify := &cobra.Command{
		Use:   "verify --typed TEMPLATE [--tag TAG]",
		Short: "Check that every override in the store's file for a template still applies",
		Long: `Read the store's file for the typed template and tag (default latest)
and check every entry against the template as it is now: each stale
entry (written for another hash, or naming a parameter the template no
longer declares) is printed with why, and so is every invalid one. Exit
0 when all apply.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := template(tpl)
			if err != nil {
				return err
			}
			s, err := store(cmd)
			if err != nil {
				return err
			}
			ov, err := s.Resolve(cmd.Context(), t, tag)
			if err != nil {
				return failure{err}
			}
			for _, n := range ov.Notes {
				fmt.Fprintln(a.stderr, n)
			}
			if len(ov.Notes) > 0 {
				return silentFailure
			}
			path, _ := s.Path(t, tag)
			fmt.Fprintf(a.stdout, "%s: every override applies\n", filepath.ToSlash(path))
			return nil
		},
	}
	for _, c := range []*cobra.Command{seed, verify} {
		c.Flags().StringVar(&tpl, "typed", "", "the typed `TEMPLATE`")
		c.Flags().StringVar(&tag, "tag", typed.DefaultTag, "the overrides' `TAG`")
	}
	cmd.AddCommand(seed, list, verify)
	return cmd
}

// typedTemplate reads and parses the typed template file at path, within
// the file size cap; a file that cannot be read or parsed is a failure
// (exit 1).
func (a *app) typedTemplate(path string) (*typed.Template, error) {
	max, err := a.maxFileBytes()
	if err != nil {
		return nil, err
	}
	data, err := fileread.File(path, max)
	if err != nil {
		return nil, failure{readError(path, err)}
	}
	t, err := typed.Parse(filepath.ToSlash(path), data)
	if err != nil {
		return nil, failure{err}
	}
	return t, nil
}
