package catalog

import (
	"context"
	"errors"
	"strings"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/include"
	"github.com/tessera-dev/tessera/prompt"
)

// Assembly is an assembled workflow node: the prompt and what it was
// assembled from.
type Assembly struct {
	// WorkflowID and NodeID name the node; both are empty for an assembly
	// made with AssembleTask.
	WorkflowID string
	NodeID     string
	// Path, Line and Col locate the node in its workflow file (empty for
	// an assembly made with AssembleTask), for problems found later, such
	// as a prompt that does not fit its budget.
	Path      string
	Line, Col int
	// TaskRef names the template.
	TaskRef string
	prompt.Prompt
}

// IncludesResolved returns the token-to-path map the assembly used: the
// node's includes map, less nothing and plus nothing, as read from its
// sources.
func (a *Assembly) IncludesResolved() map[string]string {
	m := map[string]string{}
	for _, s := range a.Sources {
		if s.Kind == prompt.SourceToken {
			m[s.Token] = s.Path
		}
	}
	return m
}

// Assemble assembles the node nodeID of workflow workflowID. Problems with
// the catalog come back as a diag.List, every one of them, each naming
// its file and line.
func (c *Catalog) Assemble(ctx context.Context, workflowID, nodeID string) (*Assembly, error) {
	wf, err := c.Workflow(ctx, workflowID)
	if err != nil {
		return nil, err
	}
	n := wf.Node(nodeID)
	if n == nil {
		return nil, diag.Errorf(wf.Path, 0, "no node %q in workflow %s (nodes: %s)", nodeID, workflowID, nodeIDs(wf))
	}
	if n.TaskRef == "" {
		return nil, diag.ErrorfAt(wf.Path, n.Line, n.Col, "node %q has no task_ref, so there is no prompt to assemble", nodeID)
	}
	a, err := c.assemble(ctx, n.TaskRef, n.Includes, wf.Path, n.Line, n.Col)
	if err != nil {
		return nil, err
	}
	a.WorkflowID, a.NodeID = workflowID, nodeID
	a.Path, a.Line, a.Col = wf.Path, n.Line, n.Col
	return a, nil
}

// AssembleTask assembles the template taskRef with the given includes map
// (token name to path relative to the root), as a node with those fields
// would be. Replay uses it to rebuild a logged prompt from its record.
func (c *Catalog) AssembleTask(ctx context.Context, taskRef string, includes map[string]string) (*Assembly, error) {
	return c.assemble(ctx, taskRef, includes, "", 0, 0)
}

func (c *Catalog) assemble(ctx context.Context, taskRef string, includes map[string]string, mapFile string, mapLine, mapCol int) (*Assembly, error) {
	t, err := c.template(ctx, taskRef)
	if err != nil {
		var d *diag.Error
		if mapFile == "" || errors.As(err, &d) || ctx.Err() != nil {
			return nil, err
		}
		// A task_ref that names no template: report it at the node.
		e := diag.Wrap(mapFile, mapLine, err, "%v", err)
		e.Col = mapCol
		return nil, e
	}
	p, err := include.Resolve(ctx, include.Input{
		Template:     t.tmpl,
		TemplateHash: t.hash,
		Includes:     includes,
		IncludesFile: mapFile,
		IncludesLine: mapLine,
		IncludesCol:  mapCol,
		MaxBytes:     c.cfg.Limits.MaxOutputBytes,
	}, c)
	if err != nil {
		return nil, err
	}
	return &Assembly{TaskRef: taskRef, Prompt: *p}, nil
}

func nodeIDs(wf *Workflow) string {
	ids := make([]string, len(wf.Nodes))
	for i, n := range wf.Nodes {
		ids[i] = n.ID
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}
