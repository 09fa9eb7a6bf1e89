package provider

import (
	"strconv"

	"github.com/tessera-dev/tessera/prompt"
)

// prefixVersion opens the stable prefix's serialisation; it changes when
// the serialisation does.
const prefixVersion = "tessera.stable-prefix.v1\n"

// prefix returns the hash and token count of the stable prefix: every
// tool, the output schema, then the stable parts of each side. The
// serialisation is a version line, then one line per item: "tool", then
// the name, the description and the compacted parameters; "output", then
// the name and the compacted schema; "system" or "user", then the key and
// the text. Each field is a netstring ("<length>:<bytes>,"), so no text
// can be mistaken for a boundary.
func (e *encoder) prefix() (string, int) {
	stableSys, stableUser := e.system[:e.sysStable], e.user[:e.userStable]
	if len(e.req.Tools) == 0 && e.req.Output == nil && len(stableSys) == 0 && len(stableUser) == 0 {
		return "", 0
	}
	n := len(prefixVersion) + len(e.schemas) + len(e.outputName) + 32
	for _, t := range e.req.Tools {
		n += len(t.Name) + len(t.Description) + 32
	}
	for _, p := range stableSys {
		n += len(p.Key) + len(p.Text) + 32
	}
	for _, p := range stableUser {
		n += len(p.Key) + len(p.Text) + 32
	}
	b := make([]byte, 0, n)
	b = append(b, prefixVersion...)
	for i, t := range e.req.Tools {
		params := e.schemas[e.params[i][0]:e.params[i][1]]
		b = append(b, "tool "...)
		b = netstring(b, t.Name)
		b = netstring(b, t.Description)
		b = netstring(b, params)
		b = append(b, '\n')
	}
	if e.req.Output != nil {
		out := e.schemas[e.output[0]:e.output[1]]
		b = append(b, "output "...)
		b = netstring(b, e.outputName)
		b = netstring(b, out)
		b = append(b, '\n')
	}
	for _, side := range []struct {
		name  string
		parts []Part
	}{{"system", stableSys}, {"user", stableUser}} {
		for _, p := range side.parts {
			b = append(b, side.name...)
			b = append(b, ' ')
			b = netstring(b, p.Key)
			b = netstring(b, p.Text)
			b = append(b, '\n')
		}
	}
	return prompt.Hash(string(b)), e.toolTokens + e.outputTokens + e.sysTokens + e.userTokens
}

func netstring[T string | []byte](b []byte, s T) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	b = append(b, s...)
	return append(b, ',')
}
