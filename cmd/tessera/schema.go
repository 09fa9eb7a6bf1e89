package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/internal/suggest"
	"github.com/tessera-dev/tessera/presets"
)

// schemaCmd is "tessera schema [NAME]": the JSON Schemas of the file
// formats, for editors.
func (a *app) schemaCmd() *cobra.Command {
	var template string
	cmd := &cobra.Command{
		Use:   "schema [NAME | --typed TEMPLATE]",
		Short: "Print the JSON Schema of a file format, for editors",
		Long: `Print the JSON Schema (draft 2020-12) of a file format Tessera reads, as
the decoder that reads it generates it: the same bytes as the
repository's schemas/NAME.schema.json. Without NAME, list the formats.
With --typed TEMPLATE, print the schema of a parameters file for that
typed template, made from its declared parameters.

Save one beside your files and name it on a YAML file's first line,
"# yaml-language-server: $schema=tessera.schema.json", or in a JSON
file's "$schema" member, and an editor checks the file as you type.`,
		Args:        cobra.MaximumNArgs(1),
		Annotations: map[string]string{"exit1": "the typed template cannot be read"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if template != "" {
				if len(args) > 0 {
					return usageHint{fmt.Errorf("give a format NAME or --typed TEMPLATE, not both"), cmd.CommandPath()}
				}
				t, err := a.typedTemplate(template)
				if err != nil {
					return err
				}
				_, err = a.stdout.Write(t.ParamsJSONSchema())
				return err
			}
			all := presets.Schemas()
			if len(args) == 0 {
				w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
				for _, s := range all {
					fmt.Fprintf(w, "%s\t%s\n", s.Name, s.Describes)
				}
				return w.Flush()
			}
			name := strings.TrimSuffix(args[0], ".schema.json")
			names := make([]string, len(all))
			for i, s := range all {
				if s.Name == name {
					_, err := a.stdout.Write(s.JSON)
					return err
				}
				names[i] = s.Name
			}
			msg := fmt.Sprintf("no format %q", args[0])
			if near := suggest.Nearest(name, names); near != "" {
				msg += fmt.Sprintf(": did you mean %s?", near)
			}
			return usageHint{fmt.Errorf("%s (tessera schema lists them)", msg), cmd.CommandPath()}
		},
	}
	cmd.Flags().StringVar(&template, "typed", "", "print the parameters schema of the typed `TEMPLATE` file")
	return cmd
}
