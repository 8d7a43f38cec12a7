package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/testsupport/lockedbuf"
)

// Faults on purpose: each one costs the call, never the front, and the next
// call succeeds.
func TestFaultsCostOneCallNotTheFront(t *testing.T) {
	t.Parallel()
	s := start(t, "BARRHAWK_TEST_TOOLS=1", "DOCTOR_TOOL_TIMEOUT=1500", "BARRHAWK_MAX_IGORS=2")
	healthy := func(after string) {
		t.Helper()
		got := s.mustCall("hash_text", map[string]any{"text": "abc", "algorithm": "md5"})
		if got["hash"] != "900150983cd24fb0d6963f7d28e17f72" {
			t.Fatalf("after %s: hash_text = %v", after, got)
		}
	}
	healthy("start")
	restarts := 0
	for _, tc := range []struct {
		tool string
		want []string
	}{
		{"fault_panic", []string{"TOOL_PANIC", "fault_panic: on purpose", "Stack trace"}},
		{"fault_hang", []string{"TIMEOUT", "fault_hang", "1.5s"}},
		{"fault_kill", []string{"WORKER_DIED", "SIGKILL", "not retried"}},
		{"fault_exit", []string{"WORKER_DIED", "exit status 3"}},
	} {
		out, isErr := s.call(tc.tool, map[string]any{})
		if !isErr {
			t.Fatalf("%s: want an error result, got %s", tc.tool, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: error %q does not mention %q", tc.tool, out, w)
			}
		}
		healthy(tc.tool)
		restarts++
		if tc.tool == "fault_panic" {
			restarts-- // a panic costs nothing but the call
		}
		// The hung tool's Igor asks to be replaced a grace period after the
		// timeout; each crash is recorded as a restart too.
		s.waitRestarts(restarts)
	}
}

// waitRestarts waits until worker_status counts at least n restarts.
func (s *server) waitRestarts(n int) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := s.mustCall("worker_status", nil)
		if int(st["restartCount"].(float64)) >= n {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("worker_status: want %d restarts: %v", n, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A grandchild started by a tool does not outlive its Igor.
func TestNoStrayProcessAfterIgorDies(t *testing.T) {
	t.Parallel()
	s := start(t, "BARRHAWK_TEST_TOOLS=1", "BARRHAWK_MAX_IGORS=1")
	got := s.mustCall("fault_spawn", nil)
	child := int(got["pid"].(float64))
	if !processAlive(child) {
		t.Fatalf("spawned child %d is not running", child)
	}
	pids := s.igorPIDs()
	if len(pids) != 1 {
		t.Fatalf("want one Igor, got %v", pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, child)
	waitGone(t, pids[0])
	// The front reaps what it adopted: no zombie children of the front.
	deadline := time.Now().Add(10 * time.Second)
	for len(proc.ZombieChildren(s.cmd.Process.Pid)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("zombies under the front: %v", proc.ZombieChildren(s.cmd.Process.Pid))
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.mustCall("hash_text", map[string]any{"text": "still here"})
}

// worker_restart replaces the Igors with fresh processes.
func TestWorkerRestart(t *testing.T) {
	t.Parallel()
	s := start(t, "BARRHAWK_MAX_IGORS=1")
	s.mustCall("hash_text", map[string]any{"text": "a"})
	before := s.igorPIDs()
	got := s.mustCall("worker_restart", nil)
	if ids := got["restarted"].([]any); len(ids) != 1 || ids[0] != "igor-1" {
		t.Fatalf("worker_restart: %v", got)
	}
	after := s.igorPIDs()
	if len(before) != 1 || len(after) != 1 || before[0] == after[0] {
		t.Fatalf("Igor pids before %v, after %v: want one fresh Igor", before, after)
	}
	waitGone(t, before[0])
	s.mustCall("hash_text", map[string]any{"text": "b"})
}

// The acceptance run: 1,000 calls at 8 in flight (and more, until
// five Igors were killed) while an Igor is killed with SIGKILL every 200 ms. Every call answers (a result or a clear
// error), the front stays up, the next call succeeds, and nothing is left
// running after the front stops.
func TestChaosKillIgorsUnderLoad(t *testing.T) {
	t.Parallel()
	s := start(t, "BARRHAWK_MAX_IGORS=4")
	const calls, inFlight = 1000, 8
	stopKilling := make(chan struct{})
	var kills atomic.Int32
	var killer sync.WaitGroup
	killer.Go(func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopKilling:
				return
			case <-tick.C:
			}
			for _, p := range proc.Descendants(s.cmd.Process.Pid) {
				if p.State != 'Z' && syscall.Kill(p.PID, syscall.SIGKILL) == nil {
					kills.Add(1)
					break
				}
			}
		}
	})
	var ok, died, other atomic.Int32
	var mu sync.Mutex
	var odd []string
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range inFlight {
		wg.Go(func() {
			for i := range jobs {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "hash_text", Arguments: map[string]any{"text": "chaos", "algorithm": "sha1"}})
				cancel()
				switch {
				case err != nil:
					other.Add(1)
					mu.Lock()
					odd = append(odd, err.Error())
					mu.Unlock()
				case !res.IsError && strings.Contains(text(res), sha1Chaos):
					ok.Add(1)
				case res.IsError && strings.HasPrefix(text(res), "WORKER_DIED: "):
					died.Add(1)
				default:
					other.Add(1)
					mu.Lock()
					odd = append(odd, text(res))
					mu.Unlock()
				}
				_ = i
			}
		})
	}
	// At least calls calls, and on until minKills Igors were killed: the
	// calls take less time than the kills' period.
	const minKills = 5
	sent := 0
	for ; sent < calls || kills.Load() < minKills; sent++ {
		jobs <- sent
	}
	close(jobs)
	wg.Wait()
	close(stopKilling)
	killer.Wait()
	t.Logf("%d calls: %d ok, %d WORKER_DIED, %d other; %d Igors killed", sent, ok.Load(), died.Load(), other.Load(), kills.Load())
	if got := ok.Load() + died.Load() + other.Load(); got != int32(sent) {
		t.Fatalf("%d of %d calls answered", got, sent)
	}
	if other.Load() > 0 {
		t.Errorf("answers that are neither a result nor WORKER_DIED: %v", odd[:min(5, len(odd))])
	}
	if kills.Load() == 0 {
		t.Error("no Igor was killed: the chaos did not happen")
	}
	if ok.Load() < int32(sent)/2 {
		t.Errorf("only %d of %d calls succeeded", ok.Load(), sent)
	}
	s.mustCall("hash_text", map[string]any{"text": "after the storm"})
}

// sha1Chaos is the SHA-1 of "chaos".
var sha1Chaos = func() string {
	out, _ := exec.Command("sh", "-c", "printf chaos | sha1sum").Output()
	return strings.Fields(string(out))[0]
}()

// A client that stops reading its answers holds the server back, but costs
// no Igor: the reader that hands a quick call's answer on waits for the
// client, and the pings it does not read meanwhile are not the Igor's
// misses. 20 calls whose answers are 60 KiB each (far over what the pipe
// holds), sent while nothing is read and held for 10 heartbeats, all answer
// once the client reads, and no Igor was replaced.
func TestClientThatStopsReadingCostsNoIgor(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "barrhawk.yaml"), []byte("igors:\n  maxWorkers: 1\n  heartbeatInterval: 200ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "HOME="+home, "BARRHAWK_HOME="+filepath.Join(home, ".barrhawk"))
	cmd.Dir = home
	var stderr lockedbuf.Buffer
	cmd.Stderr = &stderr
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	out := bufio.NewReaderSize(outPipe, 1<<20)
	send := func(line string) {
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Error(err)
		}
	}
	answer := func() []byte { // the next answer, past notifications
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(line, []byte(`"method"`)) {
				return line
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if line := answer(); !bytes.Contains(line, []byte(`"id":0`)) {
		t.Fatalf("initialize: %.300s", line)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// One call first, so that the Igor is up and the calls below are
	// answered by its reader.
	send(`{"jsonrpc":"2.0","id":"warm","method":"tools/call","params":{"name":"hash_text","arguments":{"text":"x"}}}`)
	if line := answer(); !bytes.Contains(line, []byte(`"hash"`)) {
		t.Fatalf("the first call: %.300s", line)
	}
	const calls = 20
	text := strings.Repeat("x", 45<<10)
	sent := make(chan struct{})
	go func() { // the server stops reading too, once its pipes are full
		defer close(sent)
		for i := 1; i <= calls; i++ {
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"base64_encode","arguments":{"text":"%s"}}}`, i, text))
		}
	}()
	time.Sleep(2 * time.Second) // 10 heartbeats unread
	ok := 0
	for range calls {
		if line := answer(); bytes.Contains(line, []byte(`"result":"eHh4`)) && !bytes.Contains(line, []byte(`"isError":true`)) {
			ok++
		} else {
			t.Errorf("not an answer with its base64: %.300s", line)
		}
	}
	<-sent
	if ok != calls {
		t.Errorf("%d of %d calls answered with their base64", ok, calls)
	}
	send(`{"jsonrpc":"2.0","id":"st","method":"tools/call","params":{"name":"worker_status","arguments":{}}}`)
	if line := answer(); !bytes.Contains(line, []byte(`\"restarts\":0`)) || bytes.Contains([]byte(stderr.String()), []byte("missed 3 heartbeats")) {
		t.Fatalf("an Igor was replaced while the client did not read: %.600s\nstderr: %s", line, stderr.String())
	}
}
