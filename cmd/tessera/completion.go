package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/preset/typed"
)

// completionCmd is "tessera completion bash|zsh|fish". The scripts ask
// the command itself (cobra's hidden __complete) for subcommands, flags,
// and the workflow and node names of the catalog in use.
func (a *app) completionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print the shell completion script for bash, zsh or fish",
		Long: `Print the script that completes tessera's subcommands and flags in bash,
zsh or fish, and the values of some flags: the workflows of the catalog
in use for --workflow (the one --root names, else the nearest
tessera.yaml), the nodes of that --workflow that have a prompt for
--node, the fixtures of the --typed template for --typed-fixture, and
the API names for --provider.

To load it in the current shell:

  source <(tessera completion bash)      # bash, with bash-completion 2
  source <(tessera completion zsh)       # zsh, after compinit
  tessera completion fish | source       # fish

To load it in every new shell, write it where the shell looks:

  tessera completion bash > ~/.local/share/bash-completion/completions/tessera
  tessera completion zsh > "${fpath[1]}/_tessera"
  tessera completion fish > ~/.config/fish/completions/tessera.fish`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs)(cmd, args); err != nil {
				return usageHint{fmt.Errorf("%w: use bash, zsh or fish", err), cmd.CommandPath()}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(a.stdout, true)
			case "zsh":
				return root.GenZshCompletion(a.stdout)
			case "fish":
				return root.GenFishCompletion(a.stdout, true)
			}
			return nil // Args allows no other
		},
	}
}

// completeFlags registers the completions of assemble's flags whose
// values come from the catalog or a fixed list.
func (a *app) completeFlags(cmd *cobra.Command) {
	if cmd.Flags().Lookup("workflow") != nil {
		_ = cmd.RegisterFlagCompletionFunc("workflow", a.completeWorkflows)
	}
	if cmd.Flags().Lookup("node") != nil {
		_ = cmd.RegisterFlagCompletionFunc("node", a.completeNodes)
	}
	if cmd.Flags().Lookup(typed.InputFixture) != nil {
		_ = cmd.RegisterFlagCompletionFunc(typed.InputFixture, completeFixtures)
	}
	_ = cmd.RegisterFlagCompletionFunc("provider", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return formatNames(), cobra.ShellCompDirectiveNoFileComp
	})
}

// completeWorkflows lists the ids of the catalog's workflows.
func (a *app) completeWorkflows(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	c, err := a.openCatalogIfAny(cmd.Context())
	if err != nil || c == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer c.Close()
	ids, _ := c.WorkflowIDs(cmd.Context())
	return withPrefix(ids, prefix), cobra.ShellCompDirectiveNoFileComp
}

// completeNodes lists the nodes of --workflow that have a prompt to
// assemble (a task_ref), in the workflow's order.
func (a *app) completeNodes(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	id, _ := cmd.Flags().GetString("workflow")
	if id == "" {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	c, err := a.openCatalogIfAny(cmd.Context())
	if err != nil || c == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer c.Close()
	wf, err := c.Workflow(cmd.Context(), id)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var nodes []string
	for _, n := range wf.Nodes {
		if n.TaskRef != "" {
			nodes = append(nodes, n.ID)
		}
	}
	return withPrefix(nodes, prefix), cobra.ShellCompDirectiveNoFileComp
}

// completeFixtures lists the fixtures of the --typed template.
func completeFixtures(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	name, _ := cmd.Flags().GetString(typed.InputTemplate)
	data, err := fileread.File(name, fileread.DefaultMaxBytes)
	if name == "" || err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	t, err := typed.Parse(name, data)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, f := range t.Fixtures {
		names = append(names, f.Name)
	}
	return withPrefix(names, prefix), cobra.ShellCompDirectiveNoFileComp
}

// withPrefix keeps the names that start with prefix.
func withPrefix(names []string, prefix string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !strings.HasPrefix(n, prefix) })
}
