package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/wire"
)

// One call's tries: each sent to an Igor (runOn), its reply settled
// (settle) into the call's result or one more try. Call waits for it on
// the caller's goroutine; CallNow, for a quick call, sends it from the
// caller's and settles it on the goroutine that reads the Igor's replies.

// Call runs one tool on an Igor and returns its result. If the Igor dies
// before answering, the call is sent to another Igor up to retries times,
// then fails with WORKER_DIED.
func (p *Pool) Call(ctx context.Context, name string, args json.RawMessage, timeout time.Duration, retries int) (json.RawMessage, *tool.Error) {
	v, _, err := p.CallWhere(ctx, name, args, timeout, retries)
	return v, err
}

// CallWhere is Call that also says which Igor answered ("" when none did).
func (p *Pool) CallWhere(ctx context.Context, name string, args json.RawMessage, timeout time.Duration, retries int) (json.RawMessage, string, *tool.Error) {
	return p.callFrom(ctx, name, args, timeout, retries, &attempts{})
}

// attempts is what a call's tries so far have left: the Igor to avoid,
// the deaths met, the hand-backs.
type attempts struct {
	avoid      *igorConn
	deaths     []string
	handedBack int
}

// callFrom is CallWhere after the tries in a.
func (p *Pool) callFrom(ctx context.Context, name string, args json.RawMessage, timeout time.Duration, retries int, a *attempts) (json.RawMessage, string, *tool.Error) {
	for {
		ig, terr := p.acquire(ctx, name, laneFrom(ctx), a.avoid, timeout)
		if terr != nil {
			if len(a.deaths) > 0 {
				terr.Message += " (after the Igor running it died: " + strings.Join(a.deaths, "; ") + ")"
			}
			return nil, "", terr
		}
		task, began := p.newTask(ctx, ig, name, args, timeout), time.Now()
		r := p.runOn(ctx, ig, task, timeout)
		if v, err, again := p.settle(ctx, ig, task, began, r, timeout, retries, a); !again {
			return v, ig.id, err
		}
	}
}

// newTask is the task of one try of a call, on ig.
func (p *Pool) newTask(ctx context.Context, ig *igorConn, name string, args json.RawMessage, timeout time.Duration) wire.Task {
	task := wire.Task{ID: "t" + strconv.FormatUint(p.seq.Add(1), 10), Tool: name, Args: args, Timeout: timeout.Milliseconds(), Context: tool.ExecContextFrom(ctx), Roots: tool.RootsFrom(ctx)}
	if p.opts.TaskEvents {
		p.opts.Events.Emit(Event{Type: EventTaskStarted, Task: task.ID, Tool: name, Igor: ig.id})
	}
	return task
}

// settle ends one try of a call on ig, which began at began and got r:
// the call's result, or again when it is to be tried once more (a then
// says which Igor to avoid).
func (p *Pool) settle(ctx context.Context, ig *igorConn, task wire.Task, began time.Time, r reply, timeout time.Duration, retries int, a *attempts) (v json.RawMessage, err *tool.Error, again bool) {
	name := task.Tool
	p.release(ig, r)
	p.taskEvent(task.ID, name, ig.id, began, r)
	if r.died && r.oom {
		return nil, tool.Errorf(tool.CodeMemoryLimit, "the worker process (Igor %s) running %s %s; it was replaced, and the call is not retried", ig.id, name, r.reason), false
	}
	if r.died {
		a.deaths = append(a.deaths, ig.id+": "+r.reason)
		if len(a.deaths) <= retries && !p.isClosed() {
			a.avoid = ig
			p.log.Warn("retrying a call whose Igor died", "tool", name, "igor", ig.id, "reason", r.reason)
			return nil, nil, true
		}
		if p.isClosed() {
			return nil, tool.Errorf(tool.CodeCancelled, "%s was cut short: the server is shutting down", name), false
		}
		msg := fmt.Sprintf("the worker process (Igor) running %s died before answering: %s", name, strings.Join(a.deaths, "; then "))
		if retries > 0 {
			msg += fmt.Sprintf(" (tried %d times)", len(a.deaths))
		} else {
			msg += " (not retried: this tool is not safe to run twice)"
		}
		return nil, &tool.Error{Code: tool.CodeWorkerDied, Message: msg}, false
	}
	if r.env != nil && r.env.Status == wire.StatusNotRun && a.handedBack < maxHandedBack {
		// The Igor is leaving and did not start it: send it elsewhere,
		// and nothing more to that Igor, whose slot gets a new one.
		ig.dying.Store(true)
		go p.drain(ig, "it was leaving: it handed task "+task.ID+" back unrun")
		a.avoid, a.handedBack = ig, a.handedBack+1
		return nil, nil, true
	}
	if r.env == nil { // cancelled, or the Igor stopped answering
		return nil, tool.Errorf(tool.CodeInternal, "%s: no result", name), false
	}
	switch r.env.Status {
	case wire.StatusSuccess:
		if ec := tool.ExecContextFrom(ctx); ec != nil && len(r.env.Shared) > 0 {
			ec.Updates = r.env.Shared
		}
		return r.env.Result, nil, false
	case wire.StatusTimeout:
		if r.env.Error != nil {
			return nil, &tool.Error{Code: tool.CodeTimeout, Message: r.env.Error.Message}, false
		}
		return nil, tool.Errorf(tool.CodeTimeout, "%s did not finish within %s", name, timeout), false
	case wire.StatusNotRun:
		return nil, tool.Errorf(tool.CodeWorkerUnavailable, "%s was not run: %d Igors in a row were leaving when it reached them", name, a.handedBack+1), false
	default:
		if r.env.Error == nil {
			return nil, tool.Errorf(tool.CodeToolError, "%s failed without saying why", name), false
		}
		return nil, r.env.Error, false
	}
}

func (p *Pool) taskEvent(id, name, igor string, began time.Time, r reply) {
	dur := float64(time.Since(began).Microseconds()) / 1000
	switch {
	case r.died:
		p.opts.Events.Emit(Event{Type: EventTaskFailed, Task: id, Tool: name, Igor: igor, DurationMs: dur, Reason: "its Igor died: " + r.reason})
	case r.env == nil:
	case r.env.Status != wire.StatusSuccess:
		why := r.env.Status
		switch {
		case r.env.Status == wire.StatusNotRun:
			why = "not run: its Igor was leaving; handed to another"
		case r.env.Error != nil:
			why = r.env.Error.Code + ": " + r.env.Error.Message
		}
		if len(why) > 300 {
			why = why[:300] + "…"
		}
		p.opts.Events.Emit(Event{Type: EventTaskFailed, Task: id, Tool: name, Igor: igor, DurationMs: dur, Reason: why})
	case p.opts.TaskEvents:
		p.opts.Events.Emit(Event{Type: EventTaskCompleted, Task: id, Tool: name, Igor: igor, DurationMs: dur})
	}
}

// maxHandedBack bounds how often one call may be handed back unrun by
// Igors that are leaving before it answers WORKER_UNAVAILABLE.
const maxHandedBack = 3

// runOn sends one task and waits for its answer.
func (p *Pool) runOn(ctx context.Context, ig *igorConn, task wire.Task, timeout time.Duration) reply {
	ch := make(chan reply, 1)
	if !ig.await(task.ID, func(r reply) { ch <- r }) {
		return reply{died: true, reason: "exited before the task was sent"}
	}
	forget := func() { ig.take(task.ID) }
	if err := ig.enc.Encode(task); err != nil {
		// A broken pipe: the Igor is dying; its exit will answer, unless it
		// already has.
		select {
		case r := <-ch:
			return r
		case <-ig.exited:
			forget()
			return reply{died: true, reason: "could not send the task: " + err.Error()}
		}
	}
	// The Igor answers "timeout" itself at the deadline; this backstop is for
	// an Igor that has stopped answering at all. A quick call needs none: it
	// runs on the Igor's reader, so an Igor stuck in one misses its
	// heartbeat and is replaced, which answers the call.
	var backstop <-chan time.Time
	if !quickFrom(ctx) {
		t := time.NewTimer(timeout + p.opts.Igors.StopGrace + 2*time.Second)
		defer t.Stop()
		backstop = t.C
	}
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		forget()
		_ = ig.enc.Encode(wire.Cancel{Type: wire.TypeCancel, ID: task.ID}) // best effort: a dying Igor's exit ends the task anyway
		return reply{env: &wire.Envelope{ID: task.ID, Status: wire.StatusError, Error: tool.Errorf(tool.CodeCancelled, "%s cancelled by the caller", task.Tool)}}
	case <-backstop:
		forget()
		reason := fmt.Sprintf("no answer to task %s (%s) within %s", task.ID, task.Tool, timeout+p.opts.Igors.StopGrace+2*time.Second)
		p.kill(ig, reason)
		return reply{env: &wire.Envelope{ID: task.ID, Status: wire.StatusTimeout, Error: tool.Errorf(tool.CodeTimeout, "%s did not finish within %s, and its Igor stopped answering; it was replaced", task.Tool, timeout)}}
	}
}

// await records how task id's reply is delivered; false when the Igor has
// died already.
func (ig *igorConn) await(id string, deliver func(reply)) bool {
	ig.mu.Lock()
	defer ig.mu.Unlock()
	if ig.dead {
		return false
	}
	ig.pending[id] = deliver
	return true
}

// take removes task id from those awaiting a reply and returns how to
// deliver it (nil when it is answered or forgotten already).
func (ig *igorConn) take(id string) func(reply) {
	ig.mu.Lock()
	defer ig.mu.Unlock()
	deliver := ig.pending[id]
	delete(ig.pending, id)
	return deliver
}

// CallNow is CallWhere for a call that must not wait (a quick tool's, on
// the goroutine reading a client): when an Igor can take it at once it is
// sent from the caller's goroutine and settled on the goroutine reading
// that Igor's replies, which calls done with the result; a call that needs
// another try after a death or a hand-back goes on on a goroutine of its
// own. It reports false, having done nothing, when no Igor can take the
// call now or the pool is closing: then the caller calls CallWhere. A quick
// call has no backstop timer (see runOn); ctx's end cancels it.
func (p *Pool) CallNow(ctx context.Context, name string, args json.RawMessage, timeout time.Duration, retries int, done func(v json.RawMessage, igor string, err *tool.Error)) bool {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return false
	}
	ig, _ := p.pickForLocked(ctx, laneFrom(ctx), nil)
	if ig == nil {
		p.mu.Unlock()
		return false
	}
	ig.inFlight++
	ig.lastActive = time.Now()
	p.mu.Unlock()
	task, began := p.newTask(ctx, ig, name, args, timeout), time.Now()
	var stop func() bool
	settle := func(r reply) { // called once: see take
		stop()
		a := &attempts{}
		v, err, again := p.settle(ctx, ig, task, began, r, timeout, retries, a)
		if !again {
			done(v, ig.id, err)
			return
		}
		go func() { done(p.callFrom(ctx, name, args, timeout, retries, a)) }()
	}
	// Whoever takes the task out of pending delivers its reply: the
	// reader, the Igor's exit, or the caller's cancelling.
	stop = context.AfterFunc(ctx, func() {
		if ig.take(task.ID) == nil {
			return
		}
		_ = ig.enc.Encode(wire.Cancel{Type: wire.TypeCancel, ID: task.ID}) // best effort: a dying Igor's exit ends the task anyway
		settle(reply{env: &wire.Envelope{ID: task.ID, Status: wire.StatusError, Error: tool.Errorf(tool.CodeCancelled, "%s cancelled by the caller", name)}})
	})
	if !ig.await(task.ID, settle) {
		settle(reply{died: true, reason: "exited before the task was sent"})
		return true
	}
	if err := ig.enc.Encode(task); err != nil {
		p.log.Debug("sending a task to a dying Igor: its exit answers it", "igor", ig.id, "err", err)
	}
	return true
}
