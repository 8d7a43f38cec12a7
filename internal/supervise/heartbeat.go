package supervise

import (
	"sync/atomic"
	"time"
)

// Heartbeat counts a child's answers to pings, and the pings it missed in
// a row. Its owner calls Tick before each ping it sends and Beat when an
// answer arrives, and replaces the child once Misses reaches its limit.
// Safe for concurrent use; the zero value has seen no beat.
type Heartbeat struct {
	last   atomic.Int64 // unix nanoseconds; 0 before the first
	misses atomic.Int32
}

// Beat records an answer: the misses go back to 0 and Last becomes now.
func (h *Heartbeat) Beat() {
	h.last.Store(time.Now().UnixNano())
	h.misses.Store(0)
}

// Tick is called once per interval, before the next ping is sent: it
// counts a miss when no beat came within the last interval/2, and returns
// the misses in a row. A beat clears them, so a child that answers every
// ping stays at 0 or 1, while one that stopped answering gains a miss at
// every tick.
func (h *Heartbeat) Tick(interval time.Duration) int {
	if time.Since(time.Unix(0, h.last.Load())) > interval/2 {
		return int(h.misses.Add(1))
	}
	return h.Misses()
}

// Misses is how many Ticks in a row saw no beat.
func (h *Heartbeat) Misses() int { return int(h.misses.Load()) }

// Last is when the last beat came (or Start was called); zero before.
func (h *Heartbeat) Last() time.Time {
	n := h.last.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// Start sets Last to now without resetting the misses, for a fresh child
// that has not answered yet: its misses count from its start, not from
// the zero time.
func (h *Heartbeat) Start() { h.last.Store(time.Now().UnixNano()) }
