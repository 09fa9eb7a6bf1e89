package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/include"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

// Assembly is an assembled workflow node: the prompt and what it was
// assembled from.
type Assembly struct {
	// WorkflowID and NodeID name the node; both are empty for an assembly
	// made with AssembleTask.
	WorkflowID string
	NodeID     string
	// TaskRef names the template.
	TaskRef string
	prompt.Prompt
	// Budget is the budget report, once Fit has fitted the prompt.
	Budget *budget.Report
}

// TemplateSection is the key of the one section a template prompt is
// fitted as: a template is trusted instructions and is never trimmed.
const TemplateSection = "template"

// Fit checks the assembled prompt against a token budget and records the
// report in a.Budget. A template prompt is one section that is never
// trimmed, so it either fits unchanged or Fit returns a
// *budget.NeverDropError that says by how much it is over.
func (a *Assembly) Fit(ctx context.Context, b budget.Budget, opts budget.Options) error {
	secs := []prompt.Section{{Key: TemplateSection, Body: a.Text, Trim: prompt.TrimNever}}
	res, err := budget.Fit(ctx, secs, func(s []prompt.Section) prompt.Prompt { return render.Render(s, render.Plain) }, b, opts)
	if err != nil {
		return err
	}
	if res.Prompt.Text != a.Text {
		return fmt.Errorf("budget changed a template prompt, which is never trimmed")
	}
	a.Budget = &res.Report
	return nil
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
		return nil, diag.Errorf(wf.Path, n.Line, "node %q has no task_ref, so there is no prompt to assemble", nodeID)
	}
	a, err := c.assemble(ctx, n.TaskRef, n.Includes, wf.Path, n.Line)
	if err != nil {
		return nil, err
	}
	a.WorkflowID, a.NodeID = workflowID, nodeID
	return a, nil
}

// AssembleTask assembles the template taskRef with the given includes map
// (token name to path relative to the root), as a node with those fields
// would be. Replay uses it to rebuild a logged prompt from its record.
func (c *Catalog) AssembleTask(ctx context.Context, taskRef string, includes map[string]string) (*Assembly, error) {
	return c.assemble(ctx, taskRef, includes, "", 0)
}

func (c *Catalog) assemble(ctx context.Context, taskRef string, includes map[string]string, mapFile string, mapLine int) (*Assembly, error) {
	t, err := c.template(ctx, taskRef)
	if err != nil {
		var d *diag.Error
		if mapFile == "" || errors.As(err, &d) || ctx.Err() != nil {
			return nil, err
		}
		// A task_ref that names no template: report it at the node.
		return nil, diag.Wrap(mapFile, mapLine, err, "%v", err)
	}
	p, err := include.Resolve(ctx, include.Input{
		Template:     t.tmpl,
		TemplateHash: t.hash,
		Includes:     includes,
		IncludesFile: mapFile,
		IncludesLine: mapLine,
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
