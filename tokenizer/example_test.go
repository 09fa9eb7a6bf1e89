package tokenizer_test

import (
	"fmt"

	"github.com/tessera-dev/tessera/tokenizer"
)

func ExampleForModel() {
	for _, model := range []string{"gpt-4o", "gpt-4", "claude-sonnet-4-6"} {
		c, err := tokenizer.ForModel(model)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-18s %-19s exact=%-5v %d\n", model, c.Name(), c.Exact(), c.Count("Fit the prompt into the budget."))
	}
	// Output:
	// gpt-4o             o200k_base          exact=true  7
	// gpt-4              cl100k_base         exact=true  7
	// claude-sonnet-4-6  estimate/anthropic  exact=false 9
}

func ExampleEncoding_Encode() {
	enc := tokenizer.Cl100kBase()
	fmt.Println(enc.Encode("hello world"))
	fmt.Println(enc.Count("a\n \nb"))
	// Output:
	// [15339 1917]
	// 3
}

func ExampleEncoding_Truncate() {
	enc := tokenizer.O200kBase()
	cut, n := enc.Truncate("The quick brown fox jumps over the lazy dog.", 4)
	fmt.Printf("%q %d\n", cut, n)
	// Output:
	// "The quick brown fox" 4
}
