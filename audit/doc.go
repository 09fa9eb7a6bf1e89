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
//
// Beside the log, Append keeps an index, Path + IndexSuffix, of where each
// record is by correlation id and by prompt hash, so that [Log.Find] and
// [Log.FindHash] read only the lines they return. The index is a cache:
// every line it names is read and checked before it is believed, an index
// that does not match the log is built again from it, and it can be
// deleted at any time.
package audit
