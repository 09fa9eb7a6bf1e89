package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// The examples of each command's --help, by command path. Every line
// that starts with "tessera " runs as written from the repository root
// (TestHelpExamplesRun runs them), so they cannot rot; paths under /tmp
// are the places an example writes to.
var examples = map[string]string{
	"tessera": `  tessera assemble --root examples --workflow pm_discovery.v1 --node pgc
  tessera compile --root examples --check
  tessera tokens --model gpt-4o examples/seed/prompts/shared/review_rules.txt`,
	"tessera assemble": `  # a workflow node's prompt, exactly as it is sent
  tessera assemble --root examples --workflow pm_discovery.v1 --node pgc

  # its audit record, appended to a log for replay
  tessera assemble --root examples --workflow pm_discovery.v1 --node pgc --json --log /tmp/assemblies.jsonl --correlation-id run-1

  # fitted into a token budget, with a table of what was cut
  tessera assemble --root examples --workflow pm_discovery.v1 --node pgc --budget 1200 --reserve 200 --explain

  # a canonical spec as an Anthropic request body
  tessera assemble --spec examples/canonical/support-ticket.yaml --provider anthropic --model claude-sonnet-4-6

  # an agent step's prompt (see "tessera agent")
  tessera assemble --agent-role planner --agent-goal "Add type hints" --agent-workspace examples/agent/workspace

  # a typed template with its parameters' values, one summarized section in full
  tessera assemble --typed examples/typed/code-review.yaml --typed-params examples/typed/params/code-review.yaml --typed-expand rules

  # a trust-layered agent prompt: tools, skills and memories selected for the task
  tessera assemble --root examples --layered-task "Fix the failing invoice tests" --layered-context examples/layered/context.yaml`,
	"tessera assemble template": `  # a workflow node's prompt (the same bytes as assemble --workflow ... --node ...)
  tessera assemble template --root examples --workflow pm_discovery.v1 --node pgc`,
	"tessera assemble canonical": `  # a canonical spec, fitted into 600 tokens
  tessera assemble canonical --spec examples/canonical/support-ticket.yaml --budget 600`,
	"tessera assemble agent": `  # a planner's prompt (--role for --agent-role, --goal for --agent-goal)
  tessera assemble agent --role planner --goal "Add type hints" --workspace examples/agent/workspace`,
	"tessera assemble typed": `  # a typed template with its parameters' values (--params for --typed-params)
  tessera assemble typed --typed examples/typed/code-review.yaml --params examples/typed/params/code-review.yaml`,
	"tessera assemble layered": `  # a trust-layered prompt (--task for --layered-task, --context for --layered-context)
  tessera assemble layered --root examples --task "Fix the failing invoice tests" --context examples/layered/context.yaml`,
	"tessera compile": `  # what CI runs: build every prompt, write nothing, list every problem
  tessera compile --root examples --check

  # the same as one JSON object: each prompt's path, hash and bytes, or the problems
  tessera compile --root examples --check --json

  # write the prompts and manifest.json
  tessera compile --root examples --out /tmp/prompts`,
	"tessera replay": `  tessera assemble --root examples --workflow pm_discovery.v1 --node pgc --log /tmp/assemblies.jsonl --correlation-id run-1
  tessera replay --root examples --log /tmp/assemblies.jsonl --id run-1
  tessera replay --root examples --log /tmp/assemblies.jsonl --id run-1 --json

  # every logged assembly of one exact prompt (its sha256, as assemble | sha256sum prints it)
  tessera replay --root examples --log /tmp/assemblies.jsonl --hash e859b9ca235c5c5157d39ad983a82495697dc71b4ad35c1c83daaf603cc33266

  # from an audit database (SQLite here; postgres://... for PostgreSQL)
  tessera assemble --root examples --workflow pm_discovery.v1 --node pgc --log /tmp/replay-db.jsonl --correlation-id run-2
  tessera log import /tmp/replay-db.jsonl --db /tmp/replay.db
  tessera replay --root examples --db /tmp/replay.db --id run-2`,
	"tessera log": `  tessera assemble --root examples --workflow pm_discovery.v1 --node pgc --log /tmp/assemblies.jsonl
  tessera log verify --log /tmp/assemblies.jsonl`,
	"tessera log import": `  # a log into a SQLite audit database (created when missing)
  tessera assemble --root examples --workflow pm_discovery.v1 --node pgc --log /tmp/import.jsonl --correlation-id run-3
  tessera log import /tmp/import.jsonl --db /tmp/import.db`,
	"tessera log export": `  # the same bytes back, written to a temporary file and renamed into place
  tessera log import engine/testdata/logs/records-2026-11.jsonl --db /tmp/export.db
  tessera log export --db /tmp/export.db --out /tmp/export.jsonl`,
	"tessera log verify": `  tessera assemble --root examples --workflow pm_discovery.v1 --node pgc --log /tmp/assemblies.jsonl
  tessera log verify --log /tmp/assemblies.jsonl

  # signed records: the key from the environment variable tessera.yaml's log_key_env names
  TESSERA_LOG_KEY=$(openssl rand -hex 32) tessera log verify --log /tmp/assemblies.jsonl --key-env TESSERA_LOG_KEY

  # an audit database's records (see "tessera log import")
  tessera log import engine/testdata/logs/records-2026-11.jsonl --db /tmp/verify.db
  tessera log verify --db /tmp/verify.db`,
	"tessera overrides": `  tessera overrides seed --dir /tmp/tessera-overrides --typed examples/typed/code-review.yaml
  tessera overrides list --dir /tmp/tessera-overrides
  tessera overrides verify --dir /tmp/tessera-overrides --typed examples/typed/code-review.yaml`,
	"tessera overrides seed": `  # the current bodies and descriptions, with their hashes, to edit
  tessera overrides seed --dir /tmp/tessera-overrides --typed examples/typed/code-review.yaml --tag latest`,
	"tessera overrides list": `  tessera overrides list --dir /tmp/tessera-overrides`,
	"tessera overrides verify": `  # exit 1, with a note for each, when an override no longer applies
  tessera overrides verify --dir /tmp/tessera-overrides --typed examples/typed/code-review.yaml`,
	"tessera parse": `  # a reply checked against the output a typed template declares
  tessera parse --typed examples/typed/code-review.yaml examples/typed/replies/review.txt

  # against a JSON Schema of one item, the reply a list of them, keys it does not declare dropped
  tessera parse --schema examples/typed/replies/comment.schema.json --array --extra ignore examples/typed/replies/review.txt

  # from standard input, repairing what models write that JSON is not
  echo "{file: 'a.go', line: 3, severity: 'nit', comment: 'x',}" | tessera parse --schema examples/typed/replies/comment.schema.json --tolerant`,
	"tessera tokens": `  tessera tokens --model gpt-4o examples/seed/prompts/shared/review_rules.txt
  tessera tokens --model claude-sonnet-4-6 examples/canonical/v2-example.yaml
  git show HEAD:README.md | tessera tokens -
  tessera tokens --model gpt-4o --json examples/seed/prompts/shared/review_rules.txt
  tessera tokens --raw --tokenizer examples/tokenizers/tiny/tokenizer.json examples/seed/prompts/shared/review_rules.txt`,
	"tessera redact": `  tessera redact --report examples/agent/output.txt
  tessera redact --json examples/redaction/incident.txt
  kubectl logs deploy/api | tessera redact --secrets-only`,
	"tessera completion": `  # bash: complete subcommands, flags, and the catalog's workflows and nodes
  source <(tessera completion bash)

  # the scripts for zsh and fish (see above for where they go)
  tessera completion zsh
  tessera completion fish`,
	"tessera version": `  tessera version
  tessera --version`,
	"tessera schema": `  tessera schema
  tessera schema tessera
  tessera schema --typed examples/typed/code-review.yaml`,
	"tessera agent": `  tessera agent plan --goal "Add type hints" --workspace examples/agent/workspace
  tessera agent check plan examples/agent/replies/plan.txt`,
	"tessera agent plan": `  tessera agent plan --goal "Add type hints to slugkit and check them with mypy" --workspace examples/agent/workspace
  tessera agent plan --goal "Add type hints" --workspace examples/agent/workspace --provider openai`,
	"tessera agent execute": `  tessera agent execute --state examples/agent/state.yaml --subtask examples/agent/subtask.yaml --memory examples/agent/memory.json --tools examples/agent/tools.json`,
	"tessera agent replan":  `  tessera agent replan --goal "Add type hints to slugkit" --state examples/agent/state.yaml --plan examples/agent/plan.json --discoveries examples/agent/discoveries.json --errors examples/agent/errors.json`,
	"tessera agent extract": `  tessera agent extract --subtask examples/agent/subtask.yaml --tool-calls examples/agent/tool-calls.json --model-output examples/agent/output.txt`,
	"tessera agent verify":  `  tessera agent verify --subtask examples/agent/subtask.yaml --tool-calls examples/agent/tool-calls.json --result examples/agent/output.txt`,
	"tessera agent check": `  tessera agent check plan examples/agent/replies/plan.txt
  tessera agent check verify examples/agent/replies/verdict.json`,
	"tessera agent check plan": `  tessera agent check plan examples/agent/replies/plan.txt
  some-model-client --prompt plan.txt | tessera agent check plan -`,
	"tessera agent check replan":  `  tessera agent check replan examples/agent/replies/replan.json --plan examples/agent/plan.json`,
	"tessera agent check extract": `  tessera agent check extract examples/agent/replies/extract.txt`,
	"tessera agent check verify":  `  tessera agent check verify examples/agent/replies/verdict.json`,
	"tessera agent check execute": `  tessera agent check execute examples/agent/replies/blocked.txt`,
	"tessera layered": `  tessera layered assemble --root examples "Fix the failing invoice tests" --context examples/layered/context.yaml --json
  tessera layered embed --root examples --out /tmp/layered-vectors.json
  tessera layered fit --root examples --selection examples/layered/tasks.jsonl --out /tmp/layered-ranker.json`,
	"tessera layered assemble": `  # the prompt, as tessera assemble --layered-task prints it
  tessera layered assemble --root examples "Fix the failing invoice tests" --context examples/layered/context.yaml

  # design 002's report: mode, tools, skills, context, metrics; the record appended to a log for replay
  tessera layered assemble --root examples "Revisar as alterações do último commit" --json --log /tmp/assemblies.jsonl`,
	"tessera layered eval": `  # the setup's injection detector on the project's held-out set: TPR and FPR by language
  tessera layered eval --root examples --injections preset/layered/testdata/eval/heldout/injections.jsonl

  # with the cases it got wrong, as JSON
  tessera layered eval --root examples --injections preset/layered/testdata/eval/heldout/injections.jsonl --json`,
	"tessera layered concepts": `  # the concepts the example catalog's tools and skills name, and the words none names
  tessera layered concepts --root examples

  # the same, as JSON
  tessera layered concepts --root examples --json`,
	"tessera layered fit": `  # the ranker fitted to the example catalog's labelled tasks, written beside it, not into the setup
  tessera layered fit --root examples --selection examples/layered/tasks.jsonl --out /tmp/layered-ranker.json

  # the folds' figures, task by task
  tessera layered fit --root examples --selection examples/layered/tasks.jsonl --out /tmp/layered-ranker.json --json`,
	"tessera layered embed": `  # the manifests' vectors, made with the embedder layered.yaml names (here the lexical one)
  tessera layered embed --root examples --out /tmp/layered-vectors.json`,
	"tessera serve": `  # read the Git history once and list what would be served, with each prompt's version
  tessera serve --root examples --check

  # serve on loopback, with a first admin key pair (runs until SIGTERM or Ctrl-C)
  TESSERA_PUBLIC_KEY=pk-admin TESSERA_SECRET_KEY=sk-admin-example-secret tessera serve --root examples --addr 127.0.0.1:3000

  # fetch a prompt as Langfuse's clients do: its name URL-encoded, a label or a version
  curl -u pk-admin:sk-admin-example-secret 'http://127.0.0.1:3000/api/public/v2/prompts/pm_discovery.v1%2Fpgc?label=latest'`,
}

// exitCodes is the exit code section of every command's help; a command
// may say more about its own 1 with the "exit1" annotation, which its
// subcommands inherit.
const exitCodes = `Exit codes:
  0  success
  1  %s
  2  a usage error: a missing, unknown or conflicting flag or argument`

// exit1 is what exit code 1 means for commands that do not say.
const exit1 = "a problem in the catalog or the input: every problem is listed on\n     standard error as path:line:col: message"

// finishHelp gives every command under root its examples and its exit
// codes.
func finishHelp(root *cobra.Command) {
	var walk func(c *cobra.Command, inherited string)
	walk = func(c *cobra.Command, inherited string) {
		c.Example = examples[c.CommandPath()]
		one := c.Annotations["exit1"]
		if one == "" {
			one = inherited
		}
		long := c.Long
		if long == "" {
			long = c.Short + "."
		}
		c.Long = strings.TrimRight(long, "\n") + "\n\n" + strings.Replace(exitCodes, "%s", one, 1)
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			walk(sub, one)
		}
	}
	walk(root, exit1)
}
