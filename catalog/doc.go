// Package catalog loads a prompt catalog, a directory of plain files a team
// keeps in git, and assembles prompts from it.
//
// A catalog's root holds tessera.yaml, which names the directory of task
// templates and the directory of workflows:
//
//	tasks: seed/prompts/tasks
//	workflows: seed/workflows
//
// A workflow is a JSON file whose nodes name a template (task_ref) and the
// files that fill its $$TOKENs (includes); see package include for the
// template syntax. [Catalog.Assemble] assembles one node;
// [Catalog.Compile] assembles every node and writes the results, the check
// CI runs.
//
// Every file is read through the catalog root: a path that leaves it, by
// "..", an absolute path or a symbolic link pointing outside, is an error.
// A Catalog reads each file once and keeps what it read, so the prompts it
// assembles do not change under a running program; open a new Catalog to
// see edits. A Catalog is safe for concurrent use.
package catalog
