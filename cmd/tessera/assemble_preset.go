package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/preset"
)

// presetCmd returns "assemble <preset>": the preset's own inputs as flags
// without the preset's prefix ("tessera assemble typed --params FILE"
// for --typed-params), its selecting inputs required, and the shared
// flags. It assembles as "assemble" with the long flags does, byte for
// byte.
func (a *app) presetCmd(p preset.Preset) *cobra.Command {
	var o assembleOpts
	name := p.Name()
	var sel []string
	for _, in := range p.Inputs() {
		if in.Selects {
			sel = append(sel, "--"+shortInput(name, in.Name)+" "+strings.ToUpper(strings.ReplaceAll(shortInput(name, in.Name), "-", "_")))
		}
	}
	cmd := &cobra.Command{
		Use:   name + " " + strings.Join(sel, " ") + " [flags]",
		Short: presetShort(p),
		Long: presetShort(p) + `, and print it, as "tessera assemble" does with
the same inputs under their long names. The ` + name + ` preset's own inputs
are the flags below without the preset's prefix; the shared flags are the
same as assemble's.`,
		Args: cobra.NoArgs,
	}
	f := cmd.Flags()
	for _, in := range p.Inputs() {
		short := shortInput(name, in.Name)
		switch in.Kind {
		case preset.Int:
			f.Int(short, 0, in.Usage)
		case preset.Bool:
			f.Bool(short, false, in.Usage)
		default:
			f.String(short, "", in.Usage)
		}
	}
	sharedAssembleFlags(f, &o)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		args := preset.Args{}
		var files, missing []string
		for _, in := range p.Inputs() {
			fl := f.Lookup(shortInput(name, in.Name))
			if !fl.Changed {
				if in.Selects {
					missing = append(missing, "--"+fl.Name)
				}
				continue
			}
			args[in.Name] = fl.Value.String()
			if in.Kind == preset.File {
				files = append(files, fl.Value.String())
			}
		}
		if len(missing) > 0 {
			return usageHint{fmt.Errorf("assemble %s needs %s", name, strings.Join(missing, " and ")), cmd.CommandPath()}
		}
		if err := a.assembleWith(cmd, &o, p, args, files); err != nil {
			return inputFlags(err, cmd.CommandPath(), p)
		}
		return nil
	}
	a.completeFlags(cmd)
	return cmd
}

// shortInput is the name of input in's flag under "assemble <preset>":
// the input's name without the preset's name and a '-' before it.
func shortInput(presetName, in string) string {
	if short, ok := strings.CutPrefix(in, presetName+"-"); ok && short != "" {
		return short
	}
	return in
}

// presetShort is the one-line help of "assemble <preset>": what the
// preset assembles, when it says (preset.Describer).
func presetShort(p preset.Preset) string {
	if d, ok := p.(preset.Describer); ok {
		return "Assemble " + d.Summary()
	}
	return "Assemble a prompt with the " + p.Name() + " preset"
}
