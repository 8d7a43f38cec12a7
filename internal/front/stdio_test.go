package front

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

func TestPendingCountsRequestsAndAnswers(t *testing.T) {
	t.Parallel()
	p := newPending()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":{"id":9}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"worker_restart","arguments":{"id":"igor-1"}}}`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"}]`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`,
		`not json`,
	} {
		p.read([]byte(line))
	}
	if got := len(p.ids); got != 3 {
		t.Fatalf("want 3 outstanding requests (1, two, 3), got %v", p.ids)
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"big":"` + strings.Repeat("x", 1<<16) + `"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`, // a request of ours: not an answer
		`{"jsonrpc":"2.0","id":"two","error":{"code":-1,"message":"m"}}`,
	} {
		p.wrote([]byte(line))
	}
	if len(p.ids) != 1 {
		t.Fatalf("want request 3 outstanding, got %v", p.ids)
	}
	done := make(chan struct{})
	go func() { p.wait(context.Background(), time.Minute); close(done) }()
	select {
	case <-done:
		t.Fatal("wait returned with a request outstanding")
	case <-time.After(50 * time.Millisecond):
	}
	p.wrote([]byte(`{"jsonrpc":"2.0","id":3,"result":{}}`))
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("wait did not return once every request was answered")
	}
}

func TestDrainingReaderHoldsEOF(t *testing.T) {
	t.Parallel()
	p := newPending()
	r := &drainingReader{ctx: context.Background(), r: io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)), pending: p, lines: lines{fn: p.read}}
	buf := make([]byte, 1024)
	n, err := r.Read(buf)
	if n == 0 || err != nil {
		t.Fatalf("first read: %d %v", n, err)
	}
	eof := make(chan error, 1)
	go func() { _, err := r.Read(buf); eof <- err }()
	select {
	case <-eof:
		t.Fatal("EOF passed on before the request was answered")
	case <-time.After(50 * time.Millisecond):
	}
	w := &countingWriter{w: nopWriteCloser{io.Discard}, lines: lines{fn: p.wrote}}
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	select {
	case err := <-eof:
		if err != io.EOF {
			t.Fatalf("want EOF, got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("EOF held back after the answer")
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// BenchmarkCountingWriter: the cost stdout counting adds to a 46 KB answer
// (the size of tools/list).
func BenchmarkCountingWriter(b *testing.B) {
	p := newPending()
	w := &countingWriter{w: nopWriteCloser{io.Discard}, lines: lines{fn: p.wrote}}
	line := []byte(`{"jsonrpc":"2.0","id":4,"result":{"tools":[` + strings.Repeat(`{"name":"x","description":"y"},`, 1500) + `{}]}}` + "\n")
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		p.read([]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`))
		w.Write(line)
	}
}
