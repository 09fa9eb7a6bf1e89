package layered

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/embed"
)

// VectorsFile is the name, in a setup directory, of the vectors that
// "tessera layered embed" makes in advance.
const VectorsFile = "vectors.json"

// Vectors are a setup's manifest vectors made in advance (vectors.json):
// the tools', the skills' and the injection examples', all from one
// embedder, each with the SHA-256 of the text it was made from, so a
// vector whose description changed since is known to be stale.
type Vectors struct {
	// Embedder names the vector space (embed.Embedder.Name).
	Embedder string `json:"embedder"`
	// Dimension is every vector's length.
	Dimension int `json:"dimension"`
	// Tools and Skills are by capability name; Injection by text only.
	Tools     []NamedVector `json:"tools"`
	Skills    []NamedVector `json:"skills"`
	Injection []NamedVector `json:"injection"`

	path string
}

// NamedVector is one vector of a Vectors file.
type NamedVector struct {
	// Name is the tool's or skill's; empty for an injection example.
	Name string `json:"name,omitempty"`
	// SHA256 is the hex SHA-256 of the text embedded.
	SHA256    string       `json:"sha256"`
	Embedding embed.Vector `json:"embedding"`
}

// textHash is the hex SHA-256 of a text, as Vectors records it.
func textHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// ParseVectors reads a vectors file (path names it in diagnostics). A
// problem is reported at its line and column, or by its key.
func ParseVectors(path string, data []byte) (*Vectors, error) {
	v, ok := parseVectorsFast(data)
	if ok {
		return checkVectors(path, v)
	}
	// The standard decoder again, for the place of the problem.
	v = &Vectors{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line, col := diag.Position(data, max(0, int(se.Offset)-1))
			return nil, diag.ErrorfAt(path, line, col, "%v: the file is not JSON; run tessera layered embed to write it again", se)
		case errors.As(err, &te):
			line, col := diag.Position(data, int(te.Offset))
			return nil, diag.ErrorfAt(path, line, col, "%s: want %s, not a JSON %s; run tessera layered embed to write it again", te.Field, te.Type, te.Value)
		}
		return nil, diag.Errorf(path, 0, "%v; run tessera layered embed to write it again", err)
	}
	if dec.More() {
		line, col := diag.Position(data, int(dec.InputOffset()))
		return nil, diag.ErrorfAt(path, line, col, "more than one JSON value: run tessera layered embed to write it again")
	}
	return checkVectors(path, v)
}

// checkVectors checks a vectors file's values.
func checkVectors(path string, v *Vectors) (*Vectors, error) {
	v.path = path
	var errs diag.List
	bad := func(format string, args ...any) {
		errs = append(errs, diag.Errorf(path, 0, format+": run tessera layered embed to write the file again", args...))
	}
	if v.Embedder == "" {
		bad("embedder is empty")
	}
	if v.Dimension < 1 {
		bad("dimension %d: want the vectors' length, 1 or more", v.Dimension)
	}
	for _, list := range []struct {
		key   string
		named bool
		vs    []NamedVector
	}{{"tools", true, v.Tools}, {"skills", true, v.Skills}, {"injection", false, v.Injection}} {
		seen := map[string]bool{}
		for i, nv := range list.vs {
			at := fmt.Sprintf("%s[%d]", list.key, i)
			if nv.Name != "" {
				at += " (" + strconv.Quote(nv.Name) + ")"
			}
			switch {
			case list.named && nv.Name == "":
				bad("%s: no name", at)
			case list.named && seen[nv.Name]:
				bad("%s: the name is listed twice", at)
			case !list.named && nv.Name != "":
				bad("%s: an injection example has no name", at)
			}
			seen[nv.Name] = true
			if len(nv.SHA256) != 64 || !isHex(nv.SHA256) {
				bad("%s: sha256 %q: want the 64 hex digits of the text's SHA-256", at, nv.SHA256)
			}
			if v.Dimension > 0 && len(nv.Embedding) != v.Dimension {
				bad("%s: %d numbers, the file's dimension is %d", at, len(nv.Embedding), v.Dimension)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return v, nil
}

// vectorsDoc is a vectors file for parseVectorsFast: the embeddings read
// by floats, several times faster than the decoder's own numbers.
type vectorsDoc struct {
	Embedder  string     `json:"embedder"`
	Dimension int        `json:"dimension"`
	Tools     []namedDoc `json:"tools"`
	Skills    []namedDoc `json:"skills"`
	Injection []namedDoc `json:"injection"`
}

type namedDoc struct {
	Name      string `json:"name,omitempty"`
	SHA256    string `json:"sha256"`
	Embedding floats `json:"embedding"`
}

// floats is a JSON array of numbers, each read with strconv as a
// float32; anything else (a string, a nested array, a number beyond
// float32's range) fails, and ParseVectors reads the file again with
// the standard decoder to say where.
type floats []float32

// errNotFloats makes ParseVectors read the file again.
var errNotFloats = errors.New("not an array of float32 numbers")

// UnmarshalJSON implements json.Unmarshaler.
func (f *floats) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*f = nil
		return nil
	}
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return errNotFloats
	}
	b = bytes.TrimSpace(b[1 : len(b)-1])
	out := make(floats, 0, bytes.Count(b, []byte{','})+1)
	for len(b) > 0 {
		tok := b
		if i := bytes.IndexByte(b, ','); i >= 0 {
			tok, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		x, err := strconv.ParseFloat(string(bytes.TrimSpace(tok)), 32)
		if err != nil {
			return errNotFloats
		}
		out = append(out, float32(x))
	}
	*f = out
	return nil
}

// parseVectorsFast reads a vectors file whose every embedding is an
// array of float32 numbers and that holds nothing else; ok is false for
// any other file.
func parseVectorsFast(data []byte) (*Vectors, bool) {
	var d vectorsDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(&d) != nil || dec.More() {
		return nil, false
	}
	conv := func(list []namedDoc) []NamedVector {
		if list == nil {
			return nil
		}
		out := make([]NamedVector, len(list))
		for i, n := range list {
			out[i] = NamedVector{Name: n.Name, SHA256: n.SHA256, Embedding: embed.Vector(n.Embedding)}
		}
		return out
	}
	return &Vectors{Embedder: d.Embedder, Dimension: d.Dimension, Tools: conv(d.Tools), Skills: conv(d.Skills), Injection: conv(d.Injection)}, true
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Marshal returns the file's bytes: deterministic for the same vectors,
// one vector a line so that a change shows as the lines it changes.
func (v *Vectors) Marshal() []byte {
	if v == nil {
		return nil
	}
	var b bytes.Buffer
	q := func(s string) []byte { d, _ := json.Marshal(s); return d }
	b.WriteString(`{"embedder":`)
	b.Write(q(v.Embedder))
	b.WriteString(`,"dimension":` + strconv.Itoa(v.Dimension))
	for _, list := range []struct {
		key string
		vs  []NamedVector
	}{{"tools", v.Tools}, {"skills", v.Skills}, {"injection", v.Injection}} {
		b.WriteString(",\n\"" + list.key + "\":[")
		for i, nv := range list.vs {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n{")
			if nv.Name != "" {
				b.WriteString(`"name":`)
				b.Write(q(nv.Name))
				b.WriteByte(',')
			}
			b.WriteString(`"sha256":`)
			b.Write(q(nv.SHA256))
			b.WriteString(`,"embedding":[`)
			for j, x := range nv.Embedding {
				if j > 0 {
					b.WriteByte(',')
				}
				b.Write(strconv.AppendFloat(nil, float64(x), 'g', -1, 32))
			}
			b.WriteString("]}")
		}
		b.WriteString("]")
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// EmbedVectors makes the setup's vectors with e: every tool, skill and
// injection example, in calls of at most batch texts (0: 64). The
// vectors of old (the setup's current file, or nil) that e made from the
// same text are kept unless force is set. It returns the vectors and the
// number of texts embedded; progress, when not nil, is told before the
// first call and after each how many of the texts to embed are done. A
// vector that is empty, of another length than the others, or holds a
// number that is not finite is an error naming its entry.
func EmbedVectors(ctx context.Context, s *Setup, e embed.Embedder, old *Vectors, force bool, batch int, progress func(done, total int)) (*Vectors, int, error) {
	if s == nil {
		return nil, 0, errNilSetup
	}
	if e == nil {
		return nil, 0, errors.New("layered: no embedder (nil)")
	}
	if batch <= 0 {
		batch = 64
	}
	out := &Vectors{Embedder: e.Name()}
	type job struct {
		dst  *NamedVector
		text string
		what string
	}
	var jobs []job
	keep := map[string]embed.Vector{}
	if old != nil && old.Embedder == e.Name() && !force {
		for _, list := range [][]NamedVector{old.Tools, old.Skills, old.Injection} {
			for _, nv := range list {
				keep[nv.Name+"\x00"+nv.SHA256] = nv.Embedding
			}
		}
	}
	add := func(list *[]NamedVector, name, text, what string) {
		nv := NamedVector{Name: name, SHA256: textHash(text)}
		if v, ok := keep[name+"\x00"+nv.SHA256]; ok {
			nv.Embedding = v
		}
		*list = append(*list, nv)
		if nv.Embedding == nil {
			jobs = append(jobs, job{text: text, what: what})
		}
	}
	for _, c := range s.Tools {
		add(&out.Tools, c.Name, c.text(), "tools "+strconv.Quote(c.Name))
	}
	for _, c := range s.Skills {
		add(&out.Skills, c.Name, c.text(), "skills "+strconv.Quote(c.Name))
	}
	seen := map[string]bool{}
	for i, t := range s.Injection {
		if h := textHash(t); !seen[h] {
			seen[h] = true
			add(&out.Injection, "", t, fmt.Sprintf("injection example %d", i+1))
		}
	}
	// Point the jobs at their entries now that the slices are built.
	j := 0
	for _, list := range []*[]NamedVector{&out.Tools, &out.Skills, &out.Injection} {
		for i := range *list {
			if (*list)[i].Embedding == nil {
				jobs[j].dst = &(*list)[i]
				j++
			}
		}
	}
	if progress != nil {
		progress(0, len(jobs))
	}
	for from := 0; from < len(jobs); from += batch {
		part := jobs[from:min(from+batch, len(jobs))]
		texts := make([]string, len(part))
		for i, jb := range part {
			texts[i] = jb.text
		}
		got, err := e.Embed(ctx, texts)
		if err != nil {
			return nil, 0, fmt.Errorf("embedding %s and %d more: %w", part[0].what, len(part)-1, err)
		}
		if len(got) != len(texts) {
			return nil, 0, fmt.Errorf("embedder %s returned %d vectors for %d texts", e.Name(), len(got), len(texts))
		}
		for i, jb := range part {
			jb.dst.Embedding = got[i]
		}
		if progress != nil {
			progress(from+len(part), len(jobs))
		}
	}
	for _, list := range []struct {
		key string
		vs  []NamedVector
	}{{"tools", out.Tools}, {"skills", out.Skills}, {"injection", out.Injection}} {
		for i, nv := range list.vs {
			what := fmt.Sprintf("%s[%d]", list.key, i)
			if nv.Name != "" {
				what = list.key + " " + strconv.Quote(nv.Name)
			}
			if out.Dimension == 0 {
				out.Dimension = len(nv.Embedding)
			}
			if len(nv.Embedding) == 0 || len(nv.Embedding) != out.Dimension {
				return nil, 0, fmt.Errorf("embedder %s gave %s a vector of %d numbers, the others %d", e.Name(), what, len(nv.Embedding), out.Dimension)
			}
			if slices.ContainsFunc(nv.Embedding, func(x float32) bool { return math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) }) {
				return nil, 0, fmt.Errorf("embedder %s gave %s a vector with a number that is not finite", e.Name(), what)
			}
		}
	}
	if out.Dimension == 0 {
		if h, ok := e.(embed.Hash); ok {
			out.Dimension = len(h.Vector(""))
		} else {
			out.Dimension = 1 // nothing to embed: no vector to measure
		}
	}
	return out, len(jobs), nil
}

// readVectors reads the setup's vectors.json, if it has one.
func readVectors(rd ReadFunc) (*Vectors, error) {
	p, data, err := rd(VectorsFile)
	if err != nil {
		if isNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	return ParseVectors(p, data)
}

// checkInline checks the vectors layered.yaml's tools and skills carry
// that can be checked before any embedding: with the lexical embedder,
// one it made (its embedder left out or named) must be of its length.
func checkInline(s *Setup) diag.List {
	if s.Embedder.Type == embedderOpenAI {
		return nil
	}
	h := embed.Hash{Dim: s.Embedder.Dimensions}
	dim := len(h.Vector(""))
	var errs diag.List
	for _, list := range []struct {
		key  string
		caps []Capability
	}{{"tools", s.Tools}, {"skills", s.Skills}} {
		for _, c := range list.caps {
			if len(c.Embedding) > 0 && (c.Embedder == "" || c.Embedder == h.Name()) && len(c.Embedding) != dim {
				errs = append(errs, diag.ErrorfAt(s.path, c.line, c.col, "%s %q: its embedding has %d numbers, and the embedder %s makes %d: remove it (tessera layered embed makes the vectors), or name the embedder it came from (embedder:)", list.key, c.Name, len(c.Embedding), h.Name(), dim))
			}
		}
	}
	return errs
}
