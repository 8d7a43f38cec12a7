package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// rawClient speaks MCP's JSON-RPC lines directly on the server's stdio, the
// way the upstream figures in DESIGN.md were taken: it measures the server,
// not a client library.
type rawClient struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startRaw(b *testing.B, env ...string) *rawClient {
	b.Helper()
	c := startRawUninitialized(b, env...)
	c.rpc(b, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
	fmt.Fprintln(c.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

// startRawUninitialized starts the server and sends nothing.
func startRawUninitialized(b *testing.B, env ...string) *rawClient {
	b.Helper()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "HOME="+b.TempDir(), "BARRHAWK_LOG_LEVEL=error")
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = b.TempDir()
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &rawClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	b.Cleanup(func() { in.Close(); cmd.Wait() })
	return c
}

func (c *rawClient) rpc(b *testing.B, method, params string) []byte {
	c.id++
	fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", c.id, method, params)
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		b.Fatal(err)
	}
	var resp struct {
		Error *json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &resp) != nil || resp.Error != nil {
		b.Fatalf("%s: %s", method, line)
	}
	return line
}

// rpcAny sends a request and returns the answer, error or not.
func (c *rawClient) rpcAny(b *testing.B, method, params string) []byte {
	c.id++
	fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", c.id, method, params)
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		b.Fatal(err)
	}
	return line
}

// measure sends one request per iteration (after a warm-up one) and
// reports the median and p99 latency.
func (c *rawClient) measure(b *testing.B, method, params string) {
	c.rpc(b, method, params)
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		c.rpc(b, method, params)
		lat = append(lat, time.Since(t0))
	}
	reportLatencies(b, lat)
}

// BenchmarkRawToolsCall: tools/call of hash_text from a raw JSON-RPC client.
func BenchmarkRawToolsCall(b *testing.B) {
	startRaw(b).measure(b, "tools/call", `{"name":"hash_text","arguments":{"text":"hello","algorithm":"sha256"}}`)
}

// BenchmarkRawToolsCallPerRequest: the same on the 2026-07-28 per-request
// protocol (no initialize; each request carries its _meta).
func BenchmarkRawToolsCallPerRequest(b *testing.B) {
	startRawUninitialized(b).measure(b, "tools/call", `{"name":"hash_text","arguments":{"text":"hello","algorithm":"sha256"},`+perRequestMeta+`}`)
}

// BenchmarkRawToolsList: tools/list from a raw JSON-RPC client.
func BenchmarkRawToolsList(b *testing.B) {
	startRaw(b).measure(b, "tools/list", `{}`)
}

// BenchmarkRawToolsCallPipelined8: calls/s with 8 calls in flight on one
// stdio connection, from a raw JSON-RPC client.
func BenchmarkRawToolsCallPipelined8(b *testing.B) {
	c := startRaw(b)
	params := `{"name":"hash_text","arguments":{"text":"hello"}}`
	c.rpc(b, "tools/call", params)
	slots := make(chan struct{}, 8)
	done := make(chan error, 1)
	b.ResetTimer()
	t0 := time.Now()
	go func() {
		for range b.N {
			line, err := c.out.ReadBytes('\n')
			if err != nil || !json.Valid(line) {
				done <- fmt.Errorf("reading: %v %s", err, line)
				return
			}
			<-slots
		}
		done <- nil
	}()
	w := bufio.NewWriter(c.in)
	for i := range b.N {
		slots <- struct{}{}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`+"\n", 1000+i, params)
		w.Flush()
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "calls/s")
}
