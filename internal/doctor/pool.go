package doctor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/supervise"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/wire"
)

// PoolOptions configure a Pool.
type PoolOptions struct {
	// Command starts one Igor, such as [/usr/local/bin/barrhawk igor].
	Command []string
	// Env is the Igors' environment; nil inherits the front's.
	Env []string
	// Igors is the pool configuration.
	Igors config.Igors
	// DefaultTimeout is sent to each Igor as its default task timeout.
	DefaultTimeout time.Duration
	// FSRoot confines the filesystem permission of dynamic tools.
	FSRoot string
	// ScreenshotDir is where the browser tools write files.
	ScreenshotDir string
	// RecordDB is the record's SQLite file the Igors import reports into
	// and read test histories from; empty when dashboard.record is off.
	RecordDB string
	// Results bounds each result; sent to each Igor.
	Results tool.ResultLimits
	// OwnAddrs are the front's listen addresses, which dynamic tools'
	// ctx.fetch refuses; sent to each Igor.
	OwnAddrs []string
	// Docker is the docker.* configuration; sent to each Igor.
	Docker *wire.DockerConfig
	// GitHubAPI is the github.api setting; sent to each Igor.
	GitHubAPI string
	Log       *slog.Logger
	Events    *Events
	// TaskEvents emits task:started and task:completed for every call
	// (events.tasks); task:queued and task:failed are always emitted.
	TaskEvents bool
	// OnCrash, if set, is called (on its own goroutine) after an Igor crashes.
	OnCrash func()
}

// Pool runs tools in Igor processes: it spawns them on demand up to
// MaxWorkers, dispatches calls by strategy, pings them, stops idle ones,
// detects crashes, respawns with exponential backoff, retries the calls of a
// dead Igor once on another, and honours request_restart. Serve runs its
// housekeeping; Close stops every Igor.
type Pool struct {
	opts PoolOptions
	log  *slog.Logger

	mu      sync.Mutex
	slots   []*slot
	rr      int
	changed chan struct{} // closed and replaced on every state change
	// backoff counts crashes and failed starts in a row, without a
	// successful task between, and holds spawns back after them.
	backoff  supervise.Backoff
	spawnErr error // the last spawn failure, while no Igor is up
	// startDeaths counts Igors that died before they were ready since one
	// last became ready.
	startDeaths int
	closed      bool
	waiting     int                    // callers waiting for an Igor
	dynamic     []wire.DynamicTool     // the dynamic tools every Igor loads
	all         map[*igorConn]struct{} // every Igor not yet exited, slotted or draining
	// holders maps an affinity key (withAffinity) to the Igor that holds
	// that state: its calls go there while it lives.
	holders map[string]*igorConn
	// quick maps a lane's name to the Igor taking its quick calls.
	quick map[string]*igorConn
	// spare is the Igor process started ahead of need (spare.go); nil
	// when igors.spare is off.
	spare *supervise.Spare

	seq atomic.Uint64
	wg  sync.WaitGroup // one per Igor process, until its exit is handled
}

type slot struct {
	id       string
	ig       *igorConn
	restarts int
}

// Igor states.
const (
	stateStarting = "starting"
	stateReady    = "ready" // shown as idle or busy
	stateDraining = "draining"
	stateStopping = "stopping"
	stateDead     = "dead"
)

type igorConn struct {
	id   string
	slot *slot
	lane *Lane // nil: the general lane of round-robin, single and swarm

	// guarded by Pool.mu
	child      *supervise.Child // nil while launching
	enc        *wire.Encoder    // set with child
	state      string
	inFlight   int
	lastActive time.Time
	stopReason string // set when the front ends it on purpose

	mu sync.Mutex // guards pending, dead and blamed
	// pending delivers the reply of each task sent and not yet answered;
	// whoever takes a task out of it delivers its one reply.
	pending map[string]func(reply)
	dead    bool
	// blamed are the tasks its memory watchdog named as it exited (nil
	// when it named none): only they died of memory; a task sent later is
	// retried as after any crash.
	blamed map[string]bool

	startedAt   time.Time
	toolsLoaded int
	// usage is what the Igor said it holds in its last pong, or in the
	// result of a browser tool that opened or closed tabs since.
	usage      atomic.Pointer[wire.ResourceUsage]
	ready      chan struct{} // closed on ready, or on death before it
	exited     chan struct{} // closed once the exit is handled
	exitStatus string
	oom        atomic.Bool // its stderr said it ran out of memory
	dying      atomic.Bool // it said it is about to exit of memory: send it nothing more
	pongs      supervise.Heartbeat
	// delivering is set while the reader hands a reply on (CallNow's
	// answer can wait on a client that does not read): pings it does
	// not read then are not the Igor's misses.
	delivering atomic.Bool
	done       atomic.Int64
	failed     atomic.Int64
}

type reply struct {
	env    *wire.Envelope
	died   bool   // the Igor died before answering
	reason string // why, when died
	oom    bool   // it died of running out of memory: the call is not retried
}

// NewPool returns a pool; nothing is spawned until the first call.
func NewPool(opts PoolOptions) *Pool {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Events == nil {
		opts.Events = NewEvents(256)
	}
	p := &Pool{
		opts: opts, log: opts.Log, changed: make(chan struct{}), all: map[*igorConn]struct{}{}, holders: map[string]*igorConn{}, quick: map[string]*igorConn{},
		backoff: supervise.Backoff{Base: opts.Igors.SpawnDelay, Max: opts.Igors.BackoffMax, Free: 1},
	}
	if opts.Igors.Spare {
		p.spare = p.newSpare()
	}
	for i := range opts.Igors.MaxWorkers {
		p.slots = append(p.slots, &slot{id: "igor-" + strconv.Itoa(i+1)})
	}
	return p
}

func (p *Pool) notifyLocked() {
	if p.waiting == 0 {
		return // only acquire waits on changed, and it counts itself in waiting
	}
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// acquire picks an Igor for one task and counts the task against it,
// spawning or waiting as needed, for at most wait.
func (p *Pool) acquire(ctx context.Context, name string, lane *Lane, avoid *igorConn, wait time.Duration) (*igorConn, *tool.Error) {
	var deadline <-chan time.Time // started at the first wait: most calls find an Igor at once
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, tool.Errorf(tool.CodeCancelled, "the server is shutting down")
		}
		ig, retryIn := p.pickForLocked(ctx, lane, avoid)
		if ig != nil {
			ig.inFlight++
			ig.lastActive = time.Now()
			p.mu.Unlock()
			return ig, nil
		}
		if err := p.spawnErr; err != nil && !p.anyLiveLocked() {
			p.spawnErr = nil
			p.mu.Unlock()
			return nil, tool.Errorf(tool.CodeWorkerUnavailable, "could not start a worker process (Igor): %v", err)
		}
		ch := p.changed
		p.waiting++
		p.mu.Unlock()
		if deadline == nil {
			p.opts.Events.Emit(Event{Type: EventTaskQueued, Tool: name, Reason: "every Igor of lane " + laneName(lane) + " is busy or starting"})
			d := time.NewTimer(wait)
			defer d.Stop()
			deadline = d.C
		}
		var backoff <-chan time.Time
		var t *time.Timer
		if retryIn > 0 {
			t = time.NewTimer(retryIn)
			backoff = t.C
		}
		var terr *tool.Error
		select {
		case <-ch:
		case <-backoff:
		case <-ctx.Done():
			terr = tool.Errorf(tool.CodeCancelled, "cancelled while waiting for a worker: %v", ctx.Err())
		case <-deadline:
			terr = tool.Errorf(tool.CodeWorkerUnavailable, "no worker process (Igor) became free within %s; see worker_status", wait)
		}
		if t != nil {
			t.Stop()
		}
		p.mu.Lock()
		p.waiting--
		p.mu.Unlock()
		if terr != nil {
			return nil, terr
		}
	}
}

func (p *Pool) anyLiveLocked() bool {
	for _, s := range p.slots {
		if s.ig != nil {
			return true
		}
	}
	return false
}

// anyLane, given to acquire, takes an Igor of any lane (loading dynamic
// tools, which every Igor loads).
var anyLane = &Lane{Name: "*"}

// inLane reports whether ig serves lane.
func inLane(ig *igorConn, lane *Lane) bool {
	if lane == anyLane {
		return true
	}
	if ig.lane == nil || lane == nil {
		return ig.lane == lane
	}
	return ig.lane.Name == lane.Name
}

// holdsStateLocked reports whether ig holds state that would be lost if it
// were stopped for idleness or to give its slot up: open database
// connections, gh_connect connections, fs_watch watchers or browser tabs
// (from its last pong; a browser unused for igors.browserIdleTimeout
// closes itself, and then its Igor may go).
func (p *Pool) holdsStateLocked(ig *igorConn) bool {
	u := ig.usage.Load()
	return u != nil && (u.DBConnections > 0 || u.Watchers > 0 || u.GitHubConnections > 0 || u.BrowserPages > 0)
}

// pickLocked chooses an Igor of lane by strategy. When none can take the
// task now it may start a spawn, and returns how long until a spawn is
// allowed (backoff).
func (p *Pool) pickLocked(lane *Lane, avoid *igorConn) (*igorConn, time.Duration) {
	limit := p.opts.Igors.MaxTasksPerIgor
	usable := func(ig *igorConn) bool {
		return ig != nil && ig.state == stateReady && ig.inFlight < limit && (ig != avoid || avoid == nil) && !ig.dying.Load() && inLane(ig, lane)
	}
	slots := p.slots
	if p.opts.Igors.Strategy == StrategySingle {
		slots = p.slots[:1]
	}
	n := len(slots)
	// An idle Igor first, in rotation.
	for i := range n {
		s := slots[(p.rr+i)%n]
		if usable(s.ig) && s.ig.inFlight == 0 {
			p.rr = (p.rr + i + 1) % n
			return s.ig, 0
		}
	}
	// Otherwise start one more if the lane has room (as many at once as
	// there are callers waiting), and meanwhile share the least loaded.
	var retryIn time.Duration
	starting, members := 0, 0
	for _, s := range slots {
		if s.ig != nil && inLane(s.ig, lane) {
			members++
			if s.ig.state == stateStarting {
				starting++
			}
		}
	}
	laneMax := n
	if lane != nil && lane.Max > 0 {
		laneMax = min(lane.Max, n)
	}
	if starting <= p.waiting && members < laneMax {
		if s := p.freeSlotLocked(slots, lane); s != nil {
			if wait := time.Until(p.backoff.Next()); wait > 0 {
				retryIn = wait
			} else {
				spawnLane := lane
				if lane == anyLane {
					spawnLane = nil
				}
				p.spawnLocked(s, spawnLane)
			}
		}
	}
	var best *igorConn
	for i := range n {
		s := slots[(p.rr+i)%n]
		if usable(s.ig) && (best == nil || s.ig.inFlight < best.inFlight) {
			best = s.ig
		}
	}
	if best != nil {
		p.rr = (p.rr + 1) % n
	}
	return best, retryIn
}

// freeSlotLocked returns an empty slot, or frees one held by an idle Igor
// of another lane (which is stopped), or nil when every slot is busy.
func (p *Pool) freeSlotLocked(slots []*slot, lane *Lane) *slot {
	for _, s := range slots {
		if s.ig == nil {
			return s
		}
	}
	if lane == anyLane {
		return nil
	}
	var victim *igorConn
	for _, s := range slots {
		ig := s.ig
		if ig.state == stateReady && ig.inFlight == 0 && !inLane(ig, lane) && !p.holdsStateLocked(ig) && (victim == nil || ig.lastActive.Before(victim.lastActive)) {
			victim = ig
		}
	}
	if victim == nil {
		return nil
	}
	victim.state = stateDraining
	victim.stopReason = "its slot went to lane " + laneName(lane)
	victim.slot.ig = nil
	go p.stop(victim, "")
	return victim.slot
}

// StopLane stops the Igors of a lane (a dissolved squad's), once their
// calls finish.
func (p *Pool) StopLane(name string) {
	p.mu.Lock()
	var gone []*igorConn
	for _, s := range p.slots {
		if s.ig != nil && s.ig.lane != nil && s.ig.lane.Name == name {
			gone = append(gone, s.ig)
		}
	}
	p.mu.Unlock()
	for _, ig := range gone {
		go p.drain(ig, "lane "+name+" ended")
	}
}

// warmLocked starts an Igor in every empty slot, for the swarm strategy,
// which keeps igors.maxWorkers Igors ready.
func (p *Pool) warmLocked() {
	if p.closed || !p.backoff.Ready(time.Now()) {
		return
	}
	for _, s := range p.slots {
		if s.ig == nil {
			p.spawnLocked(s, nil)
		}
	}
}

func laneName(l *Lane) string {
	if l == nil {
		return "general"
	}
	return l.Name
}

// spawnLocked starts an Igor in slot s; it becomes usable once ready.
func (p *Pool) spawnLocked(s *slot, lane *Lane) *igorConn {
	ig := &igorConn{
		id: s.id, slot: s, lane: lane, state: stateStarting, pending: map[string]func(reply){},
		startedAt: time.Now(), lastActive: time.Now(),
		ready: make(chan struct{}), exited: make(chan struct{}),
	}
	s.ig = ig
	p.all[ig] = struct{}{}
	p.wg.Add(1)
	go p.launch(ig)
	return ig
}

func (p *Pool) launch(ig *igorConn) {
	defer p.wg.Done()
	fail := func(err error) {
		p.log.Error("starting an Igor failed", "igor", ig.id, "err", err)
		p.mu.Lock()
		ig.state = stateDead
		if ig.slot.ig == ig {
			ig.slot.ig = nil
		}
		delete(p.all, ig)
		p.spawnErr = err
		p.backoff.Fail()
		p.notifyLocked()
		p.mu.Unlock()
		close(ig.ready)
		close(ig.exited)
	}
	child, err := p.startIgor(ig)
	if err != nil {
		fail(err)
		return
	}
	enc := wire.NewEncoder(child.Stdin)
	ig.pongs.Start()
	p.mu.Lock()
	ig.child, ig.enc = child, enc
	dyn := p.dynamic
	stopped := ig.state == stateStopping // stop or kill came while it was exec'd: they wait for its exit
	p.mu.Unlock()
	if stopped {
		go child.Proc.Stop(p.opts.Igors.ShutdownGrace)
	}
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		p.read(ig, wire.NewDecoderMax(child.Stdout, p.lineLimit()))
	}()

	initErr := enc.Encode(wire.Init{
		Type: wire.TypeInit, ID: ig.id, ToolBag: p.toolBag(ig), DynamicBag: p.dynamicBag(ig), DynamicTools: dyn,
		Config: wire.InitConfig{
			Timeout: p.opts.DefaultTimeout.Milliseconds(), StopGrace: p.opts.Igors.StopGrace.Milliseconds(), BrowserHeadless: p.opts.Igors.BrowserHeadless, BrowserIdleTimeout: p.opts.Igors.BrowserIdleTimeout.Milliseconds(), ScreenshotDir: p.opts.ScreenshotDir, RecordDB: p.opts.RecordDB,
			BrowserTestIDAttribute: p.opts.Igors.BrowserTestIDAttribute,
			MemoryLimit:            p.opts.Igors.MemoryLimit, FSRoot: p.opts.FSRoot,
			MaxResultBytes: p.opts.Results.Cut, MaxResultHardBytes: p.opts.Results.Hard, OwnAddrs: p.opts.OwnAddrs,
			Docker: p.opts.Docker, GitHubAPI: p.opts.GitHubAPI,
		},
	})
	spawnTimer := time.NewTimer(p.opts.Igors.SpawnTimeout)
	select {
	case <-ig.ready:
		p.fillSpare()
	case <-child.Proc.Done():
	case <-spawnTimer.C:
		p.log.Error("Igor did not become ready in time; killing it", "igor", ig.id, "timeout", p.opts.Igors.SpawnTimeout)
		p.setStopReason(ig, "did not become ready within "+p.opts.Igors.SpawnTimeout.String())
		child.Proc.Kill()
	}
	spawnTimer.Stop()
	if initErr != nil {
		p.log.Warn("sending init", "igor", ig.id, "err", initErr)
	}
	// Its stderr is read to the end first: its last words may say it ran
	// out of memory.
	child.Wait(readerDone)
	p.exited(ig)
}

func (p *Pool) setStopReason(ig *igorConn, reason string) {
	p.mu.Lock()
	if ig.stopReason == "" {
		ig.stopReason = reason
	}
	p.mu.Unlock()
}

// lineLimit is the longest line the front reads from an Igor. The Igor
// keeps every answer within tools.maxResultHardBytes; the front holds it to
// that too.
func (p *Pool) lineLimit() int { return p.opts.Results.MessageLimit(wire.MaxLine) }

// read handles everything the Igor writes on stdout.
func (p *Pool) read(ig *igorConn, dec *wire.Decoder) {
	for {
		env, err := dec.Decode()
		if err != nil {
			var se *wire.SyntaxError
			if !errors.As(err, &se) {
				return
			}
			p.log.Warn("Igor wrote a line that is not a message", "igor", ig.id, "err", err)
			if errors.Is(err, wire.ErrTooLong) {
				p.answerTooLong(ig, se.MessageID())
			}
			continue
		}
		switch env.Kind() {
		case wire.KindResult, wire.KindToolsLoaded:
			if env.Error != nil && env.Error.Code == tool.CodeMemoryLimit {
				ig.dying.Store(true) // its watchdog is ending it
			}
			if env.Resources != nil {
				// A browser tool changed its tabs: stored before the
				// caller has its answer, so worker_status after it is
				// current.
				ig.usage.Store(env.Resources)
			}
			if deliver := ig.take(env.ID); deliver != nil {
				ig.delivering.Store(true)
				deliver(reply{env: env})
				ig.delivering.Store(false)
			}
		case wire.KindPong:
			if env.ResourceUsage != nil {
				ig.usage.Store(env.ResourceUsage)
			}
			ig.pongs.Beat()
		case wire.KindReady:
			p.mu.Lock()
			if ig.state == stateStarting {
				ig.state = stateReady
				ig.toolsLoaded = env.ToolsLoaded
				p.spawnErr = nil
				p.startDeaths = 0
			}
			p.notifyLocked()
			p.mu.Unlock()
			close(ig.ready)
			p.opts.Events.Emit(Event{Type: EventIgorSpawned, Igor: ig.id, Reason: fmt.Sprintf("pid %d, %d tools, ready in %s", env.PID, env.ToolsLoaded, time.Since(ig.startedAt).Round(time.Microsecond))})
		case wire.KindRequestRestart:
			p.log.Warn("Igor asked to be replaced", "igor", ig.id, "reason", env.Reason)
			go p.drain(ig, "requested restart: "+env.Reason) // not here: stopping waits for this reader to end
		case wire.KindFatal:
			p.log.Error("Igor failed", "igor", ig.id, "reason", env.Reason)
			p.mu.Lock()
			p.spawnErr = errors.New(env.Reason)
			p.mu.Unlock()
			p.setStopReason(ig, "fatal: "+env.Reason)
		case wire.KindShutdownAck:
			p.log.Debug("Igor shut down", "igor", ig.id, "cleanedUp", env.CleanedUp)
		default:
			p.log.Warn("unexpected message from Igor", "igor", ig.id, "type", env.Type)
		}
	}
}

// answerTooLong answers the call whose answer was a line over lineLimit,
// which was skipped: the Igor itself is well.
func (p *Pool) answerTooLong(ig *igorConn, id string) {
	deliver := ig.take(id)
	if deliver == nil {
		return
	}
	deliver(reply{env: &wire.Envelope{ID: id, Status: wire.StatusError, Error: tool.Errorf(tool.CodeResultTooLarge,
		"the answer of %s was over the %d bytes the front reads from a worker (tools.maxResultHardBytes and 1 MiB for the message), so it was dropped. Ask for less: narrow the call, or have the tool write the whole to a file and read that in parts.", ig.id, p.lineLimit())}})
}

// igorStderr is what an Igor's stderr lines go to: each is logged, and
// one that says it is dying of memory marks it so, with the tasks its
// watchdog blamed.
func (p *Pool) igorStderr(ig *igorConn) func(string) {
	log := p.log.With("igor", ig.id)
	return func(text string) {
		if diedOfMemory(text) {
			ig.dying.Store(true)
			ig.oom.Store(true)
			if ids, ok := wire.ParseMemoryLimitLine(text); ok {
				ig.mu.Lock()
				ig.blamed = map[string]bool{}
				for _, id := range ids {
					ig.blamed[id] = true
				}
				ig.mu.Unlock()
			}
		}
		log.Info("igor: " + text)
	}
}

// diedOfMemory reports whether a line an Igor wrote on stderr says it is
// dying for lack of memory: its watchdog's wire.MemoryLimitLine, or the Go
// runtime's own last words when an allocation is refused (RLIMIT_AS):
// "runtime: out of memory: cannot allocate …", "fatal error: out of
// memory". A log line that merely mentions memory (a dynamic tool's
// console.log, say) does not count: log lines begin with their time.
func diedOfMemory(line string) bool {
	return strings.HasPrefix(line, wire.MemoryLimitExit) ||
		strings.HasPrefix(line, "runtime: out of memory") ||
		strings.HasPrefix(line, "fatal error:") && strings.Contains(line, "out of memory")
}

// exited records an Igor's end: crash or not, its pending calls learn it died.
func (p *Pool) exited(ig *igorConn) {
	status := ig.child.Proc.ExitStatus()
	p.mu.Lock()
	crashed := ig.stopReason == "" && !p.closed
	reason := ig.stopReason
	if crashed {
		reason = "crashed: " + status
		if ig.oom.Load() {
			reason = "ran out of memory: " + status
			if l := p.opts.Igors.MemoryLimit; l > 0 {
				reason = fmt.Sprintf("ran out of memory (memory limit %d MiB, igors.memoryLimit): %s", l>>20, status)
			}
		}
		ig.slot.restarts++
		p.backoff.Fail()
		if p.opts.OnCrash != nil {
			go p.opts.OnCrash()
		}
	}
	wasStarting := ig.state == stateStarting
	ig.state = stateDead
	ig.exitStatus = status
	delete(p.all, ig)
	p.forgetLocked(ig)
	if ig.slot.ig == ig {
		ig.slot.ig = nil
	}
	// An Igor killed while it started (a kill from outside, chaos) is
	// replaced like any other, and the calls waiting for one go on
	// waiting; Igors that keep dying before they are ready fail them.
	if wasStarting {
		p.startDeaths++
		if p.startDeaths >= maxStartDeaths && p.spawnErr == nil {
			p.spawnErr = fmt.Errorf("%s exited before it was ready (%d Igors in a row): %s", ig.id, p.startDeaths, status)
		}
	}
	p.notifyLocked()
	p.mu.Unlock()

	ig.mu.Lock()
	ig.dead = true
	pending, blamed := ig.pending, ig.blamed
	ig.pending = nil
	ig.mu.Unlock()
	for id, deliver := range pending {
		// A death of memory is its tasks' fault, unless the watchdog named
		// others: then this one only came to a dying Igor.
		oom := ig.oom.Load() && (blamed == nil || blamed[id])
		deliver(reply{died: true, reason: reason, oom: oom})
	}
	if wasStarting {
		close(ig.ready)
	}
	close(ig.exited)
	typ := EventIgorTerminated
	if crashed {
		typ = EventIgorCrashed
	}
	if !crashed { // a crash's reason has the status already
		reason += " (" + status + ")"
	}
	p.opts.Events.Emit(Event{Type: typ, Igor: ig.id, Reason: reason})
}

// maxStartDeaths is how many Igors in a row may die before they are ready
// until the calls waiting for one answer WORKER_UNAVAILABLE.
const maxStartDeaths = 3

// release uncounts a finished task and records its outcome.
func (p *Pool) release(ig *igorConn, r reply) {
	ok := !r.died && r.env != nil && r.env.Status == wire.StatusSuccess
	if ok {
		ig.done.Add(1)
	} else {
		ig.failed.Add(1)
	}
	p.mu.Lock()
	ig.inFlight--
	ig.lastActive = time.Now()
	if ok {
		p.backoff.Reset()
	}
	stop := ig.state == stateDraining && ig.inFlight == 0
	p.notifyLocked()
	p.mu.Unlock()
	if stop {
		go p.stop(ig, "") // not waited for: the caller may be its reader
	}
}

// drain takes an Igor out of dispatch and stops it once its calls finish.
func (p *Pool) drain(ig *igorConn, reason string) {
	p.mu.Lock()
	if ig.state != stateReady && ig.state != stateStarting {
		p.mu.Unlock()
		return
	}
	ig.state = stateDraining
	if ig.stopReason == "" {
		ig.stopReason = reason
	}
	idle := ig.inFlight == 0
	if ig.slot.ig == ig {
		ig.slot.ig = nil // the slot may get a fresh Igor meanwhile
		ig.slot.restarts++
	}
	p.notifyLocked()
	p.mu.Unlock()
	if idle {
		p.stop(ig, "")
	}
}

// stop ends an Igor gracefully: shutdown message, then SIGTERM and SIGKILL
// to its group if it lingers. It returns once the Igor is gone.
func (p *Pool) stop(ig *igorConn, reason string) {
	p.mu.Lock()
	if ig.state == stateStopping || ig.state == stateDead {
		p.mu.Unlock()
		<-ig.exited
		return
	}
	ig.state = stateStopping
	if ig.stopReason == "" {
		ig.stopReason = reason
	}
	if ig.slot.ig == ig {
		ig.slot.ig = nil
	}
	p.notifyLocked()
	child, enc := ig.child, ig.enc
	p.mu.Unlock()
	if child != nil { // else still launching
		child.Stop(p.opts.Igors.ShutdownGrace, func() {
			_ = enc.Encode(wire.Shutdown{Type: wire.TypeShutdown, Graceful: true}) // a dead pipe is fine: it is going anyway
		})
	}
	<-ig.exited
}

// kill ends an unresponsive Igor at once.
func (p *Pool) kill(ig *igorConn, reason string) {
	p.log.Warn("killing an unresponsive Igor", "igor", ig.id, "reason", reason)
	p.mu.Lock()
	if ig.stopReason == "" {
		ig.stopReason = reason
	}
	if ig.slot.ig == ig {
		ig.slot.ig = nil
		ig.slot.restarts++
	}
	ig.state = stateStopping
	p.notifyLocked()
	child := ig.child
	p.mu.Unlock()
	if child != nil {
		go child.Proc.Kill()
	}
}

// Serve pings the Igors every heartbeat interval, replaces those that miss
// three pongs in a row, and stops those idle past the idle timeout, until
// ctx ends; then it stops every Igor.
func (p *Pool) Serve(ctx context.Context) error {
	t := time.NewTicker(p.opts.Igors.HeartbeatInterval)
	defer t.Stop()
	if p.opts.Igors.Strategy == StrategySwarm {
		p.mu.Lock()
		p.warmLocked()
		p.mu.Unlock()
	}
	for {
		select {
		case <-ctx.Done():
			p.Close()
			return nil
		case <-t.C:
			p.housekeep()
		}
	}
}

func (p *Pool) housekeep() {
	now := time.Now()
	var idle, hung []*igorConn
	var live []*igorConn
	p.mu.Lock()
	for _, s := range p.slots {
		ig := s.ig
		if ig == nil || ig.state != stateReady {
			continue
		}
		live = append(live, ig)
		switch {
		case ig.pongs.Misses() >= 3:
			hung = append(hung, ig)
		case ig.inFlight == 0 && now.Sub(ig.lastActive) > p.opts.Igors.IdleTimeout && p.opts.Igors.Strategy != StrategySwarm && !p.holdsStateLocked(ig):
			idle = append(idle, ig)
		}
	}
	if p.opts.Igors.Strategy == StrategySwarm {
		p.warmLocked()
	}
	p.dropSpareLocked()
	p.mu.Unlock()
	for _, ig := range hung {
		p.kill(ig, "missed 3 heartbeats")
	}
	for _, ig := range idle {
		go p.stop(ig, "idle for "+p.opts.Igors.IdleTimeout.String())
	}
	for _, ig := range live {
		if !ig.delivering.Load() { // else its reader waits on our client, not on the Igor
			ig.pongs.Tick(p.opts.Igors.HeartbeatInterval)
		}
		_ = ig.enc.Encode(wire.Ping{Type: wire.TypePing}) // a dead Igor is handled by its exit
	}
}

// Restart stops the Igor named id (every Igor when id is empty), waiting for
// their calls to finish, and starts fresh ones in their place. It returns the
// ids restarted.
func (p *Pool) Restart(ctx context.Context, id string) ([]string, error) {
	p.mu.Lock()
	var old []*igorConn
	for _, s := range p.slots {
		if s.ig != nil && (id == "" || s.id == id) {
			old = append(old, s.ig)
		}
	}
	known := false
	for _, s := range p.slots {
		known = known || s.id == id
	}
	p.mu.Unlock()
	if id != "" && !known {
		return nil, tool.Errorf(tool.CodeNotFound, "no Igor %q; see worker_status for the ids", id)
	}
	var ids []string
	for _, ig := range old {
		p.drain(ig, "restarted by worker_restart")
		ids = append(ids, ig.id)
	}
	for _, ig := range old {
		select {
		case <-ig.exited:
		case <-ctx.Done():
			return ids, ctx.Err()
		}
	}
	// Fresh Igors in the same slots, ready before we answer.
	var fresh []*igorConn
	p.mu.Lock()
	for _, ig := range old {
		if ig.slot.ig == nil && !p.closed {
			fresh = append(fresh, p.spawnLocked(ig.slot, ig.lane))
		}
	}
	p.mu.Unlock()
	for _, ig := range fresh {
		select {
		case <-ig.ready:
		case <-ctx.Done():
			return ids, ctx.Err()
		}
	}
	return ids, nil
}

// Close stops every Igor and waits until all have exited.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	var all []*igorConn
	for ig := range p.all {
		all = append(all, ig)
	}
	p.notifyLocked()
	p.mu.Unlock()
	var wg sync.WaitGroup
	if p.spare != nil {
		wg.Go(p.spare.Close)
	}
	for _, ig := range all {
		wg.Go(func() { p.stop(ig, "server shutting down") })
	}
	wg.Wait()
	p.wg.Wait() // and any that were draining or still launching
}
