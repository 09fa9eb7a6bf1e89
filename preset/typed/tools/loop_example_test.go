package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/tessera-dev/tessera/preset/typed"
	"github.com/tessera-dev/tessera/preset/typed/tools"
	"github.com/tessera-dev/tessera/render"
)

const loopTemplate = `
ns: orders
key: refund
params:
  - {name: order, type: string}
sections:
  - key: task
    title: Task
    template: Decide whether order $order gets a refund.
  - key: lookup
    title: Looking orders up
    visibility: summary
    summary: Order lookups are available on request.
    template: Look the order up before you decide.
    tools:
      - name: find_order
        description: Find an order by its id.
        parameters: {type: object, properties: {id: {type: string}}, required: [id]}
        result: {type: object, properties: {total: {type: number}, days: {type: integer}}, required: [total, days]}
output:
  schema:
    type: object
    properties:
      refund: {type: boolean}
      reason: {type: string}
    required: [refund, reason]
`

// The whole loop: lay the prompt out, catch the model's open_sections
// call and lay it out again with the section open, answer its tool call
// with a bound Go function, and parse its final reply. The model's turns
// are written in; a real loop sends each prompt and reads each reply.
func ExampleScope_Dispatch() {
	tpl, err := typed.Parse("refund.yaml", []byte(loopTemplate))
	if err != nil {
		log.Fatal(err)
	}
	vals, err := tpl.Bind(struct{ Order string }{"A-17"})
	if err != nil {
		log.Fatal(err)
	}
	opts := typed.Options{}
	ctx := context.Background()

	// Turn 1: the section is summarized; the model asks to open it.
	rt, err := tools.New(tpl, vals, opts)
	if err != nil {
		log.Fatal(err)
	}
	scope, err := rt.Open(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer scope.Close()
	_, err = scope.Dispatch(ctx, tools.ToolCall{ID: "c1", Name: typed.OpenSectionsTool, Arguments: json.RawMessage(`{"section_keys": ["lookup"], "reason": "I need the order's total"}`)})
	var expand *typed.ExpansionRequired
	if !errors.As(err, &expand) {
		log.Fatal(err)
	}
	fmt.Println("open:", expand.Paths, "because", expand.Reason)

	// Turn 2: laid out again with the section open, its tool comes too.
	opts = expand.Apply(opts)
	l, err := tpl.Layout(vals, opts)
	if err != nil {
		log.Fatal(err)
	}
	text := render.Render(l.Sections, l.Style).Text
	fmt.Println(strings.Contains(text, "Look the order up"), l.Sections[1].Tools[0].Name)

	// The model calls the tool; a Go function answers it.
	rt, _ = tools.New(tpl, vals, opts)
	type findArgs struct {
		ID string `json:"id"`
	}
	type order struct {
		Total float64 `json:"total"`
		Days  int     `json:"days"`
	}
	if err := tools.Bind(rt, "find_order", func(_ context.Context, _ *tools.Scope, a findArgs) (order, error) {
		return order{Total: 42.5, Days: 3}, nil
	}); err != nil {
		log.Fatal(err)
	}
	scope2, _ := rt.Open(ctx)
	defer scope2.Close()
	res, err := scope2.Dispatch(ctx, tools.ToolCall{ID: "c2", Name: "find_order", Arguments: json.RawMessage(`{"id": "A-17"}`)})
	if err != nil {
		log.Fatal(err)
	}
	msg, _ := res.Message("openai")
	fmt.Println(string(msg))

	// Turn 3: the final reply, parsed against the declared output.
	value, err := tpl.ParseReply([]byte("Checked.\n```json\n{\"reason\": \"within 30 days\", \"refund\": true}\n```"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(value))
	// Output:
	// open: [lookup] because I need the order's total
	// true find_order
	// {"role":"tool","tool_call_id":"c2","content":"{\"total\":42.5,\"days\":3}"}
	// {"refund":true,"reason":"within 30 days"}
}
