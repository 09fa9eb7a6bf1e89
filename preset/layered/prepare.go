package layered

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/embed"
	"github.com/tessera-dev/tessera/preset/layered/untrusted"
)

// setupError is a problem with the setup's vectors rather than a failure
// of the embedder: the lexical embedder does not stand in for it.
type setupError struct{ err error }

func (e *setupError) Error() string { return e.err.Error() }
func (e *setupError) Unwrap() error { return e.err }

// isSetupError reports whether err is a problem with the setup's vectors.
func isSetupError(err error) bool {
	var se *setupError
	return errors.As(err, &se)
}

// counted counts the calls made to an embedder for one assembly.
type counted struct {
	embed.Embedder
	n int
}

func (c *counted) Embed(ctx context.Context, texts []string) ([]embed.Vector, error) {
	c.n++
	return c.Embedder.Embed(ctx, texts)
}

// embedder is the assembly's embedder: Assembler.Embedder, else the one
// the setup's layered.yaml names (made once, its key from the
// environment), else the lexical embed.Hash.
func (a *Assembler) embedder() (embed.Embedder, error) {
	if a.Embedder != nil {
		return a.Embedder, nil
	}
	if a.Setup.Embedder.Type != embedderOpenAI {
		return embed.Hash{Dim: a.Setup.Embedder.Dimensions}, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.auto == nil {
		e, err := a.Setup.NewEmbedder(nil, nil)
		if err != nil {
			return nil, err
		}
		a.auto = e
	}
	return a.auto, nil
}

// prepare returns the setup's vectors in e's space, made once per
// Assembler: a manifest vector e made (inline in layered.yaml with its
// embedder, or in vectors.json from the same text) is used as is; the
// rest are embedded in one call. When strict (e is the setup's own
// embedder, not the lexical one standing in), a vector from another
// embedder, made from another text or of another length is an error
// naming its entry, unless the Assembler re-embeds (Reembed).
func (a *Assembler) prepare(ctx context.Context, e embed.Embedder, strict bool) (*vectors, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.space == nil {
		a.space = map[string]*vectors{}
	}
	name := e.Name()
	if v, ok := a.space[name]; ok {
		return v, nil
	}
	s := a.Setup
	file := s.Vectors
	fileNamed := func(list []NamedVector) map[string]NamedVector {
		m := map[string]NamedVector{}
		for _, nv := range list {
			m[nv.Name] = nv
		}
		return m
	}
	var fileTools, fileSkills map[string]NamedVector
	fileInjection := map[string]embed.Vector{}
	if file != nil {
		fileTools, fileSkills = fileNamed(file.Tools), fileNamed(file.Skills)
		if file.Embedder == name {
			for _, nv := range file.Injection {
				fileInjection[nv.SHA256] = nv.Embedding
			}
		}
	}
	v := &vectors{tools: make([]embed.Vector, len(s.Tools)), skills: make([]embed.Vector, len(s.Skills)), injection: make([]embed.Vector, len(s.Injection))}
	var (
		problems  diag.List
		texts     []string
		dsts      []*embed.Vector
		given     []string // the entries whose vectors are used as is, for the length check
		givenVec  []embed.Vector
		givenAt   []*diag.Error
		givenText []string
		givenDst  []*embed.Vector
	)
	reembed := !strict || a.Reembed
	caps := func(kind string, list []Capability, dst []embed.Vector, fromFile map[string]NamedVector) {
		for i := range list {
			c := &list[i]
			text := c.text()
			what := kind + " " + strconv.Quote(c.Name)
			var (
				pre   embed.Vector
				from  string
				at    *diag.Error
				stale bool
			)
			switch nv, ok := fromFile[c.Name]; {
			case len(c.Embedding) > 0:
				pre, from = c.Embedding, c.Embedder
				if from == "" {
					from = name
				}
				at = diag.ErrorfAt(s.path, c.line, c.col, "")
			case ok:
				pre, from, stale = nv.Embedding, file.Embedder, nv.SHA256 != textHash(text)
				at = diag.Errorf(file.path, 0, "")
			}
			switch {
			case pre == nil:
			case from == name && !stale:
				dst[i] = pre
				given, givenVec, givenAt = append(given, what), append(givenVec, pre), append(givenAt, at)
				givenText, givenDst = append(givenText, text), append(givenDst, &dst[i])
				continue
			case reembed:
			case from != name:
				at.Msg = fmt.Sprintf("%s: its vector is from %s, and the setup embeds with %s: run tessera layered embed, or re-embed at assembly (--layered-reembed)", what, from, name)
				problems = append(problems, at)
				continue
			default:
				at.Msg = fmt.Sprintf("%s: its vector was made from another text (the name, description or keywords changed since): run tessera layered embed, or re-embed at assembly (--layered-reembed)", what)
				problems = append(problems, at)
				continue
			}
			texts, dsts = append(texts, text), append(dsts, &dst[i])
		}
	}
	caps("tools", s.Tools, v.tools, fileTools)
	caps("skills", s.Skills, v.skills, fileSkills)
	for i, t := range s.Injection {
		if x, ok := fileInjection[textHash(t)]; ok {
			v.injection[i] = x
			continue
		}
		texts, dsts = append(texts, t), append(dsts, &v.injection[i])
	}
	if len(problems) > 0 {
		problems.Sort()
		return nil, &setupError{problems}
	}
	if len(texts) > 0 {
		got, err := e.Embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		if len(got) != len(texts) {
			return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", name, len(got), len(texts))
		}
		for i, d := range dsts {
			*d = got[i]
		}
		v.dim = len(got[0])
	} else if file != nil && file.Embedder == name {
		v.dim = file.Dimension
	} else if len(givenVec) > 0 {
		v.dim = commonLength(givenVec)
	}
	var again []int
	for i, g := range givenVec {
		switch {
		case len(g) == v.dim:
		case reembed:
			again = append(again, i)
		default:
			at := givenAt[i]
			at.Msg = fmt.Sprintf("%s: its vector has %d numbers, and %s makes %d: run tessera layered embed, or remove the vector", given[i], len(g), name, v.dim)
			problems = append(problems, at)
		}
	}
	if len(problems) > 0 {
		problems.Sort()
		return nil, &setupError{problems}
	}
	if len(again) > 0 {
		texts := make([]string, len(again))
		for j, i := range again {
			texts[j] = givenText[i]
		}
		got, err := e.Embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		if len(got) != len(texts) {
			return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", name, len(got), len(texts))
		}
		for j, i := range again {
			*givenDst[i] = got[j]
		}
	}
	a.space[name] = v
	return v, nil
}

// embed makes the assembly's embedding calls: the setup's vectors the
// first time (see prepare), then the task, unless the Assembler's cache
// has it, with every entry without a usable vector, in one batch.
func (a *Assembler) embed(ctx context.Context, e embed.Embedder, strict bool, task string, c *untrusted.Context) (*vectors, embed.Vector, []embed.Vector, int, error) {
	vecs, err := a.prepare(ctx, e, strict)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	dim := vecs.dim
	entries := append(slices.Clone(c.Memories), c.Activity...)
	out := make([]embed.Vector, len(entries))
	var texts []string
	taskVec, cached := a.tasks.Get(e.Name(), task)
	if !cached {
		texts = append(texts, task)
	}
	var missing []int
	for i, en := range entries {
		if len(en.Embedding) > 0 && (dim == 0 || len(en.Embedding) == dim) && (en.Embedder == "" || en.Embedder == e.Name()) {
			out[i] = en.Embedding
			continue
		}
		missing = append(missing, i)
		texts = append(texts, en.Text)
	}
	if len(texts) > 0 {
		got, err := e.Embed(ctx, texts)
		if err != nil {
			return nil, nil, nil, 0, err
		}
		if len(got) != len(texts) {
			return nil, nil, nil, 0, fmt.Errorf("embedder %s returned %d vectors for %d texts", e.Name(), len(got), len(texts))
		}
		if !cached {
			taskVec, got = got[0], got[1:]
			if dim > 0 && len(taskVec) != dim {
				return nil, nil, nil, 0, &setupError{fmt.Errorf("embedder %s made a vector of %d numbers for the task, and the setup's vectors have %d: run tessera layered embed", e.Name(), len(taskVec), dim)}
			}
			a.tasks.Put(e.Name(), task, taskVec)
		}
		for j, i := range missing {
			out[i] = got[j]
		}
	}
	return vecs, taskVec, out, len(missing), nil
}

// inFiles reports whether err is a problem in the setup's files (its
// vectors, its embedder's configuration) rather than in the request.
func inFiles(err error) bool {
	var (
		one  *diag.Error
		list diag.List
	)
	return isSetupError(err) || errors.As(err, &one) || errors.As(err, &list)
}

// commonLength is the length most of vs have (the first one's on a tie).
func commonLength(vs []embed.Vector) int {
	count := map[int]int{}
	best := len(vs[0])
	for _, v := range vs {
		count[len(v)]++
		if count[len(v)] > count[best] {
			best = len(v)
		}
	}
	return best
}
