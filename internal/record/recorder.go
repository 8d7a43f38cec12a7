package record

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/redact"
	"github.com/barrhawk/barrhawk/internal/stats"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// FlushEvery is how often the recorder writes what it was given and tells
// the live subscribers: a call shows on the dashboard within about this.
const FlushEvery = 200 * time.Millisecond

// MaxPending bounds the calls waiting for the next flush; past it a call
// is counted as dropped rather than held (the front must not grow without
// bound when the disk stalls or the database is away).
const MaxPending = 1 << 16

// MaxPendingBytes bounds the arguments and results of the calls waiting
// for the next flush, as MaxPending bounds their number.
const MaxPendingBytes = 64 << 20

// writeTimeout bounds one flush's write: a database that hangs pauses
// recording as one that refuses does.
const writeTimeout = 10 * time.Second

// Entry is one finished tools/call as the front hands it over: nothing is
// copied or encoded on the call's path, the flusher does that.
type Entry struct {
	Start    time.Time
	Duration time.Duration
	Session  string
	Tool     string
	Args     json.RawMessage
	// Value is the result; Code and Message are set instead for an error.
	Value   json.RawMessage
	Code    string
	Message string
	Igor    string
}

// Live is what the recorder tells subscribers after each flush: a call
// (*Call) or a test (*Test) just written.
type Live struct {
	Kind string // "call" or "test"
	Data any
}

// Recorder buffers calls on the front's hot path and writes them, with the
// test results they hold, to the Store.
type Recorder struct {
	store  *Store
	log    *slog.Logger
	kindOf func(tool string) string
	red    *redact.Redactor
	start  time.Time

	mu           sync.Mutex
	pending      []Entry
	pendingBytes int64
	spare        []Entry
	dropped      int // by Call, since the last flush
	droppedTotal int64
	// paused: the last write failed (a full disk, a database away);
	// calls wait in pending until a write succeeds again, and lost
	// counts those dropped meanwhile. Under mu.
	paused      bool
	pausedAt    time.Time // the last failed try
	pausedSince time.Time
	pauseErr    string
	lost        int
	retryEvery  time.Duration

	subMu sync.Mutex
	subs  map[int]func(Live)
	subN  int

	runs map[string]*Run // session runs of this server start, by key

	bounds Bounds
	notify func(err error, lost int)
	floor  int64 // no call below this id is kept (0: not read yet)
	// written is about what was written since sized, when the record's
	// size was last read.
	written int64
	sized   time.Time
}

// Bounds are what the record keeps at most, held after each flush.
type Bounds struct {
	// MaxCalls: past it the oldest calls go (0: no bound).
	MaxCalls int
	// MaxBytes: past it, in the file's pages in use, the oldest calls go
	// too (0: no bound).
	MaxBytes int64
}

// callRowBytes is about what a call's row and index entries take beside
// its arguments and result.
const callRowBytes = 100

// RetryEvery is how often a paused recorder tries to write again, by
// default.
const RetryEvery = 5 * time.Second

// slack is how far past MaxCalls the calls may go before the oldest are
// deleted: deletes come in runs, not one per flush.
func (b Bounds) slack() int64 { return max(100, int64(b.MaxCalls)/50) }

// RecorderOptions configure a Recorder.
type RecorderOptions struct {
	// KindOf says which test kind a tool's calls are (KindAssertion, ...),
	// or "" for a tool whose calls are not tests.
	KindOf func(tool string) string
	// Redact masks known secrets (URL passwords are always masked).
	Redact *redact.Redactor
	Log    *slog.Logger
	Bounds Bounds
	// Paused is told when recording pauses because the record cannot be
	// written (err says why) and when it resumes (err nil, lost the calls
	// dropped meanwhile). When nil, the recorder logs both.
	Paused func(err error, lost int)
	// RetryEvery is how often a paused recorder tries again. Default
	// RetryEvery.
	RetryEvery time.Duration
}

// NewRecorder returns a recorder writing to s. Run its Run.
func NewRecorder(s *Store, o RecorderOptions) *Recorder {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.KindOf == nil {
		o.KindOf = func(string) string { return "" }
	}
	r := &Recorder{store: s, log: o.Log, kindOf: o.KindOf, red: o.Redact, start: time.Now(),
		subs: map[int]func(Live){}, runs: map[string]*Run{}, bounds: o.Bounds, notify: o.Paused, retryEvery: cmp.Or(o.RetryEvery, RetryEvery)}
	if r.notify == nil {
		r.notify = func(err error, lost int) {
			if err != nil {
				r.log.Warn("record: recording paused, calls are still answered and wait in a bounded buffer", "err", err)
				return
			}
			r.log.Info("record: recording resumed", "dropped", lost)
		}
	}
	return r
}

// Store is the recorder's database.
func (r *Recorder) Store() *Store { return r.store }

// Call records one finished call. It appends to a buffer under a mutex and
// nothing else: no allocation in the steady state, no system call.
func (r *Recorder) Call(e Entry) {
	r.mu.Lock()
	if b := entryBytes(&e); len(r.pending) < MaxPending && r.pendingBytes+b <= MaxPendingBytes {
		r.pending = append(r.pending, e)
		r.pendingBytes += b
	} else {
		r.dropped++
	}
	r.mu.Unlock()
}

// Subscribe calls fn after each flush with what it wrote; fn must not
// block. The returned function ends the subscription.
func (r *Recorder) Subscribe(fn func(Live)) (cancel func()) {
	r.subMu.Lock()
	r.subN++
	id := r.subN
	r.subs[id] = fn
	r.subMu.Unlock()
	return func() {
		r.subMu.Lock()
		delete(r.subs, id)
		r.subMu.Unlock()
	}
}

func (r *Recorder) publish(l Live) {
	r.subMu.Lock()
	defer r.subMu.Unlock()
	for _, fn := range r.subs {
		fn(l)
	}
}

// Run flushes every FlushEvery until ctx ends, then flushes once more.
func (r *Recorder) Run(ctx context.Context) {
	t := time.NewTicker(FlushEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			r.Flush(context.Background())
			return
		case <-t.C:
			r.Flush(ctx)
		}
	}
}

// Flush writes the buffered calls now. When the write fails (a full disk,
// a database that does not answer) recording pauses: the calls stay in
// the buffer, which keeps to MaxPending calls and MaxPendingBytes (past
// them the oldest are dropped and counted), and the write is tried again
// every RetryEvery; the first write that succeeds resumes it.
func (r *Recorder) Flush(ctx context.Context) {
	r.mu.Lock()
	if r.paused && time.Since(r.pausedAt) < r.retryEvery {
		r.mu.Unlock()
		return
	}
	batch, dropped, paused := r.pending, r.dropped, r.paused
	r.pending, r.spare, r.dropped, r.pendingBytes = r.spare[:0], nil, 0, 0
	r.droppedTotal += int64(dropped)
	if paused {
		r.lost += dropped
	}
	r.mu.Unlock()
	if dropped > 0 && !paused {
		r.log.Warn("record: calls dropped, the database is behind", "dropped", dropped)
	}
	if len(batch) == 0 {
		r.giveBack(batch)
		return
	}
	calls := make([]*CallDetail, len(batch))
	type sessionTests struct {
		run   *Run
		tests []*Test
		calls []int // the index in calls of each test's call
	}
	var keys []string
	bySession := map[string]*sessionTests{}
	var tests []*Test
	for i := range batch {
		e := &batch[i]
		c := r.callOf(e)
		calls[i] = c
		if kind := r.kindOf(e.Tool); kind != "" {
			t := testOf(e, kind, r.red)
			key := "session:" + r.start.UTC().Format("20060102T150405.000000") + ":" + r.store.origin.Host + ":" + e.Session
			st := bySession[key]
			if st == nil {
				st = &sessionTests{run: r.sessionRun(key, e)}
				bySession[key] = st
				keys = append(keys, key)
			}
			st.tests, st.calls = append(st.tests, t), append(st.calls, i)
			tests = append(tests, t)
		}
	}
	// A database over the network may hang: bound the write. SQLite's
	// busy timeout bounds its own waits, and a deadline would cost a
	// goroutine per statement in its driver (8-10 % of the flusher).
	wctx, cancel := ctx, context.CancelFunc(func() {})
	if r.store.db.d.numbered {
		wctx, cancel = context.WithTimeout(ctx, writeTimeout)
	}
	err := r.write(wctx, calls, func(tx *tx) error {
		for _, key := range keys {
			st := bySession[key]
			for j, t := range st.tests {
				t.CallID = calls[st.calls[j]].ID
			}
			runID, _, err := runKey(wctx, tx, key, st.run)
			if err != nil {
				return err
			}
			if err := insertTests(wctx, tx, runID, st.run, st.tests); err != nil {
				return err
			}
		}
		return nil
	})
	cancel()
	if err != nil {
		r.hold(batch)
		if ctx.Err() != nil {
			return // serve is ending
		}
		r.mu.Lock()
		first := !r.paused
		r.paused, r.pausedAt = true, time.Now()
		if first {
			r.pausedSince, r.pauseErr = r.pausedAt, redactErr(err).Error()
		}
		r.mu.Unlock()
		if first {
			r.notify(fmt.Errorf("record: writing %d calls to %s: %w", len(calls), r.store.path, redactErr(err)), 0)
		}
		return
	}
	clear(batch) // the results may be large: let them go now
	r.giveBack(batch)
	r.mu.Lock()
	resumed, lost := r.paused, r.lost
	r.paused, r.pauseErr, r.lost = false, "", 0
	r.mu.Unlock()
	if resumed {
		r.notify(nil, lost)
	}
	for _, c := range calls {
		r.written += int64(len(c.FullArgs) + len(c.Result) + callRowBytes)
	}
	if err := r.bound(ctx, slices.MaxFunc(calls, func(a, b *CallDetail) int { return cmp.Compare(a.ID, b.ID) }).ID); err != nil && ctx.Err() == nil {
		r.log.Warn("record: keeping to dashboard.maxCalls and maxBytes", "err", redactErr(err))
	}
	for _, c := range calls {
		r.publish(Live{Kind: "call", Data: &c.Call})
	}
	for _, t := range tests {
		r.publish(Live{Kind: "test", Data: t})
	}
}

// hold puts a batch that could not be written back in front of the calls
// that came meanwhile, keeping to MaxPending and MaxPendingBytes: past
// them the oldest calls are dropped, and counted as lost.
func (r *Recorder) hold(batch []Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	came := r.pending
	all := append(batch, came...)
	var bytes int64
	from := len(all)
	for from > 0 && len(all)-from < MaxPending {
		b := entryBytes(&all[from-1])
		if bytes+b > MaxPendingBytes {
			break
		}
		bytes += b
		from--
	}
	if from > 0 {
		r.lost += from
		r.droppedTotal += int64(from)
		clear(all[:from])
	}
	r.pending, r.pendingBytes = all[from:], bytes
	if cap(came) > 0 { // copied into all: its array is the next spare
		clear(came)
		r.spare = came[:0]
	}
}

// entryBytes is about what an entry holds in memory beyond its fields.
func entryBytes(e *Entry) int64 { return int64(len(e.Args) + len(e.Value) + len(e.Message)) }

// RecordStatus is how recording goes.
type RecordStatus struct {
	// Database is "sqlite" or "postgres"; Path the file or the URL,
	// password masked.
	Database string `json:"database"`
	Path     string `json:"path"`
	// Paused says the last write failed, since PausedSince, for Error;
	// calls wait in the buffer meanwhile.
	Paused      bool      `json:"paused"`
	PausedSince time.Time `json:"pausedSince,omitzero"`
	Error       string    `json:"error,omitempty"`
	// Pending is the calls waiting in the buffer, Dropped those dropped
	// since the server started (a full buffer).
	Pending int   `json:"pending"`
	Dropped int64 `json:"dropped"`
}

// Status is how recording goes now.
func (r *Recorder) Status() RecordStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return RecordStatus{Database: r.store.Dialect(), Path: r.store.path, Paused: r.paused, PausedSince: r.pausedSince, Error: r.pauseErr,
		Pending: len(r.pending), Dropped: r.droppedTotal + int64(r.dropped)}
}

// bound deletes the oldest calls past MaxCalls, and past MaxBytes, after
// a flush whose newest call is newest: within a flush or two of going
// past, at any rate, a chunk at a time.
func (r *Recorder) bound(ctx context.Context, newest int64) error {
	b := r.bounds
	if b.MaxCalls <= 0 && b.MaxBytes <= 0 {
		return nil
	}
	if r.floor == 0 {
		var first sql.NullInt64
		if err := r.store.db.QueryRowContext(ctx, `SELECT min(id) FROM calls`).Scan(&first); err != nil {
			return fmt.Errorf("the oldest call: %w", err)
		}
		r.floor = max(1, first.Int64)
	}
	if b.MaxCalls > 0 && newest-r.floor >= int64(b.MaxCalls)+b.slack() {
		last := min(newest-int64(b.MaxCalls), r.floor+3*pruneChunk-1)
		if err := r.store.DeleteCallsThrough(ctx, last); err != nil {
			return err
		}
		r.floor = last + 1
	}
	// The size is read when a sixty-fourth of the bound may have been
	// written since it last was (or ten seconds passed), not at every
	// flush.
	if b.MaxBytes > 0 && (r.written >= b.MaxBytes/64 || time.Since(r.sized) > 10*time.Second) {
		r.written, r.sized = 0, time.Now()
		size, err := r.store.Size(ctx)
		if err != nil {
			return err
		}
		if size > b.MaxBytes {
			// A tenth of what is kept goes, so that the next rows fit
			// in the pages freed.
			last := r.floor + max(100, (newest-r.floor)/10)
			if err := r.store.DeleteCallsThrough(ctx, min(last, newest)); err != nil {
				return err
			}
			r.floor = min(last, newest) + 1
			r.written = b.MaxBytes // read the size again at the next flush
		}
	}
	return nil
}

// giveBack keeps the batch's array for the next one.
func (r *Recorder) giveBack(batch []Entry) {
	r.mu.Lock()
	if r.spare == nil {
		r.spare = batch[:0]
	}
	r.mu.Unlock()
}

// write inserts the calls and runs more in one transaction.
func (r *Recorder) write(ctx context.Context, calls []*CallDetail, more func(*tx) error) error {
	tx, err := r.store.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := insertCalls(ctx, tx, calls); err != nil {
		return err
	}
	if err := more(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// sessionRun is the run of a session's tests in this server start.
func (r *Recorder) sessionRun(key string, e *Entry) *Run {
	if run, ok := r.runs[key]; ok {
		return run
	}
	who := e.Session
	if who == "" {
		who = "stdio"
	}
	run := &Run{Kind: RunSession, Name: fmt.Sprintf("MCP session %s (server started %s)", who, r.start.Format("2006-01-02 15:04:05")),
		Session: e.Session, Started: e.Start, Ended: e.Start, Origin: r.store.origin}
	r.runs[key] = run
	return run
}

// callOf is the record of one call: arguments redacted and cut.
func (r *Recorder) callOf(e *Entry) *CallDetail {
	args := r.red.String(string(e.Args))
	args = redactKeys(args)
	c := &CallDetail{Call: Call{Time: e.Start, Session: e.Session, Tool: e.Tool, Args: tool.Shorten(args, ArgsCut),
		DurationUs: e.Duration.Microseconds(), Outcome: "ok", Igor: e.Igor, ResultBytes: len(e.Value)}}
	c.FullArgs = tool.Shorten(args, ResultCut)
	if e.Code != "" {
		c.Outcome, c.Code = "error", e.Code
		msg := r.red.String(e.Message)
		c.Message, c.Result = tool.Shorten(msg, ArgsCut), tool.Shorten(msg, ResultCut)
		c.ResultBytes = len(e.Message)
		return c
	}
	res := e.Value
	if len(res) > ResultCut {
		res, c.Truncated = res[:ResultCut], true
	}
	c.Result = r.red.String(string(res))
	return c
}

// secretWords are the parts of argument names whose values are secrets.
var secretWords = []string{"password", "passwd", "secret", "token", "apikey", "api_key", "authorization", "credential", "privatekey", "private_key"}

// secretHints are what text must hold for one of secretWords to be in it.
var secretHints = []string{"pass", "secret", "token", "key", "auth", "credential"}

// secretKey is an argument name whose value is a secret.
func secretKey(k string) bool {
	return slices.ContainsFunc(secretWords, func(w string) bool { return redact.ContainsFold(k, w) })
}

// redactKeys masks the values of secret-named keys in a JSON object text;
// text that is not a JSON object is returned as it is.
func redactKeys(s string) string {
	if !slices.ContainsFunc(secretHints, func(w string) bool { return redact.ContainsFold(s, w) }) {
		return s
	}
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	if !maskKeys(v) {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

func maskKeys(v any) bool {
	changed := false
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if _, isStr := val.(string); isStr && secretKey(k) {
				x[k] = redact.Mask
				changed = true
				continue
			}
			changed = maskKeys(val) || changed
		}
	case []any:
		for _, val := range x {
			changed = maskKeys(val) || changed
		}
	}
	return changed
}

// percentiles returns the 50th, 95th and 99th percentiles of x.
func percentiles(x []float64) (p50, p95, p99 float64) {
	s := stats.Sorted(x)
	return stats.Percentile(s, 50), stats.Percentile(s, 95), stats.Percentile(s, 99)
}
