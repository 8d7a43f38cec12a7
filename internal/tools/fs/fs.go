// Package fs holds the filesystem tools (fs_*): reading, writing, listing,
// copying, watching, archiving and backing up files, confined to the
// allowed roots. The roots are the server's working directory, tools.roots
// and the roots the MCP client declares; the front sends them with each
// call (tool.RootsFrom) and every operation goes through os.Root, so `..`,
// absolute paths outside the roots and symbolic links leading out of them
// are refused with FORBIDDEN.
package fs

import (
	"context"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/google/jsonschema-go/jsonschema"
)

// Group is the heading the tools are listed under.
const Group = "Filesystem"

// pathNote ends the description of every path argument.
const pathNote = " (relative to the server's working directory, or absolute inside an allowed root)"

// Tools returns the family.
func Tools() []tool.Tool {
	return []tool.Tool{
		fsRead(), fsWrite(), fsList(), fsExists(), fsMkdir(), fsRemove(), fsCopy(), fsMove(),
		fsWatch(), fsDiff(), fsSearch(), fsHash(), fsZip(), fsUnzip(), fsChmod(), fsChown(),
		fsTemplate(), fsBackup(), fsRestore(),
	}
}

// def fills the fields every tool of the family shares. Tools that change
// files are never sent twice (sideEffects).
func def(name, desc string, sideEffects bool, input *jsonschema.Schema) tool.Def {
	d := tool.Def{Name: name, Description: desc, Group: Group, Category: tool.CategoryFilesystem, Input: input, RequiresWorker: true}
	if sideEffects {
		d.Retries = -1
	}
	return d
}

// pathArg is a required path argument.
func pathArg(name, desc string) schema.Prop {
	return schema.String(name, desc+pathNote).Required().Min(1)
}

// boxed adapts a handler that needs the call's sandbox.
func boxed[In any](f func(ctx context.Context, s *sandbox, in In, call *tool.Call) (any, error)) tool.Handler {
	return tool.Typed(func(ctx context.Context, in In, call *tool.Call) (any, error) {
		s, err := newSandbox(ctx)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		return f(ctx, s, in, call)
	})
}
