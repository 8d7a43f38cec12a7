package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Benchmarks through a real MCP client over stdio, against the real binary.
// Figures and commands: docs/PERFORMANCE.md.

func reportLatencies(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "median-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkToolsCall: tools/call of hash_text, front → Igor → front, one at a time.
func BenchmarkToolsCall(b *testing.B) {
	s := start(b)
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "hash_text", Arguments: map[string]any{"text": "hello", "algorithm": "sha256"}}
	if _, err := s.session.CallTool(ctx, params); err != nil { // spawn the Igor
		b.Fatal(err)
	}
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		res, err := s.session.CallTool(ctx, params)
		lat = append(lat, time.Since(t0))
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
	reportLatencies(b, lat)
}

// BenchmarkToolsCallParallel8: calls/s with 8 calls in flight.
func BenchmarkToolsCallParallel8(b *testing.B) {
	s := start(b)
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "hash_text", Arguments: map[string]any{"text": "hello"}}
	if _, err := s.session.CallTool(ctx, params); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	t0 := time.Now()
	jobs := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range jobs {
				if res, err := s.session.CallTool(ctx, params); err != nil || res.IsError {
					b.Errorf("%v %v", err, res)
				}
			}
		})
	}
	for range b.N {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "calls/s")
}

// BenchmarkToolsList: tools/list of every tool.
func BenchmarkToolsList(b *testing.B) {
	s := start(b)
	ctx := context.Background()
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := s.session.ListTools(ctx, nil); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	reportLatencies(b, lat)
}

// BenchmarkInitialize: exec of `barrhawk serve` to the initialize answer.
func BenchmarkInitialize(b *testing.B) {
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		cmd := exec.Command(bin, "serve")
		cmd.Env = append(os.Environ(), "HOME="+b.TempDir(), "BARRHAWK_LOG_LEVEL=error")
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		session.Close()
	}
	reportLatencies(b, lat)
}

// BenchmarkIgorSpawn: exec of `barrhawk igor` to its ready message.
func BenchmarkIgorSpawn(b *testing.B) {
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		cmd := exec.Command(bin, "igor", "--id", "bench")
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		p, err := proc.Start(cmd)
		if err != nil {
			b.Fatal(err)
		}
		if err := wire.NewEncoder(in).Encode(wire.Init{Type: wire.TypeInit, ID: "bench"}); err != nil {
			b.Fatal(err)
		}
		env, err := wire.NewDecoder(out).Decode()
		if err != nil || env.Kind() != wire.KindReady {
			b.Fatalf("want ready, got %v %v", env, err)
		}
		lat = append(lat, time.Since(t0))
		in.Close()
		<-p.Done()
	}
	reportLatencies(b, lat)
}

// BenchmarkMemoryAtRest: RSS of the front and of one Igor after a call and a
// moment at rest.
func BenchmarkMemoryAtRest(b *testing.B) {
	for b.Loop() {
		s := start(b, "BARRHAWK_MAX_IGORS=1")
		s.mustCall("hash_text", map[string]any{"text": "x"})
		time.Sleep(500 * time.Millisecond)
		igors := s.igorPIDs()
		b.ReportMetric(float64(proc.RSS(s.cmd.Process.Pid))/(1<<20), "front-MB")
		b.ReportMetric(float64(proc.RSS(igors[0]))/(1<<20), "igor-MB")
		s.stop()
	}
}

// BenchmarkConcurrentIgors128: 128 calls that each hold an Igor (one task
// per Igor), so the pool runs 128 Igors at once; reports the time until all
// answered and the RSS of all processes together.
func BenchmarkConcurrentIgors128(b *testing.B) {
	for b.Loop() {
		s := startConfigured(b, "igors:\n  maxWorkers: 128\n  maxTasksPerIgor: 1\n")
		var wg sync.WaitGroup
		var peak int64
		var mu sync.Mutex
		t0 := time.Now()
		for range 128 {
			wg.Go(func() {
				res, err := s.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait_ms", Arguments: map[string]any{"ms": 1500}})
				if err != nil || res.IsError {
					b.Errorf("%v %v", err, text(res))
				}
			})
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
	poll:
		for {
			select {
			case <-done:
				break poll
			case <-time.After(100 * time.Millisecond):
			}
			var rss int64
			n := 0
			for _, p := range proc.Descendants(s.cmd.Process.Pid) {
				rss += proc.RSS(p.PID)
				n++
			}
			mu.Lock()
			if rss > peak {
				peak = rss
			}
			mu.Unlock()
			if n > 0 {
				b.ReportMetric(float64(n), "igors-seen")
			}
		}
		b.ReportMetric(time.Since(t0).Seconds(), "s-all-answered")
		b.ReportMetric(float64(peak)/(1<<20), "igors-peak-MB")
		s.stop()
	}
}

// BenchmarkDynamicToolCall: tools/call of a TypeScript tool (goja in an
// Igor), raw JSON-RPC client.
func BenchmarkDynamicToolCall(b *testing.B) {
	home := b.TempDir()
	dir := filepath.Join(home, "dyn")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reverse_string.ts"), []byte(benchTool("reversed")), 0o644); err != nil {
		b.Fatal(err)
	}
	startRaw(b, "BARRHAWK_DYNAMIC_DIR="+dir, "HOME="+home).measure(b, "tools/call", `{"name":"reverse_string","arguments":{"text":"hello"}}`)
}

// BenchmarkDynamicSaveToCallable: from an atomic save of a changed tool file
// to the first call that answers with the change.
func BenchmarkDynamicSaveToCallable(b *testing.B) {
	home := b.TempDir()
	dir := filepath.Join(home, "dyn")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "reverse_string.ts")
	if err := os.WriteFile(path, []byte(benchTool("v0")), 0o644); err != nil {
		b.Fatal(err)
	}
	c := startRaw(b, "BARRHAWK_DYNAMIC_DIR="+dir, "HOME="+home)
	params := `{"name":"reverse_string","arguments":{"text":"hello"}}`
	var lat []time.Duration
	i := 0
	for b.Loop() {
		i++
		key := fmt.Sprintf("v%d", i)
		if err := os.WriteFile(path+".tmp", []byte(benchTool(key)), 0o644); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if err := os.Rename(path+".tmp", path); err != nil {
			b.Fatal(err)
		}
		for !strings.Contains(string(c.rpcAny(b, "tools/call", params)), key) {
			if time.Since(t0) > 10*time.Second {
				b.Fatalf("change %s not callable after 10 s", key)
			}
		}
		lat = append(lat, time.Since(t0))
	}
	reportLatencies(b, lat)
}

func benchTool(key string) string {
	return `export const tool = {
  name: 'reverse_string',
  description: 'Reverse a string',
  schema: { type: 'object', properties: { text: { type: 'string', description: 'Text' } }, required: ['text'] },
  async handler(args: Record<string, unknown>) {
    return { ` + key + `: (args.text as string).split('').reverse().join('') };
  },
};
`
}

// BenchmarkSwarm100: swarm_run of 100 hash_text subtasks over 8 Igors,
// end to end through the go-sdk client.
func BenchmarkSwarm100(b *testing.B) {
	s := startConfigured(b, "igors:\n  maxWorkers: 8\n")
	var subtasks []any
	for i := range 100 {
		subtasks = append(subtasks, map[string]any{"id": fmt.Sprintf("t%d", i), "tool": "hash_text", "args": map[string]any{"text": fmt.Sprint(i)}})
	}
	args := map[string]any{"subtasks": subtasks}
	s.mustCall("swarm_run", args) // warm: the Igors start
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if got := s.mustCall("swarm_run", args); got["status"] != "succeeded" {
			b.Fatalf("swarm: %v", got)
		}
		lat = append(lat, time.Since(t0))
	}
	reportLatencies(b, lat)
}

// BenchmarkIgorReplacement: the call after its only Igor was SIGKILLed,
// from the call to its answer, with igors.spare on (the replacement takes
// the spare process, already exec'd) and off (it is exec'd then). A normal
// call is about 0.1 ms of it.
func BenchmarkIgorReplacement(b *testing.B) {
	for _, spare := range []bool{true, false} {
		b.Run(fmt.Sprintf("spare=%v", spare), func(b *testing.B) {
			s := startConfigured(b, fmt.Sprintf("igors:\n  maxWorkers: 1\n  spare: %v\n", spare))
			defer s.stop()
			var lat []time.Duration
			for b.Loop() {
				b.StopTimer()
				s.mustCall("hash_text", map[string]any{"text": "x"})
				if spare {
					for s.mustCall("worker_status", nil)["pool"].(map[string]any)["sparePid"] == nil {
						time.Sleep(time.Millisecond)
					}
				}
				for _, pid := range s.igorPIDs() {
					syscall.Kill(pid, syscall.SIGKILL)
				}
				b.StartTimer()
				t0 := time.Now()
				s.mustCall("hash_text", map[string]any{"text": "y"})
				lat = append(lat, time.Since(t0))
			}
			reportLatencies(b, lat)
		})
	}
}
