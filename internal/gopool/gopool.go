// Package gopool runs functions on goroutines kept for reuse. A new
// goroutine starts with a small stack, which one tool call (JSON decoding,
// argument validation, the tool) grows several times over; growing it
// (runtime.copystack) was a tenth of the CPU of a call in the front and in
// the Igor. A goroutine kept between calls keeps its grown stack.
package gopool

import "time"

// Pool runs functions on reused goroutines. The zero value is not usable;
// call New.
type Pool struct {
	work chan func()
	idle time.Duration
}

// New returns a pool whose goroutines exit after idle without work.
func New(idle time.Duration) *Pool {
	return &Pool{work: make(chan func()), idle: idle}
}

// Go runs fn on an idle goroutine of the pool, or on a new one if none is
// idle: it never waits for a goroutine to be free, so there is no bound on
// how many run at once.
func (p *Pool) Go(fn func()) {
	select {
	case p.work <- fn:
	default:
		go p.loop(fn)
	}
}

func (p *Pool) loop(fn func()) {
	t := time.NewTimer(p.idle)
	defer t.Stop()
	for {
		fn()
		fn = nil // hold nothing of the last call while idle
		t.Reset(p.idle)
		select {
		case fn = <-p.work:
		case <-t.C:
			return
		}
	}
}
