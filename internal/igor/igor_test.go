package igor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/wire"
)

func testTool(name string, run tool.Handler) tool.Tool {
	return tool.Tool{Def: tool.Def{Name: name, Description: "test", Group: "Test", Category: tool.CategoryTest, Input: schema.Object(), RequiresWorker: true}, Run: run}
}

// quickTool is a test tool marked quick (tool.Def.Quick).
func quickTool(name string, run tool.Handler) tool.Tool {
	t := testTool(name, run)
	t.Quick = true
	return t
}

var tools = []tool.Tool{
	testTool("echo_args", func(_ context.Context, c *tool.Call) (any, error) { return json.RawMessage(c.Args), nil }),
	testTool("browser_fake", func(context.Context, *tool.Call) (any, error) { return "page", nil }),
	testTool("boom", func(context.Context, *tool.Call) (any, error) { panic("kaboom") }),
	testTool("fails", func(context.Context, *tool.Call) (any, error) {
		return nil, tool.Errorf(tool.CodeElementNotFound, "Element not found: #submit-btn")
	}),
	testTool("polite_sleep", func(ctx context.Context, _ *tool.Call) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}),
	testTool("stuck", func(context.Context, *tool.Call) (any, error) { select {} }),
	quickTool("quick_deadline", func(ctx context.Context, _ *tool.Call) (any, error) {
		_, ok := ctx.Deadline()
		return ok, nil
	}),
	quickTool("quick_boom", func(context.Context, *tool.Call) (any, error) { panic("quick kaboom") }),
	bigTool,
	testTool("open_thing", func(_ context.Context, c *tool.Call) (any, error) {
		c.Resources.Put(tool.KindPostgres, "main", nil, func() error { return nil })
		return "opened", nil
	}),
	testTool("open_recorded", func(_ context.Context, c *tool.Call) (any, error) {
		var key string
		if err := c.Bind(&struct {
			Key *string `json:"key"`
		}{&key}); err != nil {
			return nil, err
		}
		c.Resources.Put(tool.KindBrowserPage, key, nil, func() error { closed.Store(key, true); return nil })
		return "opened", nil
	}),
	// open_held opens a resource whose close waits until the test
	// releases it (heldClose): the Igor stays in its shutdown meanwhile.
	testTool("open_held", func(_ context.Context, c *tool.Call) (any, error) {
		h := heldClose
		c.Resources.Put(tool.KindBrowserPage, "held", nil, func() error {
			h.closing <- struct{}{}
			<-h.release
			return nil
		})
		return "opened", nil
	}),
}

// heldClose is where open_held's resource says it is closing, and waits
// (set by the one test that uses it).
var heldClose struct{ closing, release chan struct{} }

// bigTool returns something of about args.bytes bytes, of args.shape:
// a string, an object, an error message, or squad values beside a result.
var bigTool = testTool("big", func(_ context.Context, c *tool.Call) (any, error) {
	var in struct {
		Bytes int    `json:"bytes"`
		Shape string `json:"shape"`
	}
	if err := json.Unmarshal(c.Args, &in); err != nil {
		return nil, err
	}
	switch in.Shape {
	case "object":
		items := make([]string, in.Bytes/100+1)
		for i := range items {
			items[i] = strings.Repeat("o", 94)
		}
		return map[string]any{"items": items}, nil
	case "error":
		return nil, tool.Errorf(tool.CodeToolError, "%s", strings.Repeat("e", in.Bytes))
	case "shared":
		c.Context.Updates = map[string]json.RawMessage{"k": json.RawMessage(`"` + strings.Repeat("v", in.Bytes) + `"`)}
		return "small", nil
	}
	return strings.Repeat("s", in.Bytes), nil
})

// closed records the resources closed by open_recorded, by key.
var closed sync.Map

// igorUnderTest runs an Igor on pipes and returns its encoder/decoder ends.
type igorUnderTest struct {
	enc    *wire.Encoder
	dec    *wire.Decoder
	stdin  io.Closer
	done   chan error
	cancel context.CancelFunc
}

func run(t *testing.T) *igorUnderTest {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	u := &igorUnderTest{enc: wire.NewEncoder(inW), dec: wire.NewDecoder(outR), stdin: inW, done: make(chan error, 1), cancel: cancel}
	go func() { u.done <- Run(ctx, Options{In: inR, Out: outW, Tools: tools}); outW.Close() }()
	t.Cleanup(func() { cancel(); inW.Close() })
	return u
}

func (u *igorUnderTest) send(t *testing.T, v any) {
	t.Helper()
	if err := u.enc.Encode(v); err != nil {
		t.Fatal(err)
	}
}

func (u *igorUnderTest) recv(t *testing.T) *wire.Envelope {
	t.Helper()
	env, err := u.dec.Decode()
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return env
}

func (u *igorUnderTest) init(t *testing.T, bag []string, cfg wire.InitConfig) *wire.Envelope {
	t.Helper()
	u.send(t, wire.Init{Type: wire.TypeInit, ID: "igor-t", ToolBag: bag, Config: cfg})
	env := u.recv(t)
	if env.Kind() != wire.KindReady {
		t.Fatalf("want ready, got %+v", env)
	}
	return env
}

func TestInitReadyAndToolBag(t *testing.T) {
	t.Parallel()
	u := run(t)
	ready := u.init(t, []string{"browser_*", "echo_*"}, wire.InitConfig{})
	if ready.ToolsLoaded != 2 || ready.PID == 0 || ready.MemoryUsage <= 0 || ready.ID != "igor-t" {
		t.Fatalf("ready: %+v", ready)
	}
	u.send(t, wire.Task{ID: "1", Tool: "boom"})
	if r := u.recv(t); r.Status != wire.StatusError || r.Error.Code != tool.CodeUnknownTool {
		t.Fatalf("a tool outside the bag: %+v", r)
	}
}

func TestBadToolBagIsFatal(t *testing.T) {
	t.Parallel()
	u := run(t)
	u.send(t, wire.Init{Type: wire.TypeInit, ID: "x", ToolBag: []string{"browser_["}})
	env := u.recv(t)
	if env.Kind() != wire.KindFatal || !strings.Contains(env.Reason, "browser_[") {
		t.Fatalf("want fatal naming the pattern, got %+v", env)
	}
	if err := <-u.done; err == nil {
		t.Fatal("Run returned nil after a fatal init")
	}
}

func TestTasksResultsAndErrors(t *testing.T) {
	t.Parallel()
	u := run(t)
	u.init(t, nil, wire.InitConfig{})
	u.send(t, wire.Task{ID: "a", Tool: "echo_args", Args: json.RawMessage(`{"x":1}`)})
	u.send(t, wire.Task{ID: "b", Tool: "boom"})
	u.send(t, wire.Task{ID: "c", Tool: "fails"})
	got := map[string]*wire.Envelope{}
	for range 3 {
		r := u.recv(t)
		got[r.ID] = r
	}
	if r := got["a"]; r.Status != wire.StatusSuccess || string(r.Result) != `{"x":1}` || r.Duration < 0 {
		t.Errorf("echo: %+v", r)
	}
	if r := got["b"]; r.Status != wire.StatusError || r.Error.Code != tool.CodeToolPanic || !strings.Contains(r.Error.Message, "kaboom") || r.Error.Stack == "" {
		t.Errorf("panic: %+v", r)
	}
	if r := got["c"]; r.Status != wire.StatusError || r.Error.Code != tool.CodeElementNotFound {
		t.Errorf("error: %+v", r)
	}
	// Still alive after the panic.
	u.send(t, wire.Ping{Type: wire.TypePing})
	if p := u.recv(t); p.Kind() != wire.KindPong || p.ResourceUsage.Memory <= 0 {
		t.Fatalf("pong: %+v", p)
	}
}

func TestManyTasksInFlightMatchedByID(t *testing.T) {
	t.Parallel()
	u := run(t)
	u.init(t, nil, wire.InitConfig{})
	// A slow task (one that runs until its minute is up) does not hold up
	// fast ones: all 50 answer while it runs, each under its own id.
	u.send(t, wire.Task{ID: "slow", Tool: "polite_sleep", Timeout: 60_000})
	for i := range 50 {
		u.send(t, wire.Task{ID: "fast-" + string(rune('A'+i)), Tool: "echo_args", Args: json.RawMessage(`1`)})
	}
	seen := map[string]bool{}
	for range 50 {
		r := u.recv(t)
		if r.ID == "slow" {
			t.Fatalf("the slow task answered before all fast ones (%d seen)", len(seen))
		}
		seen[r.ID] = true
	}
	if len(seen) != 50 {
		t.Fatalf("answers for %d distinct ids", len(seen))
	}
}

// A quick tool's call with small arguments runs on the reader's
// goroutine, with no timer (no deadline); one with large arguments runs as
// any other task. A panic there is an answer too, and the Igor reads on.
func TestQuickToolsRunOnTheReader(t *testing.T) {
	t.Parallel()
	u := run(t)
	u.init(t, nil, wire.InitConfig{})
	big := json.RawMessage(`{"pad":"` + strings.Repeat("x", quickArgs) + `"}`)
	// Sent from another goroutine: the test's pipes hold nothing, so the
	// reader answering on its own goroutine waits for recv below.
	go func() {
		for _, task := range []wire.Task{
			{ID: "small", Tool: "quick_deadline", Args: json.RawMessage(`{}`)},
			{ID: "boom", Tool: "quick_boom", Args: json.RawMessage(`{}`)},
			{ID: "large", Tool: "quick_deadline", Args: big},
		} {
			if err := u.enc.Encode(task); err != nil {
				t.Error(err)
			}
		}
	}()
	// Answered in the order sent: the first two on the reader itself.
	if r := u.recv(t); r.ID != "small" || r.Status != wire.StatusSuccess || string(r.Result) != "false" {
		t.Fatalf("a small quick call: want no deadline, answered first; got %+v", r)
	}
	if r := u.recv(t); r.ID != "boom" || r.Status != wire.StatusError || r.Error.Code != tool.CodeToolPanic || !strings.Contains(r.Error.Message, "quick kaboom") {
		t.Fatalf("a quick call that panics: %+v", r)
	}
	if r := u.recv(t); r.ID != "large" || r.Status != wire.StatusSuccess || string(r.Result) != "true" {
		t.Fatalf("a quick call over %d bytes of arguments: want the task's deadline; got %+v", quickArgs, r)
	}
}

func TestTimeoutStoppableAndUnstoppable(t *testing.T) {
	t.Parallel()
	u := run(t)
	u.init(t, nil, wire.InitConfig{StopGrace: 100})
	u.send(t, wire.Task{ID: "p", Tool: "polite_sleep", Timeout: 50})
	if r := u.recv(t); r.Status != wire.StatusTimeout || r.Error.Code != tool.CodeTimeout {
		t.Fatalf("polite timeout: %+v", r)
	}
	u.send(t, wire.Task{ID: "s", Tool: "stuck", Timeout: 50})
	if r := u.recv(t); r.Status != wire.StatusTimeout {
		t.Fatalf("stuck timeout: %+v", r)
	}
	// The stuck tool cannot be stopped: the Igor asks to be replaced.
	if r := u.recv(t); r.Kind() != wire.KindRequestRestart || !strings.Contains(r.Reason, "stuck") {
		t.Fatalf("want request_restart naming the tool, got %+v", r)
	}
}

func TestShutdownCleansUp(t *testing.T) {
	t.Parallel()
	u := run(t)
	u.init(t, nil, wire.InitConfig{})
	u.send(t, wire.Task{ID: "o", Tool: "open_thing"})
	u.recv(t)
	u.send(t, wire.Ping{Type: wire.TypePing})
	if p := u.recv(t); p.ResourceUsage.DBConnections != 1 {
		t.Fatalf("pong: %+v", p.ResourceUsage)
	}
	u.send(t, wire.Shutdown{Type: wire.TypeShutdown, Graceful: true})
	ack := u.recv(t)
	if ack.Kind() != wire.KindShutdownAck || len(ack.CleanedUp) != 1 || ack.CleanedUp[0] != tool.KindPostgres {
		t.Fatalf("ack: %+v", ack)
	}
	select {
	case err := <-u.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after shutdown")
	}
}

func TestStdinEOFAndSignalEndRun(t *testing.T) {
	t.Parallel()
	u := run(t)
	u.init(t, nil, wire.InitConfig{})
	u.send(t, wire.Task{ID: "r", Tool: "open_recorded", Args: json.RawMessage(`{"key":"eof"}`)})
	u.recv(t)
	u.stdin.Close()
	if err := <-u.done; err != nil {
		t.Fatalf("EOF: %v", err)
	}
	if _, ok := closed.Load("eof"); !ok {
		t.Error("stdin EOF did not close the Igor's resources")
	}
	v := run(t)
	v.init(t, nil, wire.InitConfig{})
	v.send(t, wire.Task{ID: "r", Tool: "open_recorded", Args: json.RawMessage(`{"key":"signal"}`)})
	v.recv(t)
	v.cancel() // what SIGTERM does
	select {
	case err := <-v.done:
		if err != nil {
			t.Fatalf("signal: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after the signal")
	}
	if _, ok := closed.Load("signal"); !ok {
		t.Error("SIGTERM did not close the Igor's resources")
	}
	_, err := v.dec.Decode()
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("after exit: %v", err)
	}
}

// TestLeavingIgorHandsTasksBack: a task that reaches an Igor after it was
// signalled, while it closes its resources, is answered not_run (the front
// sends it elsewhere), not run into a cancelled context.
func TestLeavingIgorHandsTasksBack(t *testing.T) {
	heldClose.closing, heldClose.release = make(chan struct{}, 1), make(chan struct{})
	u := run(t)
	u.init(t, nil, wire.InitConfig{})
	u.send(t, wire.Task{ID: "h", Tool: "open_held"})
	u.recv(t)
	u.cancel() // SIGTERM
	<-heldClose.closing
	u.send(t, wire.Task{ID: "late", Tool: "echo_args", Args: json.RawMessage(`1`)})
	if r := u.recv(t); r.ID != "late" || r.Status != wire.StatusNotRun || r.Error != nil {
		t.Fatalf("a task reaching a leaving Igor: %+v", r)
	}
	close(heldClose.release)
	if err := <-u.done; err != nil {
		t.Fatal(err)
	}
}

// TestResultsAreBounded: the Igor cuts a result over maxResultBytes with a
// note, refuses one over maxResultHardBytes (squad values included) with
// RESULT_TOO_LARGE, cuts a long error message, and lives on.
func TestResultsAreBounded(t *testing.T) {
	t.Parallel()
	u := run(t)
	u.init(t, nil, wire.InitConfig{MaxResultBytes: 1000, MaxResultHardBytes: 100_000})
	ask := func(id string, bytes int, shape string) *wire.Envelope {
		t.Helper()
		u.send(t, wire.Task{ID: id, Tool: "big", Args: json.RawMessage(fmt.Sprintf(`{"bytes":%d,"shape":%q}`, bytes, shape)), Context: &tool.ExecContext{SquadID: "sq"}})
		r := u.recv(t)
		if r.ID != id {
			t.Fatalf("answer for %s, want %s", r.ID, id)
		}
		return r
	}
	text := func(r *wire.Envelope) string {
		t.Helper()
		var s string
		if r.Status != wire.StatusSuccess || json.Unmarshal(r.Result, &s) != nil {
			t.Fatalf("want a text result, got status %s, error %v, result %.100s", r.Status, r.Error, r.Result)
		}
		return s
	}
	if s := text(ask("str", 5000, "string")); !strings.HasPrefix(s, strings.Repeat("s", 1000)+"\n\n[BarrHawk cut this result: the first 1000 of 5000 bytes are shown (tools.maxResultBytes).") || !strings.Contains(s, "savePath") {
		t.Errorf("a string over the cut: %.1100q", s)
	}
	if s := text(ask("obj", 5000, "object")); !strings.HasPrefix(s, `{"items":["oooo`) || !strings.Contains(s, "bytes of JSON are shown") || len(s) > 1500 {
		t.Errorf("an object over the cut: %.1100q", s)
	}
	if r := ask("huge", 200_000, "string"); r.Status != wire.StatusError || r.Error.Code != tool.CodeResultTooLarge || !strings.Contains(r.Error.Message, "tools.maxResultHardBytes") || len(r.Result) != 0 {
		t.Errorf("a string over the hard bound: status %s, error %v, %d bytes of result", r.Status, r.Error, len(r.Result))
	}
	if r := ask("err", 50_000, "error"); r.Status != wire.StatusError || r.Error.Code != tool.CodeToolError || !strings.Contains(r.Error.Message, "the first 1000 of 50000 bytes") || len(r.Error.Message) > 1500 {
		t.Errorf("a long error message: code %s, %d bytes", r.Error.Code, len(r.Error.Message))
	}
	if r := ask("shared", 120_000, "shared"); r.Status != wire.StatusError || r.Error.Code != tool.CodeResultTooLarge || !strings.Contains(r.Error.Message, "squad values") || r.Shared != nil {
		t.Errorf("squad values over the hard bound: status %s, error %v, %d shared", r.Status, r.Error, len(r.Shared))
	}
	if r := ask("shared-ok", 1000, "shared"); r.Status != wire.StatusSuccess || len(r.Shared["k"]) != 1002 {
		t.Errorf("squad values within the bound: status %s, error %v, %d shared", r.Status, r.Error, len(r.Shared))
	}
	u.send(t, wire.Ping{Type: wire.TypePing})
	if p := u.recv(t); p.Kind() != wire.KindPong {
		t.Fatalf("after the large results: %+v", p)
	}
}

// TestAnswerOverTheWireLimitStillAnswers: without result limits, an answer
// too long for the wire is replaced by RESULT_TOO_LARGE rather than lost.
func TestAnswerOverTheWireLimitStillAnswers(t *testing.T) {
	t.Parallel()
	u := run(t)
	u.init(t, nil, wire.InitConfig{})
	u.send(t, wire.Task{ID: "w", Tool: "big", Args: json.RawMessage(fmt.Sprintf(`{"bytes":%d}`, wire.MaxLine))})
	if r := u.recv(t); r.ID != "w" || r.Status != wire.StatusError || r.Error.Code != tool.CodeResultTooLarge {
		t.Fatalf("want RESULT_TOO_LARGE, got %s status %s, error %v", r.ID, r.Status, r.Error)
	}
}
