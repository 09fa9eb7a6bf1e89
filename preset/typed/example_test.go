package typed_test

import (
	"context"
	"fmt"
	"github.com/tessera-dev/tessera/presets"
	"log"

	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset/typed"
)

// A template, parsed once, bound to Go structs, and assembled by the
// engine like any other prompt: hashed, recorded, ready to log, budget or
// encode for a provider.
func Example() {
	tpl, err := typed.Parse("triage.yaml", []byte(`
ns: support
key: triage
params:
  - {name: product, type: string}
  - {name: ticket, type: string}
  - {name: tags, type: list, default: []}
  - {name: vip, type: boolean, default: false}
sections:
  - key: role
    title: Role
    role: system
    template: You triage support tickets for $product.
  - key: vip
    title: Priority
    enabled: vip
    template: This customer has a support contract; answer within the hour.
  - key: ticket
    title: Ticket
    trust: untrusted
    template: $ticket
  - key: tags
    title: Known tags
    template: $tags
`))
	if err != nil {
		log.Fatal(err)
	}
	type Ticket struct {
		Product string
		Ticket  string
		Tags    []string
		VIP     bool `param:"vip"`
	}
	vals, err := tpl.Bind(Ticket{Product: "Acme Cloud", Ticket: "The dashboard is blank since 9:00.", Tags: []string{"outage", "ui"}, VIP: true})
	if err != nil {
		log.Fatal(err)
	}
	l, err := tpl.Layout(vals, typed.Options{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := (&engine.Engine{Registry: presets.Default()}).Assemble(context.Background(), engine.Request{Preset: typed.Name, Layout: l, NoLog: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Prompt.Text)
	fmt.Println(res.Prompt.Hash[:12])
	// Output:
	// ## 1. Role
	// You triage support tickets for Acme Cloud.
	//
	// ## 2. Priority
	// This customer has a support contract; answer within the hour.
	//
	// ## 3. Ticket
	// ~~~text
	// The dashboard is blank since 9:00.
	// ~~~
	//
	// ## 4. Known tags
	// - outage
	// - ui
	// 213977b893b7
}
