// Package include holds the template preset's body syntax (design 001):
// a scanner for templates with $$TOKEN workflow tokens and $$include
// directives, and a resolver that replaces them, single pass and in
// lexical order, with the text of files named by a workflow node's
// includes map or by the directive itself.
//
// Syntax:
//
//   - $$NAME, with NAME matching [A-Z][A-Z0-9_]*, is a workflow token. It
//     is replaced by the file the node's includes map names for NAME.
//   - A line holding "$$include PATH" and nothing else (spaces and tabs
//     around it are allowed) is replaced by the file at PATH, relative to
//     the catalog root.
//   - Any other $$ is literal text: "$$", "$$lower", "$$1" stay as written.
//
// A token or directive is replaced by the file's text less one final line
// break, so a token that fills a line becomes the file's lines without a
// doubled blank line, and a token inside a line keeps the line whole.
// Included text is never scanned again: a file that itself contains a
// token or directive is an error, not a recursion.
//
// This package reads no files itself; a [Loader] supplies them, so the same
// rules apply to a directory, an embedded file system or a test map.
package include
