package reply_test

import (
	"fmt"

	"github.com/tessera-dev/tessera/preset/agent/reply"
)

// A planner's reply, with prose around its JSON, read as a plan: every
// subtask checked (3 to 15, kebab-case ids, known dependencies, no
// cycle, tiers in range).
func ExampleParsePlan() {
	text := []byte(`Here is the plan:
{"subtasks": [
 {"id": "read-code", "description": "Read slug.py.", "depends_on": [], "model_tier": 1, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "The functions are listed."},
 {"id": "add-hints", "description": "Add type hints.", "depends_on": ["read-code"], "model_tier": 2, "verification_tier": 2, "is_critical_path": true, "acceptance_criteria": "Every function is annotated."},
 {"id": "run-mypy", "description": "Run mypy --strict.", "depends_on": ["add-hints"], "model_tier": 1, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "mypy reports no error."}
]}`)
	plan, err := reply.ParsePlan("plan.txt", text)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range plan.Subtasks {
		fmt.Println(s.ID, s.DependsOn, "tier", s.ModelTier)
	}

	bad := []byte(`{"subtasks": [{"id": "Read Code", "description": "Read.", "depends_on": ["nope"], "model_tier": 4, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "Read."}]}`)
	_, err = reply.ParsePlan("bad.json", bad)
	fmt.Println(err)
	// Output:
	// read-code [] tier 1
	// add-hints [read-code] tier 2
	// run-mypy [add-hints] tier 1
	// bad.json:1:2: the plan has 1 subtask: make it 3 to 15
	// bad.json:1:22: subtask "Read Code": the id is not kebab-case: use lower-case letters and digits joined by '-', at most 64 characters, such as "run-tests"
	// bad.json:1:74: subtask "Read Code": depends_on names "nope", which is not a subtask of the plan: use one of the plan's ids
	// bad.json:1:97: subtask "Read Code": model_tier is 4: use 1 (simple file operations), 2 (code generation) or 3 (complex reasoning)
}

// A replanner's revised plan must keep every completed subtask of the
// original as it was; one that changes it is refused, at the place of the
// change, with the original's place.
func ExampleValidateReplan() {
	original, err := reply.ParsePlan("plan.json", []byte(`{"subtasks": [
 {"id": "read-code", "description": "Read slug.py.", "depends_on": [], "model_tier": 1, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "Listed.", "status": "completed"},
 {"id": "add-hints", "description": "Add type hints.", "depends_on": ["read-code"], "model_tier": 2, "verification_tier": 2, "is_critical_path": true, "acceptance_criteria": "Annotated."},
 {"id": "run-mypy", "description": "Run mypy.", "depends_on": ["add-hints"], "model_tier": 1, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "No error."}
]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	revised, err := reply.ParsePlan("replan.json", []byte(`{"subtasks": [
 {"id": "read-code", "description": "Read all of slugkit.", "depends_on": [], "model_tier": 1, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "Listed.", "status": "completed"},
 {"id": "install-mypy", "description": "Install mypy.", "depends_on": [], "model_tier": 1, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "mypy runs."},
 {"id": "add-hints", "description": "Add type hints.", "depends_on": ["read-code"], "model_tier": 2, "verification_tier": 2, "is_critical_path": true, "acceptance_criteria": "Annotated."},
 {"id": "run-mypy", "description": "Run mypy.", "depends_on": ["add-hints", "install-mypy"], "model_tier": 1, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "No error."}
]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(reply.ValidateReplan(original, revised))
	// Output:
	// replan.json:2:2: subtask "read-code" is completed, but the revised plan changes its description: keep it as it was [original at plan.json:2:2]
}

// An extractor's reply, in a fenced block after prose, read as memory
// entries: types in any case, tags split on commas.
func ExampleParseExtraction() {
	text := []byte("Two things are worth keeping:\n```json\n" + `[
  {"type": "Decision", "summary": "Use built-in generics (list[str]).", "tags": "typing, python-version", "relevance_to": ["add-hints"]},
  {"type": "error", "summary": "mypy is not installed in the workspace.", "detail": "pip install mypy failed: no network."}
]` + "\n```\n")
	entries, err := reply.ParseExtraction("extract.txt", text)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range entries {
		fmt.Println(e.Type, e.Summary, e.Tags)
	}
	// Output:
	// decision Use built-in generics (list[str]). [typing python-version]
	// error mypy is not installed in the workspace. []
}
