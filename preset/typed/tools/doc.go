// Package tools runs a typed template's tools (package typed, design
// 003), inside the context manager the design describes: it opens the
// resources the tools use, and rolls a tool call back when it fails.
//
// The Go shape is explicit: a Runtime (New) binds Go functions to the
// template's tools (Bind); Runtime.Open collects and opens the resources
// and returns a Scope; Scope.Dispatch runs one call inside a transaction
// (the session and every resource that is a Snapshotter are saved first
// and restored when the call fails) and answers the disclosure tools
// (typed.OpenSectionsTool, typed.ReadSectionTool) itself; Scope.Close
// closes the resources in reverse order. A section with a workspace
// directory gives its tools a Workspace, confined by os.Root. Nothing is
// global: every piece of state lives in a Runtime or a Scope.
//
// See docs/typed.md for the runtime in full.
package tools
