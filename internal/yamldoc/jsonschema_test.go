package yamldoc

import (
	"encoding/json"
	"testing"
)

// TestJSONSchema: the schema of a decoder's plan has each key with the
// type of its value, ranges from rules, no other key, and any value
// where a type decodes itself.
func TestJSONSchema(t *testing.T) {
	type item struct {
		Name string `yaml:"name"`
		N    int    `yaml:"n"`
	}
	type doc struct {
		Title string   `yaml:"title"`
		Items []item   `yaml:"items"`
		On    *bool    `yaml:"on"`
		Tags  []string `yaml:"tags"`
		Self  *doc     `yaml:"self"`
	}
	s := NewSchema[doc](Options{Rules: map[string]Rule{"items[].n": Int(1, 9, "a digit")}})
	var got map[string]any
	if err := json.Unmarshal(s.JSONSchema("https://example.com/doc.json", "doc"), &got); err != nil {
		t.Fatal(err)
	}
	props := got["properties"].(map[string]any)
	if got["additionalProperties"] != false || props["title"].(map[string]any)["type"] != "string" || props["on"].(map[string]any)["type"] != "boolean" {
		t.Errorf("top level: %v", got)
	}
	n := props["items"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)["n"].(map[string]any)
	if n["type"] != "integer" || n["minimum"] != 1.0 || n["maximum"] != 9.0 || n["description"] != "want a digit" {
		t.Errorf("ranged n: %v", n)
	}
	if self := props["self"].(map[string]any); self["type"] != "object" || self["properties"] != nil {
		t.Errorf("self: %v", self)
	}
}
