package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/tessera-dev/tessera/preset"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/internal/suggest"
)

// usageHint is a usage error (exit 2) that names the help of the command
// it happened in, rather than the root's.
type usageHint struct {
	err  error
	help string // the command path, such as "tessera assemble"
}

func (u usageHint) Error() string { return u.err.Error() }
func (u usageHint) Unwrap() error { return u.err }

// flagError is every command's flag error function. An unknown flag gets
// the command's nearest flag when one is close, and a value that does not
// parse says which flag, what it got and the form expected; every flag
// error names the command's own help.
func flagError(cmd *cobra.Command, err error) error {
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) {
		if near := nearestFlag(cmd, unknown.GetSpecifiedName()); near != "" && unknown.GetSpecifiedShortnames() == "" {
			err = fmt.Errorf("%w: did you mean --%s?", err, near)
		}
		return usageHint{err, cmd.CommandPath()}
	}
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		f := bad.GetFlag()
		want := wantValue(f.Value.Type())
		if errors.Is(err, strconv.ErrRange) {
			want = "out of range: " + want
		}
		return usageHint{fmt.Errorf("--%s %q: %s", f.Name, bad.GetValue(), want), cmd.CommandPath()}
	}
	return usageHint{err, cmd.CommandPath()} // a flag without its value, say
}

// wantValue says what form a flag of the pflag type typ takes.
func wantValue(typ string) string {
	switch typ {
	case "int", "int64", "int32", "uint", "uint64", "uint32":
		return "want a whole number, such as 8000"
	case "float64", "float32":
		return "want a number, such as 0.5"
	case "bool":
		return "want true or false"
	case "duration":
		return "want a duration, such as 30s or 2m"
	}
	return "want a " + typ
}

// nearestFlag returns the name of the flag of cmd (its own or inherited,
// hidden ones left out) closest to name, or "".
func nearestFlag(cmd *cobra.Command, name string) string {
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	cmd.LocalFlags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	slices.Sort(names)
	return suggest.Nearest(name, slices.Compact(names))
}

// workflowHint returns a line suggesting the workflow or node the user
// may have meant when --workflow or --node names none of the catalog's,
// or "".
func workflowHint(ctx context.Context, c *catalog.Catalog, workflow, node string) string {
	if c == nil || workflow == "" {
		return ""
	}
	ids, err := c.WorkflowIDs(ctx)
	if err != nil {
		return ""
	}
	if !slices.Contains(ids, workflow) {
		if near := suggest.Nearest(workflow, ids); near != "" {
			return fmt.Sprintf("did you mean --workflow %s?", near)
		}
		return ""
	}
	wf, err := c.Workflow(ctx, workflow)
	if err != nil || node == "" || wf.Node(node) != nil {
		return ""
	}
	var nodes []string
	for _, n := range wf.Nodes {
		nodes = append(nodes, n.ID)
	}
	if near := suggest.Nearest(node, nodes); near != "" {
		return fmt.Sprintf("did you mean --node %s?", near)
	}
	return ""
}

// missingPath rewrites, in msg, the bare "stat PATH: no such file or
// directory" of a missing file that err holds into a message that says
// which file is missing and what to do; any other msg is returned as is.
func missingPath(err error, msg string) string {
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(pe.Err, fs.ErrNotExist) {
		return msg
	}
	return strings.Replace(msg, pe.Error(), fmt.Sprintf("cannot read %s: no such file or directory: check the path", pe.Path), 1)
}

// inputFlags returns err with each of preset p's inputs named by its
// flag under "assemble <preset>" ("--goal" for --agent-goal): a usage
// message of the preset names its inputs by their long names. A name is
// replaced only where it stands whole.
func inputFlags(err error, path string, p preset.Preset) error {
	msg := err.Error()
	for _, in := range p.Inputs() {
		short := shortInput(p.Name(), in.Name)
		if short == in.Name {
			continue
		}
		long := "--" + in.Name
		var b strings.Builder
		for rest := msg; ; {
			i := strings.Index(rest, long)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			end := i + len(long)
			b.WriteString(rest[:i])
			if end < len(rest) && (rest[end] == '-' || rest[end] >= 'a' && rest[end] <= 'z') {
				b.WriteString(long) // a longer name that starts the same
			} else {
				b.WriteString("--" + short)
			}
			rest = rest[end:]
		}
		msg = b.String()
	}
	var h usageHint
	if errors.As(err, &h) {
		return usageHint{errors.New(msg), path}
	}
	var f failure
	if errors.As(err, &f) {
		return failure{errors.New(msg)}
	}
	return errors.New(msg)
}
