package record

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func kinds(name string) string {
	switch {
	case name == AuditTool:
		return KindAccessibility
	case name == "assert_text":
		return KindBrowserAssertion
	case strings.HasPrefix(name, "assert_"):
		return KindAssertion
	}
	return ""
}

func TestRecorderWritesCallsAndTests(t *testing.T) {
	s := openTemp(t)
	r := NewRecorder(s, RecorderOptions{KindOf: kinds})
	var mu sync.Mutex
	var live []Live
	cancel := r.Subscribe(func(l Live) { mu.Lock(); live = append(live, l); mu.Unlock() })
	defer cancel()
	t0 := time.Now()
	r.Call(Entry{Start: t0, Duration: 3 * time.Millisecond, Tool: "hash_text", Args: json.RawMessage(`{"text":"hi"}`), Value: json.RawMessage(`{"hash":"abc"}`), Igor: "igor-1"})
	r.Call(Entry{Start: t0.Add(time.Millisecond), Duration: time.Millisecond, Tool: "db_query", Args: json.RawMessage(`{"url":"postgres://ada:hunter22@db/x","password":"swordfish"}`), Code: "TIMEOUT", Message: "took too long"})
	r.Call(Entry{Start: t0.Add(2 * time.Millisecond), Tool: "assert_equals", Args: json.RawMessage(`{"actual":1,"expected":2}`), Value: json.RawMessage(`{"passed":false,"expected":2,"actual":1,"message":"1 is not 2"}`)})
	r.Call(Entry{Start: t0.Add(3 * time.Millisecond), Tool: "assert_text", Args: json.RawMessage(`{"selector":"h1","expected":"Hi"}`), Value: json.RawMessage(`{"passed":false,"expected":"Hi","actual":"Bye","message":"no","screenshot":"/tmp/x/assert_text-1.png"}`)})
	r.Call(Entry{Start: t0.Add(4 * time.Millisecond), Tool: "assert_text", Args: json.RawMessage(`{"selector":"h1","expected":"Hi"}`), Code: "ELEMENT_NOT_FOUND", Message: "no h1"})
	r.Call(Entry{Start: t0.Add(5 * time.Millisecond), Tool: AuditTool, Args: json.RawMessage(`{}`), Value: json.RawMessage(`{"url":"http://x/","count":1,"violations":[{"rule":"image-alt","impact":"critical","count":2}]}`)})
	r.Flush(context.Background())

	calls, next, err := s.Calls(context.Background(), CallFilter{})
	if err != nil || next != 0 || len(calls) != 6 {
		t.Fatalf("calls: %d next %d %v", len(calls), next, err)
	}
	if calls[5].Tool != "hash_text" || calls[5].Outcome != "ok" || calls[5].Igor != "igor-1" || calls[5].DurationUs != 3000 {
		t.Errorf("first call: %+v", calls[5])
	}
	db := calls[4]
	if db.Outcome != "error" || db.Code != "TIMEOUT" || strings.Contains(db.Args, "hunter22") || strings.Contains(db.Args, "swordfish") {
		t.Errorf("the failed call, secrets masked: %+v", db)
	}
	errs, _, _ := s.Calls(context.Background(), CallFilter{Outcome: "error"})
	if len(errs) != 2 {
		t.Errorf("errors only: %d", len(errs))
	}
	byPart, _, _ := s.Calls(context.Background(), CallFilter{Tool: "assert"})
	exact, _, _ := s.Calls(context.Background(), CallFilter{Tool: "assert_text"})
	if len(byPart) != 3 || len(exact) != 2 {
		t.Errorf("tool filter: part %d exact %d", len(byPart), len(exact))
	}
	d, err := s.Call(context.Background(), calls[5].ID)
	if err != nil || d.Result != `{"hash":"abc"}` {
		t.Errorf("detail: %+v %v", d, err)
	}

	runs, _, err := s.Runs(context.Background(), "", 0, 0)
	if err != nil || len(runs) != 1 || runs[0].Kind != RunSession || runs[0].Failed != 4 || runs[0].Passed != 0 {
		t.Fatalf("runs: %+v %v", runs, err)
	}
	_, tests, err := s.Run(context.Background(), runs[0].ID)
	if err != nil || len(tests) != 4 {
		t.Fatalf("tests: %+v %v", tests, err)
	}
	if tests[0].Kind != KindAssertion || tests[0].Name != `assert_equals expected=2` || string(tests[0].Actual) != "1" {
		t.Errorf("assertion: %+v", tests[0])
	}
	if tests[1].Kind != KindBrowserAssertion || len(tests[1].Evidence) != 1 || tests[1].Evidence[0].MIMEType != "image/png" || tests[1].CallID != calls[2].ID {
		t.Errorf("browser assertion: %+v", tests[1])
	}
	if tests[2].Status != StatusFailed || !strings.Contains(tests[2].Message, "ELEMENT_NOT_FOUND") || tests[2].Name != tests[1].Name {
		t.Errorf("an assertion that errored is a failed test of the same name: %+v", tests[2])
	}
	if tests[3].Kind != KindAccessibility || !strings.Contains(tests[3].Message, "image-alt") {
		t.Errorf("audit: %+v", tests[3])
	}
	mu.Lock()
	defer mu.Unlock()
	var nCalls, nTests int
	for _, l := range live {
		switch l.Kind {
		case "call":
			nCalls++
			if l.Data.(*Call).ID == 0 {
				t.Error("a live call without its id")
			}
		case "test":
			nTests++
		}
	}
	if nCalls != 6 || nTests != 4 {
		t.Errorf("live: %d calls, %d tests", nCalls, nTests)
	}
}

func TestHistoryCountsFlips(t *testing.T) {
	s := openTemp(t)
	r := NewRecorder(s, RecorderOptions{KindOf: kinds})
	t0 := time.Now()
	for i, passed := range []bool{true, false, true, true, false} {
		r.Call(Entry{Start: t0.Add(time.Duration(i) * time.Second), Tool: "assert_equals", Args: json.RawMessage(fmt.Sprintf(`{"actual":%d,"expected":1}`, i)),
			Value: json.RawMessage(fmt.Sprintf(`{"passed":%v}`, passed))})
	}
	r.Flush(context.Background())
	h, err := s.History(context.Background(), "assert_equals expected=1")
	if err != nil {
		t.Fatal(err)
	}
	if h.Runs != 5 || h.Failures != 2 || h.Flips != 3 || h.Flakiness != 0.75 {
		t.Errorf("history: %+v", h)
	}
}

func TestPaging(t *testing.T) {
	s := openTemp(t)
	r := NewRecorder(s, RecorderOptions{})
	for i := range 250 {
		r.Call(Entry{Start: time.Now(), Tool: fmt.Sprintf("t%d", i%3), Args: json.RawMessage(`{}`), Value: json.RawMessage(`1`)})
	}
	r.Flush(context.Background())
	seen := map[int64]bool{}
	var before int64
	for pages := 0; ; pages++ {
		calls, next, err := s.Calls(context.Background(), CallFilter{Before: before, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			if seen[c.ID] {
				t.Fatalf("call %d on two pages", c.ID)
			}
			seen[c.ID] = true
		}
		if next == 0 {
			if pages != 2 {
				t.Errorf("%d pages, want 3", pages+1)
			}
			break
		}
		before = next
	}
	if len(seen) != 250 {
		t.Errorf("%d calls paged, want 250", len(seen))
	}
	if _, _, err := s.Calls(context.Background(), CallFilter{Outcome: "maybe"}); err == nil || !strings.Contains(err.Error(), "ok, error") {
		t.Errorf("a bad outcome: %v", err)
	}
	if err := s.Prune(context.Background(), 0, 100); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := s.CallCount(context.Background()); n != 100 {
		t.Errorf("after pruning to 100: %d", n)
	}
}

// Prune keeps the calls within the retention and deletes the older ones,
// also when every call is older.
func TestPruneByAge(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	r := NewRecorder(s, RecorderOptions{})
	old, recent := time.Now().Add(-2*time.Hour), time.Now()
	for i := range 10 {
		at := old
		if i >= 4 {
			at = recent
		}
		r.Call(Entry{Start: at, Tool: "hash_text", Args: json.RawMessage(`{}`), Value: json.RawMessage(`{}`)})
	}
	r.Flush(context.Background())
	if err := s.Prune(context.Background(), time.Hour, 0); err != nil {
		t.Fatal(err)
	}
	calls, _, err := s.Calls(context.Background(), CallFilter{})
	if err != nil || len(calls) != 6 {
		t.Fatalf("after pruning: %d calls (%v), want the 6 recent ones", len(calls), err)
	}
	for _, c := range calls {
		if c.Time.Before(recent.Add(-time.Second)) {
			t.Errorf("call %d of %v outlived the retention", c.ID, c.Time)
		}
	}
	time.Sleep(5 * time.Millisecond)
	if err := s.Prune(context.Background(), time.Millisecond, 0); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := s.CallCount(context.Background()); n != 0 {
		t.Errorf("every call older than the retention: %d left", n)
	}
}

// The front's side of recording: an append under a mutex. It must not
// allocate once the buffer has grown (no garbage per call).
func TestRecordingDoesNotAllocate(t *testing.T) {
	r := NewRecorder(openTemp(t), RecorderOptions{})
	e := Entry{Start: time.Now(), Tool: "hash_text", Args: json.RawMessage(`{}`), Value: json.RawMessage(`{}`)}
	for range 1000 {
		r.Call(e)
	}
	r.Flush(context.Background())
	for range 1000 {
		r.Call(e)
	}
	r.Flush(context.Background())
	if n := testing.AllocsPerRun(500, func() { r.Call(e) }); n != 0 {
		t.Errorf("recording a call allocates %v times", n)
	}
}

// BenchmarkRecordCall is the front's cost of recording one call (the goal
// is under 2 µs, with no system call: an append under a mutex).
func BenchmarkRecordCall(b *testing.B) {
	r := NewRecorder(openTemp(b), RecorderOptions{})
	e := Entry{Start: time.Now(), Tool: "hash_text", Args: json.RawMessage(`{"text":"hello"}`), Value: json.RawMessage(`{"hash":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}`)}
	n := 0
	for b.Loop() {
		r.Call(e)
		if n++; n == 4096 { // as the flusher takes the buffer
			r.mu.Lock()
			r.pending = r.pending[:0]
			r.mu.Unlock()
			n = 0
		}
	}
}

// BenchmarkRecordFlush is the flusher's cost per call (off the call's
// path: encoding, redaction, one transaction per batch), in batches of
// 200 calls, as 1,000 calls a second would come in 200 ms, with the
// default bounds held after each flush: on an SQLite file and on a
// PostgreSQL database over loopback.
func BenchmarkRecordFlush(b *testing.B) {
	for _, db := range []string{"sqlite", "postgres"} {
		b.Run(db, func(b *testing.B) {
			r := NewRecorder(openOn(b, db), RecorderOptions{KindOf: kinds, Bounds: Bounds{MaxCalls: 200_000, MaxBytes: 256 << 20}})
			e := Entry{Start: time.Now(), Tool: "hash_text", Args: json.RawMessage(`{"text":"hello"}`), Value: json.RawMessage(`{"hash":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}`)}
			for b.Loop() {
				for range 200 {
					r.Call(e)
				}
				r.Flush(context.Background())
			}
			if st := r.Status(); st.Paused || st.Dropped > 0 {
				b.Fatalf("recording did not keep up: %+v", st)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*200)/1000, "µs/call")
		})
	}
}

// Ok calls are written with fewer columns (plainCall) and the rest with
// all of them, chunk by chunk: every call reads back as it was recorded,
// in order, whichever way its chunk was written.
func TestPlainAndFullCallsReadBackAlike(t *testing.T) {
	s := openTemp(t)
	r := NewRecorder(s, RecorderOptions{})
	t0 := time.Now()
	var want []Entry
	for i := range 3*callsPerInsert + 5 {
		e := Entry{Start: t0.Add(time.Duration(i) * time.Millisecond), Duration: time.Duration(i) * time.Microsecond, Tool: "hash_text", Session: "s1",
			Args: json.RawMessage(fmt.Sprintf(`{"text":"%d"}`, i)), Value: json.RawMessage(fmt.Sprintf(`{"hash":"h%d"}`, i)), Igor: "igor-1"}
		switch {
		case i == 40: // a failed call: its chunk is written in full
			e.Value, e.Code, e.Message = nil, "TIMEOUT", "took too long"
		case i == 100: // a result over the cut
			e.Value = json.RawMessage(`"` + strings.Repeat("r", ResultCut) + `"`)
		}
		r.Call(e)
		want = append(want, e)
	}
	r.Flush(context.Background())
	for i, e := range want {
		d, err := s.Call(context.Background(), int64(i+1)) // a new record: ids from 1
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		wantOutcome, wantResult := "ok", string(e.Value)
		if e.Code != "" {
			wantOutcome, wantResult = "error", e.Message
		}
		if len(wantResult) > ResultCut {
			wantResult = wantResult[:ResultCut]
		}
		if d.Tool != e.Tool || d.Session != "s1" || d.Igor != "igor-1" || d.DurationUs != int64(i) || d.Outcome != wantOutcome || d.Code != e.Code ||
			d.Args != string(e.Args) || d.FullArgs != string(e.Args) || d.Result != wantResult || d.Truncated != (i == 100) || !d.Time.Equal(e.Start.Truncate(time.Microsecond)) {
			t.Fatalf("call %d read back as %+v", i, d)
		}
	}
}
