package canonical

import (
	"encoding/json"
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/schema"
)

// validName reports whether s has the shape of ids, output names and
// tool names, what every provider accepts as a function or schema name:
// ^[A-Za-z0-9_-]{1,64}$ (schema.ValidName). A tool name must also pass
// schema.CheckToolName.
func validName(s string) bool { return schema.ValidName(s) }

// schemaErrors checks the JSON Schema raw at the field at with
// schema.CheckMeta and returns each problem at its line and column in
// the file the spec was read from (at the field, for a spec built in Go).
func (s *Spec) schemaErrors(at fieldRef, raw json.RawMessage) []fieldError {
	probs := schema.CheckMeta(raw)
	if len(probs) == 0 {
		return nil
	}
	f := at.String()
	top := s.tree()
	ptr := "/" + at.list + "/" + strconv.Itoa(at.i) + "/" + at.name
	if at.i < 0 {
		ptr = "/" + at.list
	}
	out := make([]fieldError, 0, len(probs))
	for _, p := range probs {
		msg := fmt.Sprintf("%s: %s", f, p)
		var e *diag.Error
		if line, col, _ := yamldoc.PointerPos(top, jsonPointer(ptr)+p.Pointer); line > 0 {
			e = diag.ErrorfAt(s.source, line, col, "%s", msg)
		} else {
			e = s.errorAt(s.places(), f, "%s", msg)
		}
		out = append(out, fieldError{f, e})
	}
	return out
}

// jsonPointer turns the '.' between the keys of a path into '/', so
// "/task/2/outputFormat.jsonSchema" becomes a JSON Pointer.
func jsonPointer(p string) string {
	b := []byte(p)
	for i, c := range b {
		if c == '.' {
			b[i] = '/'
		}
	}
	return string(b)
}

// tree returns the spec's text parsed again (only a diagnostic needs
// it), or nil for a spec built in Go.
func (s *Spec) tree() *yaml.Node {
	if s.text == "" {
		return nil
	}
	top, err := specParser.ParseFileText(s.source, s.text)
	if err != nil {
		return nil // not reached: the text parsed before
	}
	return top
}
