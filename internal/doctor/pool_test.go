package doctor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/wire"
)

var bin string

func TestMain(m *testing.M) { testbin.Main(m, &bin) }

func igorsConfig(mutate func(*config.Igors)) config.Igors {
	c := config.Default().Igors
	c.HeartbeatInterval = 50 * time.Millisecond
	c.SpawnDelay = 10 * time.Millisecond
	c.ShutdownGrace = time.Second
	if mutate != nil {
		mutate(&c)
	}
	return c
}

func newPool(t *testing.T, command []string, mutate func(*config.Igors)) *Pool {
	t.Helper()
	if command == nil {
		command = []string{bin, "igor"}
	}
	p := NewPool(PoolOptions{Command: command, Igors: igorsConfig(mutate), DefaultTimeout: 10 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Serve(ctx); close(done) }()
	t.Cleanup(func() {
		pids := livePIDs(p)
		cancel()
		<-done
		for _, pid := range pids {
			if alive(pid) {
				t.Errorf("Igor %d still running after Close", pid)
			}
		}
	})
	return p
}

func livePIDs(p *Pool) []int {
	var pids []int
	st := p.Status()
	for _, ig := range st.Igors {
		if ig.PID > 0 {
			pids = append(pids, ig.PID)
		}
	}
	if st.SparePID > 0 {
		pids = append(pids, st.SparePID)
	}
	return pids
}

// waitSpare waits until the pool's spare Igor process waits, and returns
// its pid.
func waitSpare(t *testing.T, p *Pool) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if pid := p.Status().SparePID; pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no spare Igor: %+v", p.Status())
		}
	}
}

func alive(pid int) bool {
	for range 200 {
		found := false
		for _, p := range proc.All() {
			if p.PID == pid && p.State != 'Z' {
				found = true
			}
		}
		if !found {
			return false
		}
		proc.ReapOrphans()
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// busyIgor waits for an Igor running a call and returns its pid.
func busyIgor(t *testing.T, p *Pool) int {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, ig := range p.Status().Igors {
			if ig.InFlight > 0 && ig.PID > 0 {
				return ig.PID
			}
		}
	}
	t.Fatal("no Igor ran the call")
	return 0
}

func call(t *testing.T, p *Pool, name, args string) (json.RawMessage, *tool.Error) {
	t.Helper()
	return p.Call(context.Background(), name, json.RawMessage(args), 10*time.Second, 1)
}

func TestStrategies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		strategy string
		want     func(int) bool
	}{
		{"single", func(n int) bool { return n == 1 }},
		{"round-robin", func(n int) bool { return n > 1 }},
	} {
		p := newPool(t, nil, func(c *config.Igors) { c.Strategy = tc.strategy; c.MaxWorkers = 4 })
		// Two bursts: the first finds every Igor busy and spawns more (up to
		// the limit under round-robin); the second is spread over them.
		for range 2 {
			var wg sync.WaitGroup
			for range 6 {
				wg.Go(func() {
					if _, err := call(t, p, "wait_ms", `{"ms":300}`); err != nil {
						t.Errorf("%s: %v", tc.strategy, err)
					}
				})
			}
			wg.Wait()
		}
		used := 0
		for _, ig := range p.Status().Igors {
			if ig.TasksDone > 0 {
				used++
			}
		}
		if !tc.want(used) {
			t.Errorf("%s: %d Igors ran tasks", tc.strategy, used)
		}
	}
}

func TestIdleIgorIsStopped(t *testing.T) {
	t.Parallel()
	p := newPool(t, nil, func(c *config.Igors) { c.IdleTimeout = 100 * time.Millisecond })
	if _, err := call(t, p, "hash_text", `{"text":"a"}`); err != nil {
		t.Fatal(err)
	}
	pids := livePIDs(p)
	spare := waitSpare(t, p)
	deadline := time.Now().Add(5 * time.Second)
	for st := p.Status(); len(st.Igors) > 0 || st.SparePID > 0; st = p.Status() {
		if time.Now().After(deadline) {
			t.Fatalf("idle Igor or its spare not stopped: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pids[0]) || alive(spare) {
		t.Fatal("the stopped Igor's process, or the spare, is still running")
	}
	if st := p.Status(); st.Restarts != 0 {
		t.Fatalf("an idle stop is not a restart: %+v", st)
	}
	// The next call spawns a fresh one.
	if _, err := call(t, p, "hash_text", `{"text":"a"}`); err != nil {
		t.Fatal(err)
	}
}

func TestCallRetriedOnAnotherIgorAfterCrash(t *testing.T) {
	t.Parallel()
	p := newPool(t, nil, func(c *config.Igors) { c.MaxWorkers = 2 })
	result := make(chan *tool.Error, 1)
	go func() {
		_, err := call(t, p, "wait_ms", `{"ms":400}`)
		result <- err
	}()
	victim := busyIgor(t, p)
	syscall.Kill(victim, syscall.SIGKILL)
	if err := <-result; err != nil {
		t.Fatalf("the call was not retried on another Igor: %v", err)
	}
	st := p.Status()
	if st.Restarts != 1 || st.CrashesInARow != 0 {
		t.Fatalf("after one crash and a success: %+v", st)
	}
}

// A dead Igor's replacement is the spare, already exec'd: the call after
// the death runs on it, and a new spare is started behind it. With
// igors.spare off, none is kept.
func TestDeadIgorIsReplacedByTheSpare(t *testing.T) {
	t.Parallel()
	p := newPool(t, nil, func(c *config.Igors) { c.MaxWorkers = 1 })
	if _, err := call(t, p, "hash_text", `{"text":"a"}`); err != nil {
		t.Fatal(err)
	}
	first := livePIDs(p)[0]
	spare := waitSpare(t, p)
	if spare == first {
		t.Fatalf("the spare is the Igor %d", first)
	}
	syscall.Kill(first, syscall.SIGKILL)
	if _, err := call(t, p, "hash_text", `{"text":"b"}`); err != nil {
		t.Fatalf("the call after the death: %v", err)
	}
	st := p.Status()
	if len(st.Igors) != 1 || st.Igors[0].PID != spare || st.Igors[0].ID != "igor-1" || st.Igors[0].ToolsLoaded == 0 {
		t.Fatalf("the replacement is not the spare %d, named igor-1 and loaded: %+v", spare, st.Igors)
	}
	if next := waitSpare(t, p); next == spare || next == first {
		t.Fatalf("no new spare behind it: %d", next)
	}

	off := newPool(t, nil, func(c *config.Igors) { c.MaxWorkers = 1; c.Spare = false })
	if _, err := call(t, off, "hash_text", `{"text":"a"}`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if st := off.Status(); st.SparePID != 0 {
		t.Fatalf("a spare with igors.spare off: %+v", st)
	}
}

func TestUnresponsiveIgorIsReplaced(t *testing.T) {
	t.Parallel()
	// A process that says ready and then neither answers pings nor tasks.
	fake := []string{"sh", "-c", `read line; echo '{"type":"ready","id":"fake","toolsLoaded":1,"pid":'$$'}'; exec sleep 600`, "fake-igor"}
	p := newPool(t, fake, func(c *config.Igors) { c.MaxWorkers = 1 })
	_, err := p.Call(context.Background(), "hash_text", json.RawMessage(`{"text":"a"}`), 5*time.Second, 1)
	if err == nil || err.Code != tool.CodeWorkerDied {
		t.Fatalf("want WORKER_DIED after the hung Igors were replaced, got %v", err)
	}
	if !strings.Contains(err.Message, "missed 3 heartbeats") {
		t.Fatalf("the error does not say why: %v", err)
	}
}

func TestSpawnFailureIsReported(t *testing.T) {
	t.Parallel()
	p := newPool(t, []string{"/nonexistent/barrhawk", "igor"}, nil)
	_, err := call(t, p, "hash_text", `{"text":"a"}`)
	if err == nil || err.Code != tool.CodeWorkerUnavailable || !strings.Contains(err.Message, "/nonexistent/barrhawk") {
		t.Fatalf("want WORKER_UNAVAILABLE naming the command, got %v", err)
	}
	// An Igor that exits before ready is reported with its exit status.
	p2 := newPool(t, []string{"sh", "-c", "echo broken >&2; exit 7", "x"}, nil)
	_, err = call(t, p2, "hash_text", `{"text":"a"}`)
	if err == nil || err.Code != tool.CodeWorkerUnavailable || !strings.Contains(err.Message, "exit status 7") {
		t.Fatalf("want WORKER_UNAVAILABLE with the exit status, got %v", err)
	}
}

// An Igor killed while it starts is replaced, and the call waiting for
// it is answered by the next one: only Igors that keep dying before they
// are ready fail it.
func TestIgorKilledWhileStartingIsReplaced(t *testing.T) {
	t.Parallel()
	mark := filepath.Join(t.TempDir(), "killed-once")
	script := `if [ ! -e "$1" ]; then : > "$1"; kill -KILL $$; fi; exec "$2" igor`
	p := newPool(t, []string{"sh", "-c", script, "sh", mark, bin}, nil)
	if _, err := call(t, p, "hash_text", `{"text":"a"}`); err != nil {
		t.Fatalf("the call after an Igor killed while starting: %v", err)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("the first Igor was not killed: %v", err)
	}
}

// TestTaskHandedBackRunsElsewhere: a task an Igor hands back unrun (it
// was signalled and is leaving) runs on another Igor, even with one slot
// and a tool that is not retried after a death.
func TestTaskHandedBackRunsElsewhere(t *testing.T) {
	t.Parallel()
	mark := filepath.Join(t.TempDir(), "handed-back")
	script := `if [ -e "$1" ]; then exec "$2" igor; fi; : > "$1"
read init; echo '{"type":"ready","id":"leaving","toolsLoaded":1,"pid":'$$'}'; read task
id=$(printf '%s' "$task" | sed 's/^{"id":"\([^"]*\)".*/\1/')
echo '{"id":"'$id'","status":"not_run"}'; exec sleep 600`
	p := newPool(t, []string{"sh", "-c", script, "sh", mark, bin}, func(c *config.Igors) { c.MaxWorkers = 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	v, _, err := p.CallWhere(ctx, "hash_text", json.RawMessage(`{"text":"a"}`), 10*time.Second, 0)
	if err != nil || !strings.Contains(string(v), "ca978112") {
		t.Fatalf("a task handed back unrun, then run elsewhere: %s, %v", v, err)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("the first Igor did not take the task: %v", err)
	}
}

func TestBackoffGrowsAndResets(t *testing.T) {
	t.Parallel()
	p := newPool(t, nil, func(c *config.Igors) { c.SpawnDelay = 100 * time.Millisecond; c.BackoffMax = 350 * time.Millisecond })
	var delays []time.Duration
	p.mu.Lock()
	for range 4 {
		delays = append(delays, p.backoff.Fail())
	}
	p.mu.Unlock()
	// The first crash in a row is replaced at once (a spare waits for it).
	want := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 350 * time.Millisecond}
	if !slices.Equal(delays, want) {
		t.Fatalf("backoff delays %v, want %v", delays, want)
	}
	if n := p.Status().CrashesInARow; n != 4 {
		t.Fatalf("crashesInARow %d, want 4", n)
	}
	// The call waits out the backoff for its Igor; its success ends the run.
	if _, err := call(t, p, "hash_text", `{"text":"a"}`); err != nil {
		t.Fatal(err)
	}
	if n := p.Status().CrashesInARow; n != 0 {
		t.Fatalf("crashesInARow %d after a successful task, want 0", n)
	}
	p.mu.Lock()
	next := p.backoff.Next()
	p.mu.Unlock()
	if !next.IsZero() {
		t.Fatalf("a spawn is still held back until %v after a successful task", next)
	}
}

func TestRequestRestartReplacesIgor(t *testing.T) {
	t.Parallel()
	p := NewPool(PoolOptions{
		Command: []string{bin, "igor"}, Env: append(os.Environ(), "BARRHAWK_TEST_TOOLS=1"),
		Igors: igorsConfig(func(c *config.Igors) { c.MaxWorkers = 1; c.StopGrace = 100 * time.Millisecond }), DefaultTimeout: 10 * time.Second,
	})
	defer p.Close()
	// An Igor up first: the hang's 200 ms are for the tool, not a busy
	// machine's Igor start.
	if _, err := p.Call(context.Background(), "hash_text", json.RawMessage(`{"text":"a"}`), 10*time.Second, 0); err != nil {
		t.Fatal(err)
	}
	_, err := p.Call(context.Background(), "fault_hang", json.RawMessage(`{}`), 200*time.Millisecond, 0)
	if err == nil || err.Code != tool.CodeTimeout {
		t.Fatalf("fault_hang: want TIMEOUT, got %v", err)
	}
	pid := 0
	for _, ig := range p.Status().Igors {
		pid = ig.PID
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.Status().Restarts < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("no restart after request_restart: %+v", p.Status())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		t.Fatal("the Igor that asked to be replaced is still running")
	}
	if _, err := p.Call(context.Background(), "hash_text", json.RawMessage(`{"text":"a"}`), 5*time.Second, 1); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
}

// TestMemoryDeathIsNotRetried: a call whose Igor dies of its memory bound,
// by the Go runtime refusing an allocation or by the memory watchdog,
// answers MEMORY_LIMIT, and is not sent to a second Igor to die again.
func TestMemoryDeathIsNotRetried(t *testing.T) {
	t.Parallel()
	p := NewPool(PoolOptions{
		Command: []string{bin, "igor"}, Env: append(os.Environ(), "BARRHAWK_TEST_TOOLS=1"),
		Igors: igorsConfig(func(c *config.Igors) { c.MaxWorkers = 2; c.MemoryLimit = 128 << 20 }), DefaultTimeout: 10 * time.Second,
	})
	defer p.Close()
	for i, how := range []string{"runtime", "watchdog"} {
		_, err := p.Call(context.Background(), "fault_oom", json.RawMessage(`{"how":"`+how+`"}`), 30*time.Second, 1)
		if err == nil || err.Code != tool.CodeMemoryLimit || !strings.Contains(err.Message, "igors.memoryLimit") || !strings.Contains(err.Message, "not retried") {
			t.Fatalf("%s: want MEMORY_LIMIT, got %v", how, err)
		}
		for deadline := time.Now().Add(5 * time.Second); p.Status().Restarts < i+1; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the Igor's death was not recorded: %+v", how, p.Status())
			}
		}
		if st := p.Status(); st.Restarts != i+1 {
			t.Fatalf("%s: %d Igors died for %d calls: the call was retried", how, st.Restarts, i+1)
		}
	}
	if _, err := p.Call(context.Background(), "hash_text", json.RawMessage(`{"text":"a"}`), 10*time.Second, 1); err != nil {
		t.Fatalf("after the memory deaths: %v", err)
	}
}

// fakeIgor is a process that says ready, and at its first task writes
// stderr on its stderr, with TASK replaced by the task's id, and exits
// with status 2, as a Go program does when it dies.
func fakeIgor(stderr string) []string {
	return []string{"sh", "-c", `read init; echo '{"type":"ready","id":"fake","toolsLoaded":1,"pid":'$$'}'; read task
id=$(printf '%s' "$task" | sed 's/^{"id":"\([^"]*\)".*/\1/')
printf '%s\n' "$1" | sed "s/TASK/$id/" >&2; exit 2`, "fake-igor", stderr}
}

// TestStderrTellsAMemoryDeath: the front knows a death by memory from the
// Go runtime's last words or the watchdog's line, not from a log line that
// happens to mention memory.
func TestStderrTellsAMemoryDeath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		stderr string
		oom    bool
	}{
		{"runtime: out of memory: cannot allocate 1099511627776-byte block (3932160 in use)\nfatal error: out of memory", true},
		{"fatal error: runtime: out of memory", true},
		{wire.MemoryLimitLine([]string{"t0", "TASK"}, "the worker process (Igor igor-1) went over its 128 MiB memory limit"), true},
		// The watchdog named other tasks: this one only came to a dying
		// Igor, and is retried.
		{wire.MemoryLimitLine([]string{"t0"}, "the worker process (Igor igor-1) went over its 128 MiB memory limit"), false},
		{`time=2026-11-24T08:00:00Z level=INFO msg="console.log: out of memory"` + "\npanic: something else", false},
	} {
		p := newPool(t, fakeIgor(tc.stderr), func(c *config.Igors) { c.MaxWorkers = 2; c.MemoryLimit = 128 << 20 })
		_, err := call(t, p, "hash_text", `{"text":"a"}`)
		switch {
		case tc.oom && (err == nil || err.Code != tool.CodeMemoryLimit || !strings.Contains(err.Message, "not retried")):
			t.Errorf("%.40q: want MEMORY_LIMIT, not retried; got %v", tc.stderr, err)
		case !tc.oom && (err == nil || err.Code != tool.CodeWorkerDied || !strings.Contains(err.Message, "tried 2 times")):
			t.Errorf("%.40q: want WORKER_DIED after a retry; got %v", tc.stderr, err)
		}
	}
}

func TestDiedOfMemory(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{
		"runtime: out of memory: cannot allocate 67108864-byte block (3932160 in use)": true,
		"fatal error: out of memory":                                            true,
		"fatal error: runtime: out of memory":                                   true,
		wire.MemoryLimitLine([]string{"t1"}, "over 512 MiB"):                    true,
		`time=2026-11-24T08:00:00Z level=INFO msg="fatal error: out of memory"`: false,
		`{"level":"INFO","msg":"runtime: out of memory"}`:                       false,
		"fatal error: concurrent map writes":                                    false,
		"panic: out of range":                                                   false,
	} {
		if got := diedOfMemory(line); got != want {
			t.Errorf("diedOfMemory(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestAnswerOverTheLineLimitIsRefused: an answer longer than the front
// reads from an Igor (tools.maxResultHardBytes and some room) is dropped
// unread; its call answers RESULT_TOO_LARGE and the Igor stays.
func TestAnswerOverTheLineLimitIsRefused(t *testing.T) {
	t.Parallel()
	// Answers every task with a 2 MiB string, whatever the bounds.
	script := `read init; echo '{"type":"ready","id":"fake","toolsLoaded":1,"pid":'$$'}'
while read line; do
  case "$line" in
  *'"tool"'*)
    id=$(printf '%s' "$line" | sed 's/^{"id":"\([^"]*\)".*/\1/')
    { printf '{"id":"%s","status":"success","result":"' "$id"; head -c 2097152 /dev/zero | tr '\0' x; printf '","duration":1}\n'; } ;;
  *'"ping"'*) echo '{"type":"pong","status":"idle","resourceUsage":{"memory":1,"browserPages":0,"dbConnections":0,"tasksInFlight":0}}' ;;
  esac
done`
	// Heartbeats at 1 s: the fake Igor answers pings only between the
	// 2 MiB answers, which take a while on a loaded machine.
	p := NewPool(PoolOptions{Command: []string{"sh", "-c", script, "fake-igor"}, Igors: igorsConfig(func(c *config.Igors) { c.MaxWorkers = 1; c.HeartbeatInterval = time.Second }),
		DefaultTimeout: 10 * time.Second, Results: tool.ResultLimits{Cut: 1000, Hard: 4000}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	for range 2 {
		began := time.Now()
		_, err := call(t, p, "hash_text", `{"text":"a"}`)
		if err == nil || err.Code != tool.CodeResultTooLarge || !strings.Contains(err.Message, "tools.maxResultHardBytes") {
			t.Fatalf("want RESULT_TOO_LARGE, got %v", err)
		}
		if d := time.Since(began); d > 5*time.Second {
			t.Fatalf("the call waited %s", d)
		}
	}
	if st := p.Status(); st.Restarts != 0 || len(st.Igors) != 1 {
		t.Fatalf("the Igor should stay: %+v", st)
	}
}

// A call with an affinity key (the database tools, fs_watch) goes to the
// Igor holding the key's state, however many Igors there are: a connection
// opened under an alias is found by the calls after it. An Igor holding
// database connections is not stopped for idleness.
func TestAffinityKeepsStateOnOneIgor(t *testing.T) {
	t.Parallel()
	p := newPool(t, nil, func(c *config.Igors) {
		c.MaxWorkers = 3
		c.IdleTimeout = time.Second
		c.HeartbeatInterval = 200 * time.Millisecond // a loaded machine misses no pongs
	})
	for range 2 { // every Igor busy: the pool starts more
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				if _, err := call(t, p, "wait_ms", `{"ms":300}`); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	if n := len(p.Status().Igors); n < 2 {
		t.Fatalf("%d Igors after the burst, want several: %+v", n, p.Status())
	}
	ctx := withAffinity(context.Background(), "database")
	db := func(name, args string) *tool.Error {
		_, err := p.Call(ctx, name, json.RawMessage(args), 10*time.Second, 0)
		return err
	}
	if err := db("db_sqlite_open", `{"path":":memory:","alias":"mem"}`); err != nil {
		t.Fatal(err)
	}
	if err := db("db_sqlite_query", `{"alias":"mem","query":"CREATE TABLE t (x)"}`); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if err := db("db_sqlite_query", `{"alias":"mem","query":"INSERT INTO t VALUES (1)"}`); err != nil {
			t.Fatalf("call %d after the open: %v", i, err)
		}
	}
	// The other Igors go idle and stop; the holder stays, with its data.
	time.Sleep(3 * time.Second)
	if err := db("db_sqlite_query", `{"alias":"mem","query":"SELECT count(*) FROM t"}`); err != nil {
		t.Fatalf("after the idle timeout: %v (%+v)", err, p.Status())
	}
	if n := len(p.Status().Igors); n != 1 {
		t.Errorf("%d Igors after the idle timeout, want the holder only", n)
	}
}

// An Igor holding fs_watch watchers keeps them: its fs_watch calls reach
// it, and it is not stopped for idleness.
func TestWatchersKeepTheirIgor(t *testing.T) {
	t.Parallel()
	p := newPool(t, nil, func(c *config.Igors) {
		c.IdleTimeout = time.Second
		c.HeartbeatInterval = 200 * time.Millisecond
	})
	dir := t.TempDir()
	ctx := withAffinity(tool.WithRoots(context.Background(), []string{dir}), "fs_watch")
	out, err := p.Call(ctx, "fs_watch", json.RawMessage(`{"action":"start","path":"."}`), 10*time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	var started struct{ ID string }
	if err := json.Unmarshal(out, &started); err != nil || started.ID == "" {
		t.Fatalf("start: %s %v", out, err)
	}
	time.Sleep(3 * time.Second)
	if _, err := p.Call(ctx, "fs_watch", json.RawMessage(`{"action":"events","id":"`+started.ID+`"}`), 10*time.Second, 0); err != nil {
		t.Fatalf("events after the idle timeout: %v (%+v)", err, p.Status())
	}
}

// Quick calls go to the Igor that took the last one while it has room,
// even when other Igors are idle; when it is gone, another takes them, and
// one at its task limit sends them elsewhere rather than keep them waiting.
func TestQuickCallsKeepToOneIgor(t *testing.T) {
	t.Parallel()
	p := newPool(t, nil, func(c *config.Igors) {
		c.MaxWorkers = 3
		c.MaxTasksPerIgor = 4
	})
	var wg sync.WaitGroup
	for range 3 { // three Igors, busy at once
		wg.Go(func() {
			if _, err := call(t, p, "wait_ms", `{"ms":300}`); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := len(p.Status().Igors); n != 3 {
		t.Fatalf("%d Igors, want 3: %+v", n, p.Status())
	}
	quick := withQuick(context.Background())
	hash := func() string {
		_, where, err := p.CallWhere(quick, "hash_text", json.RawMessage(`{"text":"x"}`), 10*time.Second, 1)
		if err != nil {
			t.Fatal(err)
		}
		return where
	}
	first := hash()
	for i := range 20 {
		if where := hash(); where != first {
			t.Fatalf("quick call %d ran on %s, the last one on %s", i, where, first)
		}
	}
	// At its task limit it sends quick calls elsewhere at once.
	var held []*igorConn
	p.mu.Lock()
	for ig := range p.all {
		if ig.id == first {
			ig.inFlight += 4
			held = append(held, ig)
		}
	}
	p.mu.Unlock()
	if where := hash(); where == first {
		t.Fatalf("a quick call waited for %s at its task limit", first)
	}
	p.mu.Lock()
	for _, ig := range held {
		ig.inFlight -= 4
	}
	p.mu.Unlock()
}
