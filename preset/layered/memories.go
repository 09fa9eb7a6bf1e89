package layered

import (
	"path/filepath"
	"slices"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/layered/untrusted"
)

// loadMemories appends the memories of --layered-memories, if given, to
// req's context.
func loadMemories(env *preset.Env, args preset.Args, req *Request) error {
	f, ok := args[InputMemories]
	if !ok {
		return nil
	}
	data, err := fileread.File(f, env.Limits.MaxFileBytes)
	if err != nil {
		return err
	}
	mems, err := untrusted.ParseMemories(filepath.ToSlash(f), data)
	if err != nil {
		return err
	}
	if req.Context == nil {
		req.Context = &untrusted.Context{}
	}
	for _, m := range mems {
		if m.ID != "" && slices.ContainsFunc(req.Context.Memories, func(e untrusted.Entry) bool { return e.ID == m.ID }) {
			return diag.Errorf(filepath.ToSlash(f), 0, "memory id %q is also in the context file (%s): an id names one entry in the report; rename one", m.ID, filepath.ToSlash(args[InputContext]))
		}
	}
	req.Context.Memories = append(req.Context.Memories, mems...)
	return nil
}
