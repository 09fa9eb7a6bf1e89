package agent

import (
	"context"
	"fmt"

	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
	"github.com/tessera-dev/tessera/tokenizer"
)

// defaultModel is the model whose tokenizer Fit counts with when none is
// given: the command line's default, gpt-4o (o200k_base).
const defaultModel = "gpt-4o"

// Fitted is a role's prompt fitted to a token budget.
type Fitted struct {
	// Text is the prompt, as a model gets it in one message.
	Text string
	// Tokens is its size: the text counted exactly with the model's
	// tokenizer, with the framing of the provider messages it is sent as
	// (Messages), at most the budget.
	Tokens int
	// Report says what the budget trimmed or dropped, section by
	// section (memory entries, tools...).
	Report budget.Report
}

// Fit builds in's prompt from templates t (nil: the defaults) and fits it
// into tokens tokens, counted with the tokenizer of model ("" is
// gpt-4o): the least relevant memory entries go first, then the
// least relevant tools, then the rest in the order the docs' budget table
// gives; the role, task state, subtask, constraints and output format are
// never trimmed. It is what "tessera agent ROLE --budget N" prints, and
// what engine.Engine.Assemble gives for the same layout and budget, in
// one call and without a catalog or an audit log. A prompt whose
// never-trimmed sections alone take more than tokens is an error that
// names them and their sizes.
func Fit(ctx context.Context, t *Templates, in *Input, model string, tokens int) (*Fitted, error) {
	if tokens <= 0 {
		return nil, fmt.Errorf("agent: a budget of %d tokens: give the number of tokens the prompt may take, 1 or more", tokens)
	}
	if model == "" {
		model = defaultModel
	}
	counter, err := tokenizer.ForModel(model)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	l, err := Build(t, in)
	if err != nil {
		return nil, err
	}
	b := budget.Budget{Context: tokens, Overhead: tokenizer.MessageOverhead(l.Messages)}
	res, err := budget.Fit(ctx, l.Sections, func(s []prompt.Section) prompt.Prompt { return render.Render(s, l.Style) }, b, budget.Options{Counter: counter})
	if err != nil {
		return nil, fmt.Errorf("agent: the %s's prompt does not fit in %d tokens: %w", in.Role, tokens, err)
	}
	return &Fitted{Text: res.Prompt.Text, Tokens: res.Report.Final, Report: res.Report}, nil
}
