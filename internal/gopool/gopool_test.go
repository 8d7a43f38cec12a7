package gopool

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The tests count goroutines, so they do not run in parallel.

func TestGoRunsEveryFunctionConcurrently(t *testing.T) {
	p := New(50 * time.Millisecond)
	const n = 50
	var started, done sync.WaitGroup
	started.Add(n)
	release := make(chan struct{})
	var ran atomic.Int32
	for range n {
		done.Add(1)
		p.Go(func() {
			defer done.Done()
			started.Done()
			<-release // every function must be running at once
			ran.Add(1)
		})
	}
	started.Wait()
	close(release)
	done.Wait()
	if ran.Load() != n {
		t.Fatalf("ran %d of %d", ran.Load(), n)
	}
}

func TestIdleGoroutinesAreReusedThenExit(t *testing.T) {
	p := New(100 * time.Millisecond)
	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	for range 100 { // one after another: one goroutine serves them all
		wg.Add(1)
		p.Go(wg.Done)
		wg.Wait()
	}
	if extra := runtime.NumGoroutine() - before; extra > 3 {
		t.Errorf("%d goroutines for 100 sequential calls; want them reused", extra)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if runtime.NumGoroutine() > before {
		t.Errorf("idle goroutines did not exit: %d > %d", runtime.NumGoroutine(), before)
	}
}
