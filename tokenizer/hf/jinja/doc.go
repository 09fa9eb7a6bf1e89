// Package jinja renders the chat templates that model files carry
// (tokenizer_config.json's chat_template, GGUF's tokenizer.chat_template)
// with a small interpreter of the Jinja subset they use, byte-identical
// to @huggingface/jinja, the renderer of transformers.js, which renders
// them as Python's transformers does (trim_blocks and lstrip_blocks on).
//
// Supported:
//
//   - text, {{ expressions }}, {# comments #}, and whitespace control
//     with "-" on any tag;
//   - statements: set (a variable, or a namespace's attribute), if / elif
//     / else / endif, for / else / endfor over lists, mappings' keys and
//     strings, with loop.index, index0, revindex, revindex0, first, last,
//     length, previtem, nextitem, and unpacking ("for k, v in ...");
//   - expressions: string, number, boolean and none literals, lists and
//     mappings; names; .attr, [index], negative indexes, slices
//     [start:stop:step]; calls; "a if b else c"; and, or, not; ==, !=, <,
//     >, <=, >=, in, not in; +, -, ~, *, /, //, %;
//   - functions: raise_exception, range, namespace;
//   - string methods: strip, lstrip, rstrip (with characters),
//     startswith, endswith, split, replace, upper, lower; mapping
//     methods: get, items, keys, values;
//   - filters: trim, length, count, upper, lower, tojson (with indent),
//     string, first, last, join, default, items, list, reverse;
//   - tests: defined, undefined, none, string, number, integer, float,
//     boolean, iterable, mapping, sequence, true, false, odd, even,
//     callable.
//
// Anything else (macros, call blocks, block set, filter blocks, loop
// filters, tuples, ** and other filters or tests) is refused with an
// *Error giving the line and column in the template. A render is bounded
// in steps and output, so no template runs away.
package jinja
