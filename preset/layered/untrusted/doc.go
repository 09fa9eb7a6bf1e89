// Package untrusted reads the untrusted part of a layered prompt's runtime
// context: the memories and the activity an agent collects, with the
// trusted git and environment facts beside them, from a context file
// (ParseContext, YAML or JSON) or memories in JSON Lines (ParseMemories).
// Every entry's id is one line; a tag system, meta or override makes the
// entry that kind. The layered preset (package layered) selects from
// what these readers return and fences it as UNTRUSTED CONTEXT.
package untrusted
