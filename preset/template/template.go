// Package template is the template preset (design 001): a workflow node's
// task template with its $$TOKEN lines resolved from the node's includes
// map and its $$include directives from the catalog, in one pass. The text
// is one undivided, trusted, never-trimmed section; the catalog resolves
// it (see catalog.Catalog.Assemble), and this package lays it out for the
// engine.
package template

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

// Name is the preset's name in records.
const Name = "template"

// SectionKey is the key of the one section a template prompt is: trusted
// instructions, never trimmed.
const SectionKey = "template"

// Preset is the template preset. The zero value is ready to use.
type Preset struct{}

// New returns the template preset.
func New() *Preset { return &Preset{} }

// Name implements preset.Preset.
func (*Preset) Name() string { return Name }

// Inputs implements preset.Preset: the workflow and the node.
func (*Preset) Inputs() []preset.Input {
	return []preset.Input{
		{Name: "workflow", Usage: "workflow id: the workflow file's name without .json", Selects: true},
		{Name: "node", Usage: "node_id of the node to assemble", Selects: true},
	}
}

// Style is the template preset's style: the text as it is, one part.
var style = render.Style{Whole: true}

// Load implements preset.Preset: it assembles the node args["workflow"],
// args["node"] of env's catalog.
func (p *Preset) Load(ctx context.Context, env *preset.Env, args preset.Args) (*preset.Layout, error) {
	if env == nil || env.Catalog == nil {
		return nil, preset.ErrNoCatalog
	}
	wf, node := args["workflow"], args["node"]
	a, err := env.Catalog.Assemble(ctx, wf, node)
	if err != nil {
		return nil, err
	}
	return layout(a, wf+"/"+node), nil
}

// Rebuild implements preset.Preset: it assembles the record's task_ref
// with its includes_resolved, from the catalog's files as they are now.
func (p *Preset) Rebuild(ctx context.Context, env *preset.Env, rec *audit.Record) (*preset.Layout, error) {
	if env == nil || env.Catalog == nil {
		return nil, fmt.Errorf("a %q record is rebuilt from its catalog, and there is no %s here: pass --root DIR", Name, catalog.ConfigFile)
	}
	var in inputs
	if rec == nil || json.Unmarshal(rec.Inputs, &in) != nil || in.TaskRef == "" {
		return nil, fmt.Errorf("record has no task_ref to rebuild from")
	}
	a, err := env.Catalog.AssembleTask(ctx, in.TaskRef, in.IncludesResolved)
	if err != nil {
		return nil, err
	}
	a.WorkflowID, a.NodeID, _ = strings.Cut(rec.Name, "/")
	return layout(a, in.TaskRef), nil
}

// inputs are what the preset keeps in a record's inputs: the template
// and the file each include token named (design 001's task_ref and
// includes_resolved).
type inputs struct {
	TaskRef          string            `json:"task_ref"`
	IncludesResolved map[string]string `json:"includes_resolved,omitempty"`
}

// Units implements preset.Preset: every workflow node with a task_ref, in
// workflow id order and then file order. Problems with workflow files are
// returned together with the units of the others.
func (p *Preset) Units(ctx context.Context, env *preset.Env) ([]preset.Unit, error) {
	if env == nil || env.Catalog == nil {
		return nil, nil
	}
	c := env.Catalog
	if c == nil {
		return nil, nil
	}
	ids, err := c.WorkflowIDs(ctx)
	if err != nil {
		return nil, err
	}
	var (
		units []preset.Unit
		errs  []error
	)
	for _, id := range ids {
		wf, err := c.Workflow(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			errs = append(errs, err)
			continue
		}
		for _, n := range wf.Nodes {
			if n.TaskRef == "" {
				continue
			}
			id, node := id, n.ID
			units = append(units, preset.Unit{
				Load: func(ctx context.Context) (*preset.Layout, error) {
					return p.Load(ctx, env, preset.Args{"workflow": id, "node": node})
				},
				Out:     path.Join(id, node+".txt"),
				Entry:   catalog.ManifestEntry{Unit: []catalog.Member{{Key: "workflow", Value: id}, {Key: "node", Value: node}, {Key: "task_ref", Value: n.TaskRef}}},
				At:      preset.Location{Path: wf.Path, Line: n.Line, Col: n.Col},
				Subject: fmt.Sprintf("node %q", node),
			})
		}
	}
	return units, joinDiag(errs)
}

func joinDiag(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return preset.JoinErrors(errs)
}

func layout(a *catalog.Assembly, label string) *preset.Layout {
	return &preset.Layout{
		Sections: []prompt.Section{{Key: SectionKey, Body: a.Text, Trim: prompt.TrimNever}},
		Style:    style,
		Sources:  a.Sources,
		Label:    label,
		At:       preset.Location{Path: a.Path, Line: a.Line, Col: a.Col},
		Record: func(rec *audit.Record) error {
			if a.WorkflowID != "" && a.NodeID != "" {
				rec.Name = a.WorkflowID + "/" + a.NodeID
			}
			var err error
			rec.Inputs, err = json.Marshal(inputs{TaskRef: a.TaskRef, IncludesResolved: a.IncludesResolved()})
			return err
		},
	}
}

// Summary implements preset.Describer.
func (*Preset) Summary() string {
	return "a workflow node's prompt: its task template with $$TOKEN lines and $$include directives resolved (design 001)"
}

// UnitsSummary implements preset.Describer.
func (*Preset) UnitsSummary() string {
	return "every workflow node with a task_ref, to <workflow>/<node_id>.txt"
}
