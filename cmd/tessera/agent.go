package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/agent"
)

// agentCmd is "tessera agent": one subcommand per role that builds its
// prompt through the agent preset exactly as assemble does, and "check"
// for the model's replies.
func (a *app) agentCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Build the prompts of an agent's loop (plan, execute, replan, extract, verify) and check its replies",
		Long: `Build the prompt of one step of an agent's loop (design 000) from
YAML templates and the loop's files, and print it, or a provider's request
body with --provider. Each role has its own command:

  tessera agent plan    --goal TEXT [--workspace DIR] [--context TEXT]
  tessera agent execute --state STATE.yaml --subtask SUBTASK.yaml [--memory MEMORY.json] [--tools TOOLS.json] [--detail]
  tessera agent replan  --goal TEXT --state STATE.yaml --plan PLAN.json [--discoveries FILE] [--errors FILE]
  tessera agent extract --subtask SUBTASK.yaml --model-output OUTPUT.txt [--tool-calls CALLS.json]
  tessera agent verify  --subtask SUBTASK.yaml --result RESULT.txt [--tool-calls CALLS.json]

The templates are Tessera's own, replaced by those of the catalog's
agent/templates directory when there is a catalog, replaced by those of
--templates DIR when given. "tessera agent check" checks a reply.

Each command is "tessera assemble --agent-role ROLE" with the same flags
prefixed "agent-"; budget, provider, log and JSON flags are assemble's.`,
		Args:               cobra.ArbitraryArgs,
		RunE:               unknownSubcommand,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
	}
	for _, r := range agent.Roles() {
		cmd.AddCommand(a.agentRoleCmd(r))
	}
	cmd.AddCommand(a.agentCheckCmd())
	return cmd
}

// unknownSubcommand is the action of a command that only holds
// subcommands: its help, or, when a word follows it, an unknown command
// with suggestions (as the root command reports one), also when the
// mistyped subcommand's flags follow it.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cmd.Help()
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return errors.New(msg)
}

// roleShort is each role command's one-line help.
func roleShort(r agent.Role) string {
	switch r {
	case agent.Planner:
		return "Build the planner's prompt: decompose a goal into 3 to 15 subtasks"
	case agent.Executor:
		return "Build the executor's prompt: carry out one subtask with tools"
	case agent.Replanner:
		return "Build the replanner's prompt: revise the plan, keeping completed subtasks"
	case agent.Extractor:
		return "Build the extractor's prompt: turn a finished subtask into memory entries"
	}
	return "Build the verifier's prompt: check a finished subtask against its acceptance criteria"
}

// agentRoleCmd is "tessera agent VERB": "tessera assemble agent --role
// ROLE" with the flags of the role's inputs only (named as under
// "assemble agent", without the "agent-" prefix) and the shared flags, so
// text, --provider bodies, --json records, budgets and logs are
// assemble's.
func (a *app) agentRoleCmd(r agent.Role) *cobra.Command {
	var o assembleOpts
	p := a.engine.Registry.Lookup(agent.Name)
	inputs := map[string]preset.Input{}
	for _, in := range p.Inputs() {
		inputs[in.Name] = in
	}
	reads, needs := agent.RoleInputs(r)
	reads = append(reads, agent.InputTemplates)
	var required []string
	for _, n := range needs {
		required = append(required, "--"+short(n)+" "+strings.ToUpper(strings.ReplaceAll(short(n), "-", "_")))
	}
	cmd := &cobra.Command{
		Use:   r.Verb() + " " + strings.Join(required, " ") + " [flags]",
		Short: roleShort(r),
		Long: roleShort(r) + `, and print it (with
--provider, a request body for that API; with --json, the audit record).
The same as "tessera assemble agent --role ` + string(r) + `" with these
flags.`,
		Args: cobra.NoArgs,
	}
	f := cmd.Flags()
	for _, name := range reads {
		in := inputs[name]
		usage := in.Usage
		if _, after, ok := strings.Cut(usage, ": "); ok {
			usage = after
		}
		switch in.Kind {
		case preset.Int:
			f.Int(short(name), 0, usage)
		case preset.Bool:
			f.Bool(short(name), false, usage)
		default:
			f.String(short(name), "", usage)
		}
	}
	sharedAssembleFlags(f, &o)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		args := preset.Args{agent.InputRole: string(r)}
		var files []string
		for _, name := range reads {
			fl := f.Lookup(short(name))
			if !fl.Changed {
				continue
			}
			args[name] = fl.Value.String()
			if inputs[name].Kind == preset.File {
				files = append(files, fl.Value.String())
			}
		}
		if err := a.assembleWith(cmd, &o, p, args, files); err != nil {
			return inputFlags(err, cmd.CommandPath(), p)
		}
		return nil
	}
	a.completeFlags(cmd)
	return cmd
}

// short is an agent input's name without its "agent-" prefix.
func short(name string) string { return strings.TrimPrefix(name, "agent-") }
