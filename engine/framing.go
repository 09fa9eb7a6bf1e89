package engine

import (
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/render"
	"github.com/tessera-dev/tessera/tokenizer"
)

// framing is budget.Framing for a provider request: it counts a fitted
// prompt as the body of its format carries it (its sections mapped onto
// the request's sides, as Result.Request maps them) and the native tools
// of the sections kept, the way that provider counts them.
type framing struct {
	format provider.Format
	model  string
	style  render.Style
}

// Count implements budget.Framing.
func (f *framing) Count(p prompt.Prompt, secs []prompt.Section, count func(string) int) (text, tools int) {
	rendered := sectionsOf(p, secs, f.style)
	req := requestOf(rendered, f.style, nil)
	// A tool defined twice differently is refused after the fit; here
	// the first definition is priced.
	req.Tools, _ = toolsOf(secs, rendered, f.style)
	s := provider.Sizer{Format: f.format, Model: f.model, Count: count}
	return s.Text(&req), s.Tools(&req)
}

// Tool implements budget.Framing.
func (f *framing) Tool(t prompt.Tool, count func(string) int) int {
	return provider.Sizer{Format: f.format, Model: f.model, Count: count}.Tool(t)
}

// deliveryModel is the model a delivery's body names.
func deliveryModel(d *Delivery) string {
	if d.Model != "" {
		return d.Model
	}
	return DefaultModel(d.Format)
}

// sent returns what a budget needs to count the request for delivery d
// of layout l as it is sent: the framing of its text and tools, and the
// tokens of its output schema.
func sent(format provider.Format, model string, l *preset.Layout, counter tokenizer.Counter) (*framing, int) {
	fr := &framing{format: format, model: model, style: l.Style}
	out := 0
	if l.Output != nil {
		out = provider.NewSizer(format, model, counter).Output(&provider.Output{Name: l.Output.Name, Schema: l.Output.Schema})
	}
	return fr, out
}

// nativeBodies returns secs with each section whose tools go to the
// provider as native definitions showing its NativeBody, so that no tool
// is sent twice; secs are not changed.
func nativeBodies(secs []prompt.Section) []prompt.Section {
	if !hasNative(secs) {
		return secs
	}
	out := make([]prompt.Section, len(secs))
	for i, s := range secs {
		if len(s.Tools) > 0 && s.NativeBody != "" {
			s.Body = s.NativeBody
		}
		s.Children = nativeBodies(s.Children)
		out[i] = s
	}
	return out
}

func hasNative(secs []prompt.Section) bool {
	for i := range secs {
		if len(secs[i].Tools) > 0 && secs[i].NativeBody != "" || hasNative(secs[i].Children) {
			return true
		}
	}
	return false
}
