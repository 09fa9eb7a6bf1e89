// Package audit records what was assembled and proves later that it can be
// assembled again to the same bytes.
//
// A [Record] holds an assembly's inputs (template, includes map and the
// hash of every file used), its exact text, the text's hash, when it was
// made and a correlation id. A [Log] appends records to a JSON Lines file:
// one record per line, written with a single write under an exclusive file
// lock, so processes that share a log never interleave or tear lines.
// [Replay] finds a record by correlation id, checks that its text still
// hashes to its stored hash, rebuilds it from the catalog as it is now and
// reports the first differing line and the files that changed.
package audit
