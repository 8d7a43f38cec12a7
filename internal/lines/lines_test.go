package lines

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestReadBoundsLongLines(t *testing.T) {
	t.Parallel()
	long := `{"id":"big","pad":"` + strings.Repeat("x", 300<<10) + "\"}\n"
	r := bufio.NewReaderSize(strings.NewReader("short\r\n"+long+"next\n"+"last"), 64<<10)
	line, size, err := Read(r, 100<<10, 4096)
	if string(line) != "short" || size != 5 || err != nil {
		t.Fatalf("first: %q %d %v", line, size, err)
	}
	line, size, err = Read(r, 100<<10, 4096)
	if size != len(long) || len(line) > 4096 || err != nil || !strings.HasPrefix(string(line), `{"id":"big"`) {
		t.Fatalf("long: kept %d bytes, size %d, %v", len(line), size, err)
	}
	if line, _, err = Read(r, 100<<10, 4096); string(line) != "next" || err != nil {
		t.Fatalf("after the long line: %q %v", line, err)
	}
	if line, _, err = Read(r, 100<<10, 4096); string(line) != "last" || err == nil {
		t.Fatalf("last line without newline: %q %v", line, err)
	}
}

func TestReadEndsKeepsBothEnds(t *testing.T) {
	t.Parallel()
	long := `{"pad":"` + strings.Repeat("x", 300<<10) + `","id":7}`
	r := bufio.NewReaderSize(strings.NewReader("short\r\n"+long+"\r\n"+"last"), 64<<10)
	head, size, tail, err := ReadEnds(r, 100<<10, 16)
	if string(head) != "short" || size != 5 || tail != nil || err != nil {
		t.Fatalf("first: %q %d %q %v", head, size, tail, err)
	}
	head, size, tail, err = ReadEnds(r, 100<<10, 16)
	if size != len(long)+2 || string(head) != long[:16] || string(tail) != long[len(long)-16:] || err != nil {
		t.Fatalf("long: head %q, tail %q, size %d, %v", head, tail, size, err)
	}
	if head, _, _, err = ReadEnds(r, 100<<10, 16); string(head) != "last" || err == nil {
		t.Fatalf("last line without newline: %q %v", head, err)
	}
}

// countingWriter counts the writes that reach it.
type countingWriter struct {
	mu     sync.Mutex
	writes int
	buf    bytes.Buffer
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.buf.Write(b)
}

func TestWriterKeepsEveryLineWhole(t *testing.T) {
	t.Parallel()
	out := &countingWriter{}
	lw := NewWriter(out)
	var wg sync.WaitGroup
	big := strings.Repeat("z", FlushAt*2)
	for i := range 64 {
		wg.Go(func() {
			line := `{"n":` + strings.Repeat("1", i+1) + `}`
			if i == 10 {
				line = `{"big":"` + big + `"}`
			}
			if err := lw.WriteLine([]byte(line)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.buf.String(), "\n"), "\n")
	if len(lines) != 64 {
		t.Fatalf("want 64 lines, got %d", len(lines))
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("a line was torn: %.80s", l)
		}
	}
}

// blockingWriter holds each write until released, and counts them.
type blockingWriter struct {
	countingWriter
	entered chan struct{}
	release chan struct{}
	fail    error
}

func (w *blockingWriter) Write(b []byte) (int, error) {
	w.entered <- struct{}{}
	<-w.release
	if w.fail != nil {
		return 0, w.fail
	}
	return w.countingWriter.Write(b)
}

// While one caller writes, the others hand their lines over and go on at
// once; the lines leave together in the next write. Past MaxPending bytes
// waiting, callers wait; a failed write fails every later one.
func TestWriterCombinesWithoutWaiting(t *testing.T) {
	t.Parallel()
	out := &blockingWriter{entered: make(chan struct{}, 16), release: make(chan struct{})}
	lw := NewWriter(out)
	first := make(chan error, 1)
	go func() { first <- lw.WriteLine([]byte(`{"n":0}`)) }()
	<-out.entered // the first write is in progress and held
	for i := 1; i <= 3; i++ {
		if err := lw.WriteLine([]byte(fmt.Sprintf(`{"n":%d}`, i))); err != nil { // returns without waiting
			t.Fatal(err)
		}
	}
	// Fill the buffer to MaxPending: the next caller waits.
	filler := []byte(strings.Repeat("x", FlushAt-1))
	for range MaxPending / FlushAt {
		if err := lw.WriteLine(filler); err != nil {
			t.Fatal(err)
		}
	}
	waited := make(chan error, 1)
	go func() { waited <- lw.WriteLine([]byte(`{"n":4}`)) }()
	select {
	case err := <-waited:
		t.Fatalf("a caller did not wait with %d bytes pending: %v", MaxPending, err)
	case <-time.After(100 * time.Millisecond):
	}
	type flushResult struct {
		err     error
		written int // lines written when Flush returned
	}
	flushed := make(chan flushResult, 1)
	go func() {
		err := lw.Flush()
		out.mu.Lock()
		defer out.mu.Unlock()
		flushed <- flushResult{err, strings.Count(out.buf.String(), "\n")}
	}()
	out.release <- struct{}{} // the first write
	<-out.entered             // the second: lines 1 to 3 and the fillers, together
	out.release <- struct{}{}
	<-out.entered // line 4, handed over once there was room, by the same writer
	out.release <- struct{}{}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if f := <-flushed; f.err != nil || f.written < 1+3+MaxPending/FlushAt { // those handed over before it
		t.Fatalf("Flush returned (%v) with %d lines written", f.err, f.written)
	}
	got := strings.Split(strings.TrimSuffix(out.buf.String(), "\n"), "\n")
	if out.writes != 3 || got[0] != `{"n":0}` || got[1] != `{"n":1}` || got[3] != `{"n":3}` || got[len(got)-1] != `{"n":4}` {
		t.Fatalf("%d writes; lines %q ... %q", out.writes, got[:4], got[len(got)-1])
	}
	// A write fails: its caller and every later one get the error.
	out.fail = errors.New("broken pipe")
	go func() { <-out.entered; out.release <- struct{}{} }()
	if err := lw.WriteLine([]byte(`{"n":5}`)); err == nil || lw.WriteLine([]byte(`{"n":6}`)) == nil {
		t.Fatalf("a failed write: %v", err)
	}
}

// Lines that become ready at one moment, on goroutines of their own, leave
// in fewer writes from a gathering writer than from a plain one.
func TestGatheringWriterGathers(t *testing.T) {
	t.Parallel()
	writes := func(l *Writer, c *countingWriter) int {
		for range 200 {
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Go(func() {
					<-start
					if err := l.WriteLine([]byte(fmt.Sprintf(`{"id":%d}`, i))); err != nil {
						t.Error(err)
					}
				})
			}
			close(start)
			wg.Wait()
		}
		if err := l.Flush(); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(c.buf.String(), "\n"); n != 1600 {
			t.Fatalf("%d lines written, want 1600", n)
		}
		return c.writes
	}
	var plain, gathering countingWriter
	p, g := writes(NewWriter(&plain), &plain), writes(NewGatheringWriter(&gathering), &gathering)
	t.Logf("1,600 lines in bursts of 8: %d writes plain, %d gathering", p, g)
	if g >= p {
		t.Fatalf("the gathering writer made %d writes, the plain one %d", g, p)
	}
}
