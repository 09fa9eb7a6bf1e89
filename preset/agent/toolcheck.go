package agent

import (
	"strconv"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/yamldoc"
)

// checkTool checks tool i of the tools file path (its list at top): a
// name every provider accepts (schema.CheckToolName) and parameters
// that are a valid JSON Schema (schema.CheckMeta), each problem at its
// line and column.
func checkTool(path string, top *yaml.Node, i int, name string, params []byte) diag.List {
	var errs diag.List
	at := "/" + strconv.Itoa(i)
	what := label("tool", "["+strconv.Itoa(i)+"]")
	if name != "" {
		if e := yamldoc.ToolNameError(path, top, at+"/name", name, what); e != nil {
			errs = append(errs, e)
		} else {
			what = "tool " + strconv.Quote(name)
		}
	}
	if len(params) > 0 {
		errs = append(errs, yamldoc.SchemaErrors(path, top, at+"/parameters", params, what+": parameters")...)
	}
	return errs
}
