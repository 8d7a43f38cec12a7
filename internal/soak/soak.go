// Package soak runs a real `barrhawk serve --http` under mixed load for a
// while and samples what its processes hold (memory, open files,
// goroutines, threads, processes, disk), to tell whether any of it grows
// with time rather than with load (issue 32, item 3: memory over hours).
//
// The load, each kind on MCP sessions of its own over streamable HTTP:
// quick tools (hash_text, json_format, json_validator); browser tabs opened
// and closed on a page the soak serves, and the browser closed now and then;
// SQLite connections opened, used and closed; a hosted upstream
// (server-everything, registered with mcp_register, called, and registered
// again now and then); dynamic TypeScript tools created, called and
// deleted; and HTTP sessions coming and going, a quarter of them abandoned
// without a close, for mcp.sessionIdleTimeout to end.
//
// cmd/barrhawk-soak runs it for minutes (scripts/soak) and judges the
// growth per hour; the package's test runs it for seconds.
package soak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options says what to soak and for how long.
type Options struct {
	// Bin is the barrhawk binary.
	Bin string
	// Everything is mcp-server-everything, the upstream hosted with
	// mcp_register.
	Everything string
	// Dir is a scratch directory for the server: its BARRHAWK_HOME (home),
	// HOME, TMPDIR (tmp), configuration and working directory (work).
	Dir string
	// Duration is how long the load runs; Interval is the time from one
	// sample to the next (which also waits for a browser cycle to end).
	Duration, Interval time.Duration
	// SessionIdle is the server's mcp.sessionIdleTimeout, which ends the
	// abandoned sessions: short, so that they are ended within the run.
	SessionIdle time.Duration
	// RecordCalls is the server's dashboard.maxCalls, the calls its
	// record keeps: small, so that the bound is reached in the warm-up
	// and the disk it takes must stay flat after.
	RecordCalls int
	// Only, if set, keeps the kinds of load whose names hold one of its
	// words (to find which one makes a figure grow).
	Only []string
	// Log, if set, gets a line per sample and the server's log.
	Log io.Writer
}

// Result is what a run saw.
type Result struct {
	Samples []Sample
	Stats   []Stat
	Loads   []*LoadStats
	// Stray are the processes of the server's tree still running 15 s
	// after it was asked to stop.
	Stray []proc.Info
}

// Run starts the server in o.Dir, loads it for o.Duration while sampling
// every o.Interval, stops it and summarizes the samples. An error means the
// run itself failed (the server would not start, or died); growth is for
// the caller to judge from Result.Stats.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Interval <= 0 || o.Duration < 3*o.Interval {
		return nil, fmt.Errorf("soak: a duration of %v with samples every %v is too short to judge", o.Duration, o.Interval)
	}
	if o.SessionIdle <= 0 || o.RecordCalls <= 0 {
		return nil, fmt.Errorf("soak: the session idle timeout (%v) and the record's bound (%d) must be set", o.SessionIdle, o.RecordCalls)
	}
	page, err := servePage()
	if err != nil {
		return nil, err
	}
	defer page.Close()
	srv, err := startServer(ctx, o)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	defer func() { res.Stray = srv.stop() }()

	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	var wg sync.WaitGroup
	for _, l := range loads(srv, page.URL, o.Everything) {
		if len(o.Only) > 0 && !slices.ContainsFunc(o.Only, func(w string) bool { return strings.Contains(strings.ToLower(l.name), strings.ToLower(w)) }) {
			continue
		}
		st := &LoadStats{Name: l.name}
		res.Loads = append(res.Loads, st)
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.run(runCtx, srv.url, st)
		}()
	}
	err = sampleUntil(runCtx, srv, o, res)
	cancel()
	wg.Wait()
	if err != nil {
		return res, err
	}
	res.Stats = Summarize(res.Samples)
	return res, nil
}

// server is a running `barrhawk serve --http`.
type server struct {
	cmd  *exec.Cmd
	url  string
	home string // BARRHAWK_HOME
	tmp  string // its TMPDIR
	done chan struct{}
	// quiet is held by the browser load during its cycles and by each
	// sample: samples fall between cycles.
	quiet sync.Mutex
}

// startServer writes the configuration and starts the server in o.Dir,
// returning once it answers on HTTP.
func startServer(ctx context.Context, o Options) (*server, error) {
	s := &server{home: filepath.Join(o.Dir, "home"), tmp: filepath.Join(o.Dir, "tmp"), done: make(chan struct{})}
	work := filepath.Join(o.Dir, "work")
	for _, d := range []string{s.home, s.tmp, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("soak: %w", err)
		}
	}
	cfg := filepath.Join(o.Dir, "barrhawk.yaml")
	yaml := fmt.Sprintf("mcp:\n  sessionIdleTimeout: %s\ndashboard:\n  maxCalls: %d\n", o.SessionIdle, o.RecordCalls)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		return nil, fmt.Errorf("soak: writing the configuration: %w", err)
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s.url = "http://" + addr + "/"
	s.cmd = exec.Command(o.Bin, "serve", "--stdio=false", "--http", addr)
	s.cmd.Dir = work
	s.cmd.Env = append(os.Environ(), "HOME="+o.Dir, "TMPDIR="+s.tmp, "BARRHAWK_HOME="+s.home,
		"BARRHAWK_CONFIG="+cfg, "BARRHAWK_LOG_LEVEL=warn")
	if o.Log != nil {
		s.cmd.Stderr = o.Log
	}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("soak: starting %s serve: %w", o.Bin, err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := dial(ctx, s.url)
		if err == nil {
			c.Close()
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("soak: the server exited before it answered (%v): %w", s.cmd.ProcessState, err)
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("soak: the server did not answer on %s within 30 s: %w", s.url, err)
		}
	}
}

// stop asks the server to stop (SIGTERM), kills it after 15 s, and returns
// the processes of its tree that outlived it by 15 s more.
func (s *server) stop() []proc.Info {
	tree := proc.Descendants(s.cmd.Process.Pid)
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	var stray []proc.Info
	deadline := time.Now().Add(15 * time.Second)
	for _, p := range tree {
		for {
			now, ok := proc.Stat(p.PID)
			if !ok || now.Start != p.Start || now.State == 'Z' {
				break
			}
			if time.Now().After(deadline) {
				stray = append(stray, p)
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return stray
}

// freeAddr is a loopback address no one listens on.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("soak: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// dial opens an MCP session on url.
func dial(ctx context.Context, url string) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "barrhawk-soak", Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", url, err)
	}
	return s, nil
}

// errGone says the server exited during the run.
var errGone = errors.New("soak: the server exited during the run")
