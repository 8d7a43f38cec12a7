// Package fault holds tools that break on purpose, for testing that the
// front survives them. They are registered only when the environment has
// BARRHAWK_TEST_TOOLS=1 (see Enabled), and never listed otherwise.
package fault

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// EnvVar switches the fault tools on.
const EnvVar = "BARRHAWK_TEST_TOOLS"

// Enabled reports whether the fault tools are switched on.
func Enabled() bool { return os.Getenv(EnvVar) == "1" }

// Group is the heading these tools are listed under.
const Group = "Fault injection (tests only)"

func def(name, desc string, inputs ...schema.Prop) tool.Def {
	in := schema.Object(inputs...)
	return tool.Def{Name: name, Description: desc, Group: Group, Category: tool.CategoryTest, Input: in, RequiresWorker: true, Retries: -1}
}

// hoard keeps what fault_oom allocates alive.
var hoard struct {
	sync.Mutex
	kept [][]byte
}

// Tools returns the fault tools.
func Tools() []tool.Tool {
	code := schema.Integer("code", "Exit status (1 to 125)").Default(3).Min(1).Max(125)
	return []tool.Tool{
		{
			Def: def("fault_panic", "Panics inside the tool."),
			Run: func(context.Context, *tool.Call) (any, error) { panic("fault_panic: on purpose") },
		},
		{
			Def: def("fault_hang", "Never returns and ignores its context, like a tool stuck in a loop."),
			Run: func(context.Context, *tool.Call) (any, error) {
				for {
					time.Sleep(time.Hour)
				}
			},
		},
		{
			Def: def("fault_exit", "Exits the Igor process with the given status.", code),
			Run: tool.Typed(func(_ context.Context, in struct {
				Code int `json:"code"`
			}, _ *tool.Call) (any, error) {
				if in.Code == 0 {
					in.Code = 3
				}
				os.Exit(in.Code)
				return nil, nil
			}),
		},
		{
			Def: def("fault_kill", "Sends SIGKILL to its own Igor."),
			Run: func(context.Context, *tool.Call) (any, error) {
				if p, err := os.FindProcess(os.Getpid()); err == nil {
					_ = p.Kill() // SIGKILL on Unix
				}
				time.Sleep(time.Hour)
				return nil, nil
			},
		},
		{
			Def: def("fault_big_result", "Returns a result of about the given size: a string, or an object holding an array of strings.",
				schema.Integer("bytes", "Size in bytes").Required().Min(1), schema.String("shape", "string or object").Enum("string", "object")),
			Run: tool.Typed(func(_ context.Context, in struct {
				Bytes int    `json:"bytes"`
				Shape string `json:"shape"`
			}, _ *tool.Call) (any, error) {
				if in.Shape == "object" {
					items := make([]string, in.Bytes/100+1)
					for i := range items {
						items[i] = strings.Repeat("o", 94)
					}
					return map[string]any{"items": items}, nil
				}
				return strings.Repeat("s", in.Bytes), nil
			}),
		},
		{
			Def: def("fault_oom", "Runs its Igor out of memory. how=runtime asks for 1 TiB at once, which the address-space bound of an Igor with igors.memoryLimit refuses: the Go runtime dies with \"fatal error: out of memory\". how=watchdog grows the heap by 16 MiB every millisecond until the memory watchdog ends the Igor.",
				schema.String("how", "runtime or watchdog").Required().Enum("runtime", "watchdog")),
			Run: tool.Typed(func(ctx context.Context, in struct {
				How string `json:"how"`
			}, _ *tool.Call) (any, error) {
				if in.How == "runtime" {
					b := make([]byte, 1<<40)
					b[len(b)-1] = 1
					return len(b), nil // no bound on the address space: nothing happened
				}
				for ctx.Err() == nil {
					b := make([]byte, 16<<20)
					for i := 0; i < len(b); i += 4096 {
						b[i] = 1
					}
					hoard.Lock()
					hoard.kept = append(hoard.kept, b)
					hoard.Unlock()
					time.Sleep(time.Millisecond)
				}
				return nil, ctx.Err()
			}),
		},
		{
			Def: def("fault_spawn", "Starts a long-lived child process (sleep 300) and returns its pid, to test that no stray process outlives its Igor."),
			Run: func(context.Context, *tool.Call) (any, error) {
				cmd := exec.Command("sleep", "300")
				if err := cmd.Start(); err != nil {
					return nil, err
				}
				go func() { _ = cmd.Wait() }()
				return map[string]any{"pid": cmd.Process.Pid}, nil
			},
		},
	}
}
