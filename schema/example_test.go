package schema_test

import (
	"fmt"
	"log"

	"github.com/tessera-dev/tessera/schema"
)

// Parse keeps members in the order written, which a Go map would not.
func ExampleParse() {
	v, err := schema.Parse([]byte(`{"zeta": 1, "alpha": {"b": true, "a": null}}`))
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range v.Members {
		fmt.Println(m.Key)
	}
	fmt.Println(string(v.Append(nil)))
	// Output:
	// zeta
	// alpha
	// {"zeta":1,"alpha":{"b":true,"a":null}}
}

// CheckStrict reports every rule of OpenAI's strict mode a schema breaks,
// each at its JSON Pointer; "/" in a name is escaped as "~1".
func ExampleCheckStrict() {
	s := []byte(`{
		"type": "object",
		"properties": {
			"name": {"type": "string", "maxLength": 40},
			"a/b": {"type": "integer"}
		},
		"required": ["name"]
	}`)
	for _, v := range schema.CheckStrict(s) {
		fmt.Println(v)
	}
	// Output:
	// at "/properties/name/maxLength": "maxLength" (string keyword) is not supported in strict mode: remove it
	// at "/properties/a~1b": property "a/b" is not in "required": strict mode needs every property required; make an optional one nullable, as in "type": ["string", "null"]
	// at the root: the object does not set "additionalProperties": false, which strict mode requires
}

// Strictify closes objects and turns optional properties into required,
// nullable ones, keeping the order of everything; what it cannot fix comes
// back as violations.
func ExampleStrictify() {
	s := []byte(`{"type":"object","properties":{"title":{"type":"string"},"due":{"type":"string","format":"date"},"tags":{"type":"object"}},"required":["title"]}`)
	out, left, err := schema.Strictify(s)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out))
	for _, v := range left {
		fmt.Println(v)
	}
	// Output:
	// {"type":"object","properties":{"title":{"type":"string"},"due":{"type":["string","null"],"format":"date"},"tags":{"type":["object","null"]}},"required":["title","due","tags"],"additionalProperties":false}
	// at "/properties/tags": an object without "properties" must still set "additionalProperties": false, which allows only {}: declare its properties
}

// A schema parsed once can be checked, fixed and copied into a request
// body without being read again; the parsed Value itself stays as it was.
func ExampleValue_Strictify() {
	v, err := schema.Parse([]byte(`{
		"type": "object",
		"properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
		"required": ["city"]
	}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(v.CheckStrict()), "violations")
	fixed, left := v.Strictify()
	fmt.Println(len(left), "left after Strictify")
	body := fixed.AppendCompact([]byte(`{"schema":`))
	body = append(body, '}')
	fmt.Println(string(body))
	fmt.Println(string(v.AppendCompact(nil)))
	// Output:
	// 2 violations
	// 0 left after Strictify
	// {"schema":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":["string","null"]}},"required":["city","zip"],"additionalProperties":false}}
	// {"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}},"required":["city"]}
}
