package jsrt

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/dop251/goja"
)

// callState is the event loop of one call (or of one runtime's top-level
// evaluation). Other goroutines (timers, fetches) hand work to it with
// enqueue; the goroutine running the call drains it. Everything but the
// queue is touched only by that goroutine.
type callState struct {
	ctx context.Context

	mu     sync.Mutex
	queue  []func() error
	closed bool
	// wake has room for one token and is created, on the call's goroutine,
	// before the first asynchronous operation starts.
	wake chan struct{}

	timers    map[int64]*jsTimer
	pending   int            // timers and fetches that may still enqueue work
	forbidden []*goja.Object // errors thrown for permission violations
	fatal     error          // an uncaught exception in a timer callback

	fetchCtx context.Context
	cancel   context.CancelFunc

	squad *tool.ExecContext // the call's squad context, or nil
}

func newCallState(ctx context.Context) *callState { return &callState{ctx: ctx} }

// prepareAsync makes the wake channel; call it on the call's goroutine before
// starting anything that will enqueue.
func (cs *callState) prepareAsync() {
	if cs.wake == nil {
		cs.wake = make(chan struct{}, 1)
	}
}

// enqueue hands f to the call's goroutine. It is a no-op once the call has
// ended.
func (cs *callState) enqueue(f func() error) {
	cs.mu.Lock()
	if cs.closed {
		cs.mu.Unlock()
		return
	}
	cs.queue = append(cs.queue, f)
	cs.mu.Unlock()
	select {
	case cs.wake <- struct{}{}:
	default:
	}
}

func (cs *callState) take() []func() error {
	cs.mu.Lock()
	q := cs.queue
	cs.queue = nil
	cs.mu.Unlock()
	return q
}

// close ends the call: queued and future work is dropped, timers are
// stopped, fetches in flight are cancelled.
func (cs *callState) close() {
	cs.mu.Lock()
	cs.closed = true
	cs.queue = nil
	cs.mu.Unlock()
	for _, t := range cs.timers {
		if t.timer != nil {
			t.timer.Stop()
		}
	}
	cs.timers = nil
	if cs.cancel != nil {
		cs.cancel()
	}
}

// requestCtx is the context for outgoing requests: the call's context,
// cancelled when the call ends.
func (cs *callState) requestCtx() context.Context {
	if cs.fetchCtx == nil {
		cs.fetchCtx, cs.cancel = context.WithCancel(cs.ctx)
	}
	return cs.fetchCtx
}

func (cs *callState) markForbidden(o *goja.Object) { cs.forbidden = append(cs.forbidden, o) }

func (cs *callState) isForbidden(v goja.Value) bool {
	o, ok := v.(*goja.Object)
	if !ok {
		return false
	}
	for _, f := range cs.forbidden {
		if f == o {
			return true
		}
	}
	return false
}

// jsTimer is one setTimeout or setInterval.
type jsTimer struct {
	id     int64
	fn     goja.Callable
	args   []goja.Value
	every  time.Duration // interval; 0 for setTimeout
	timer  *time.Timer
	repeat bool
}

// maxTimerDelay is the largest delay browsers and Node honour (2^31-1 ms);
// larger delays fire after 1 ms, as there.
const maxTimerDelay = math.MaxInt32 * time.Millisecond

func timerDelay(v goja.Value) time.Duration {
	if v == nil || goja.IsUndefined(v) {
		return 0
	}
	ms := v.ToFloat()
	if math.IsNaN(ms) || ms < 0 {
		return 0
	}
	d := time.Duration(ms * float64(time.Millisecond))
	if d > maxTimerDelay || ms > float64(math.MaxInt32) {
		return time.Millisecond
	}
	return d
}

// setTimer implements setTimeout (repeat false) and setInterval.
func (rt *jsRuntime) setTimer(call goja.FunctionCall, repeat bool) goja.Value {
	name := "setTimeout"
	if repeat {
		name = "setInterval"
	}
	fn, ok := goja.AssertFunction(call.Argument(0))
	if !ok {
		panic(rt.vm.NewTypeError(name + ": the callback must be a function (code strings are not allowed)"))
	}
	d := timerDelay(call.Argument(1))
	if repeat && d < time.Millisecond {
		d = time.Millisecond
	}
	rt.timerSeq++
	t := &jsTimer{id: rt.timerSeq, fn: fn, every: d, repeat: repeat}
	if len(call.Arguments) > 2 {
		t.args = append([]goja.Value(nil), call.Arguments[2:]...)
	}
	cs := rt.cur
	if cs == nil {
		return rt.vm.ToValue(t.id)
	}
	cs.prepareAsync()
	if cs.timers == nil {
		cs.timers = make(map[int64]*jsTimer)
	}
	cs.timers[t.id] = t
	cs.pending++
	cs.schedule(t, d)
	return rt.vm.ToValue(t.id)
}

func (cs *callState) schedule(t *jsTimer, d time.Duration) {
	fire := func() error { return cs.fire(t) }
	if d <= 0 {
		cs.enqueue(fire)
		return
	}
	t.timer = time.AfterFunc(d, func() { cs.enqueue(fire) })
}

// fire runs a timer's callback on the call's goroutine.
func (cs *callState) fire(t *jsTimer) error {
	if cs.timers[t.id] != t {
		return nil // cleared meanwhile
	}
	if t.repeat {
		cs.schedule(t, t.every)
	} else {
		delete(cs.timers, t.id)
		cs.pending--
	}
	_, err := t.fn(goja.Undefined(), t.args...)
	return err
}

// clearTimer implements clearTimeout and clearInterval.
func (rt *jsRuntime) clearTimer(call goja.FunctionCall) goja.Value {
	cs := rt.cur
	arg := call.Argument(0)
	if cs == nil || cs.timers == nil || goja.IsUndefined(arg) || goja.IsNull(arg) {
		return goja.Undefined()
	}
	id := arg.ToInteger()
	if t, ok := cs.timers[id]; ok {
		if t.timer != nil {
			t.timer.Stop()
		}
		delete(cs.timers, id)
		cs.pending--
	}
	return goja.Undefined()
}
