// Package typed is the typed preset (design 003): a prompt template is a
// namespaced tree of sections whose text names typed parameters, bound
// from a YAML or JSON file or from Go structs, and rendered with numbered
// headings ("## 1. Title", "### 1.1. Child").
//
// A template file declares its namespace and key, its parameters and
// their types (string, integer, number, boolean, list), the section tree,
// an optional output schema, and fixtures (named sets of values that
// compile builds). A section's template substitutes "$name" or "${name}"
// with a parameter's value; "$$" is a literal '$', and any other '$' is
// an error at its line and column. A section may be enabled by a boolean
// parameter ("enabled: strict", or "!strict" for its negation), rendered
// as its summary until expanded (progressive disclosure, with an
// open_sections tool the model can call), fenced as untrusted, or given
// tools. Every name is checked when the file is parsed, so a template
// that refers to a parameter it does not declare never renders.
//
// Overrides replace section bodies and tool descriptions without editing
// the template: each names the hash of what it replaces, and one whose
// section or tool has changed since is left out with a note (drift
// detection), never applied to text it was not written for.
//
// Package tools (preset/typed/tools) runs a template's tools: it binds
// Go functions to them, opens the resources they use and rolls a failed
// call back.
//
// The preset lays out sections; the engine renders, fits, hashes, records
// and delivers them as it does for every preset. Its inputs are the
// assemble flags --typed FILE, --typed-params FILE, --typed-fixture NAME,
// --typed-expand PATHS and --typed-overrides FILE.
package typed
