package output_test

import (
	"fmt"

	"github.com/tessera-dev/tessera/output"
)

// Check a model's reply against a schema and decode it into a Go type:
// the JSON is found in the fenced block, prose around it does no harm.
func ExampleDecode() {
	schema, err := output.Compile("verdict", []byte(`{"type":"object","properties":{"passed":{"type":"boolean"},"reason":{"type":"string","minLength":1}},"required":["passed","reason"],"additionalProperties":false}`))
	if err != nil {
		panic(err)
	}
	type verdict struct {
		Passed bool   `json:"passed"`
		Reason string `json:"reason"`
	}
	reply := "I checked the criteria.\n\n```json\n{\"passed\": false, \"reason\": \"TestTotalEmpty still fails\"}\n```\n"
	v, err := output.Decode[verdict]("verdict", []byte(reply), schema)
	fmt.Printf("%+v %v\n", v, err)

	_, err = output.Decode[verdict]("verdict", []byte(`{"passed": "no"}`), schema)
	fmt.Println(err)
	// Output:
	// {Passed:false Reason:TestTotalEmpty still fails} <nil>
	// verdict:1:1: /reason: missing: the schema requires it; /passed: got string, want boolean
}
