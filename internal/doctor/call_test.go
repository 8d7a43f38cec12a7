package doctor

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// nowResult is what CallNow's done got.
type nowResult struct {
	v    json.RawMessage
	igor string
	err  *tool.Error
}

// callNow calls p.CallNow and reports whether it took the call, and a
// channel of what done gets.
func callNow(ctx context.Context, p *Pool, name, args string) (bool, chan nowResult) {
	got := make(chan nowResult, 1)
	took := p.CallNow(ctx, name, json.RawMessage(args), 10*time.Second, 1, func(v json.RawMessage, igor string, err *tool.Error) {
		got <- nowResult{v, igor, err}
	})
	return took, got
}

// CallNow sends a call only when an Igor can take it at once, and returns
// without waiting for its answer, which done gets.
func TestCallNowAnswersFromTheReader(t *testing.T) {
	t.Parallel()
	p := newPool(t, nil, func(c *config.Igors) { c.MaxWorkers = 1 })
	if took, _ := callNow(context.Background(), p, "hash_text", `{"text":"x"}`); took {
		t.Fatal("CallNow took a call with no Igor running")
	}
	if _, err := call(t, p, "hash_text", `{"text":"x"}`); err != nil { // the Igor is up now
		t.Fatal(err)
	}
	took, got := callNow(context.Background(), p, "hash_text", `{"text":"hello"}`)
	if !took {
		t.Fatalf("CallNow did not take a call with an idle Igor: %+v", p.Status())
	}
	r := <-got
	if r.err != nil || !strings.Contains(string(r.v), "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824") || r.igor == "" {
		t.Fatalf("CallNow's result: %+v", r)
	}
	if st := p.Status(); st.Igors[0].InFlight != 0 {
		t.Fatalf("the call is still counted in flight: %+v", st)
	}
}

// A call sent by CallNow whose Igor dies is tried again on another, on a
// goroutine of its own; one whose caller gives up is cancelled at once.
func TestCallNowRetriesAndCancels(t *testing.T) {
	t.Parallel()
	p := newPool(t, nil, func(c *config.Igors) { c.MaxWorkers = 2 })
	if _, err := call(t, p, "hash_text", `{"text":"x"}`); err != nil {
		t.Fatal(err)
	}
	took, got := callNow(context.Background(), p, "wait_ms", `{"ms":400}`)
	if !took {
		t.Fatal("CallNow did not take the call")
	}
	if len(got) > 0 {
		t.Fatal("CallNow waited for the answer of a call of 400 ms")
	}
	victim := busyIgor(t, p)
	syscall.Kill(victim, syscall.SIGKILL)
	if r := <-got; r.err != nil || r.igor == "" {
		t.Fatalf("after its Igor died: %+v", r)
	}

	for p.Status().Igors == nil || !anyReady(p) {
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	took, got = callNow(ctx, p, "wait_ms", `{"ms":5000}`)
	if !took {
		t.Fatal("CallNow did not take the call to cancel")
	}
	time.Sleep(50 * time.Millisecond)
	began := time.Now()
	cancel()
	r := <-got
	if r.err == nil || r.err.Code != tool.CodeCancelled || time.Since(began) > 2*time.Second {
		t.Fatalf("a cancelled call: %+v after %s", r, time.Since(began))
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		busy := false
		for _, ig := range p.Status().Igors {
			busy = busy || ig.InFlight > 0
		}
		if !busy {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cancelled call is still in flight: %+v", p.Status())
		}
	}
}

func anyReady(p *Pool) bool {
	for _, ig := range p.Status().Igors {
		if ig.PID > 0 && ig.Status != "starting" {
			return true
		}
	}
	return false
}
