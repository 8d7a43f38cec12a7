package igor

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/wire"
)

// Memory bounding. Go has no per-goroutine limit and goja none at all, so
// the Igor bounds itself, in three layers:
//   - the GC's soft limit (debug.SetMemoryLimit) at the limit;
//   - a watchdog that samples the heap every 10 ms and, past the limit,
//     writes wire.MemoryLimitLine to stderr, answers every running task
//     with MEMORY_LIMIT and exits, so the front replaces the Igor and does
//     not retry the calls;
//   - RLIMIT_AS at the address space in use plus 8× the limit (the Go
//     runtime reserves address space well ahead of use), a hard
//     backstop for allocations too fast for the watchdog: the runtime then
//     dies with "out of memory", which the front reports the same way.

const watchdogInterval = 10 * time.Millisecond

func (w *worker) applyMemoryLimit(limit int64) {
	if limit <= 0 {
		return
	}
	debug.SetMemoryLimit(limit)
	if vm := proc.VirtualSize(os.Getpid()); vm > 0 {
		// Only the soft limit: a browser this Igor starts lifts it again
		// before it becomes chromium (browser.ExecIfBrowserStart).
		if err := setSoftAddressLimit(uint64(vm + 8*limit)); err != nil {
			w.log.Warn("cannot set RLIMIT_AS", "err", err)
		}
	}
	go w.watchMemory(limit)
}

func (w *worker) watchMemory(limit int64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	t := time.NewTicker(watchdogInterval)
	defer t.Stop()
	used := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64() + sample[1].Value.Uint64())
	}
	for range t.C {
		if used() <= limit {
			continue
		}
		runtime.GC() // the figure counts garbage not yet swept: be sure
		if used() <= limit {
			continue
		}
		msg := fmt.Sprintf("the worker process (Igor %s) went over its %d MiB memory limit (igors.memoryLimit) while running %s; it was replaced, and the call is not retried", w.id, limit>>20, w.runningNames())
		// Stderr first: the front reads this line even if the answers
		// below are still in a write buffer when the process ends.
		fmt.Fprintln(os.Stderr, wire.MemoryLimitLine(w.runningIDs(), msg))
		w.log.Error("memory limit exceeded; exiting", "limit", limit)
		w.failAll(tool.Errorf(tool.CodeMemoryLimit, "%s", msg))
		os.Exit(2)
	}
}
