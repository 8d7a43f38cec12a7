package supervise

import (
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// Spare keeps one child started ahead of need, so that its owner's next
// start costs only the child's own handshake instead of an exec and the
// child's start-up (for a large Go binary, tens of milliseconds on a busy
// machine against about one for the handshake). The spare waits, silent,
// for its first message on stdin. A spare that dies while it waits is
// dropped and not replaced until the next Fill, so that a child that cannot
// start does not loop. Safe for concurrent use.
type Spare struct {
	// New builds the command of the next spare.
	New func() *exec.Cmd
	// OnStderr hears a waiting spare's stderr lines; once taken, they go
	// where Take says. Nil discards them.
	OnStderr func(line string)
	// OnError hears of a spare that failed to start.
	OnError func(error)
	// Grace is how long a spare dropped has to exit after its stdin is
	// closed before it is signalled (Child.Stop).
	Grace time.Duration

	mu      sync.Mutex
	waiting *spare
	filling bool
	closed  bool
	wg      sync.WaitGroup // the fills and the waits of spares not taken
}

// spare is a child waiting to be taken.
type spare struct {
	c      *Child
	stderr atomic.Pointer[func(string)] // where its stderr lines go now
	taken  chan struct{}                // closed by Take or Drop: its watcher lets go
}

func (sp *spare) line(s string) {
	if f := sp.stderr.Load(); f != nil && *f != nil {
		(*f)(s)
	}
}

// Fill starts a spare in the background, unless one waits, one is being
// started, or the Spare is closed.
func (s *Spare) Fill() {
	s.mu.Lock()
	if s.closed || s.filling || s.waiting != nil {
		s.mu.Unlock()
		return
	}
	s.filling = true
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		sp := &spare{taken: make(chan struct{})}
		sp.stderr.Store(&s.OnStderr)
		c, err := Start(s.New(), ChildOptions{OnStderr: sp.line})
		s.mu.Lock()
		s.filling = false
		if err != nil {
			s.mu.Unlock()
			if s.OnError != nil {
				s.OnError(err)
			}
			return
		}
		sp.c = c
		if s.closed {
			s.mu.Unlock()
			s.discard(sp)
			return
		}
		s.waiting = sp
		s.wg.Add(1)
		s.mu.Unlock()
		go s.watch(sp)
	}()
}

// watch drops sp if it dies while it waits.
func (s *Spare) watch(sp *spare) {
	defer s.wg.Done()
	select {
	case <-sp.taken:
		return
	case <-sp.c.Proc.Done():
	}
	s.mu.Lock()
	mine := s.waiting == sp
	if mine {
		s.waiting = nil
	}
	s.mu.Unlock()
	if mine {
		sp.c.Wait(nil)
	}
}

// Take hands the waiting spare over, its stderr lines now going to
// onStderr, or returns nil when no live spare waits. The caller owns the
// child from then on, and must Wait for it.
func (s *Spare) Take(onStderr func(line string)) *Child {
	s.mu.Lock()
	sp := s.waiting
	s.waiting = nil
	s.mu.Unlock()
	if sp == nil {
		return nil
	}
	close(sp.taken)
	select {
	case <-sp.c.Proc.Done(): // it died as it was taken
		go sp.c.Wait(nil)
		return nil
	default:
	}
	sp.stderr.Store(&onStderr)
	return sp.c
}

// Drop stops the waiting spare, if any; a later Fill starts another.
func (s *Spare) Drop() {
	s.mu.Lock()
	sp := s.waiting
	s.waiting = nil
	s.mu.Unlock()
	if sp != nil {
		close(sp.taken)
		s.discard(sp)
	}
}

// Close stops the waiting spare and any being started, and returns once
// they have exited; Fill does nothing after it.
func (s *Spare) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.Drop()
	s.wg.Wait()
}

// discard ends a spare nobody took: its stdin closed (it exits at the end
// of its input), then signals after Grace.
func (s *Spare) discard(sp *spare) {
	sp.c.Stop(s.Grace, func() { sp.c.Stdin.Close() })
	sp.c.Wait(nil)
}

// Waiting reports the pid of the spare that waits, or 0.
func (s *Spare) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waiting == nil {
		return 0
	}
	return s.waiting.c.Proc.PID()
}
