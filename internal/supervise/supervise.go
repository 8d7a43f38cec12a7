// Package supervise holds what supervising a child process that speaks on
// its stdin and stdout takes, whatever it speaks: starting it in its own
// process group with its pipes, forwarding its stderr line by line,
// waiting for its exit and draining its output, stopping it gracefully,
// counting missed answers to pings, and spacing restarts after failures.
// The Doctor's Igors and the gateway's upstream MCP servers both use it;
// what a child says, and what to do when it dies, stays with its owner.
package supervise

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/barrhawk/barrhawk/internal/lines"
	"github.com/barrhawk/barrhawk/internal/proc"
)

// MaxStderrLine is how much of one stderr line is kept.
const MaxStderrLine = 64 << 10

// drainWait bounds each wait of Child.Wait for output after the exit: for
// the stdout reader, then for stderr. A process left outside the group may
// hold the pipes open for as long as it runs.
const drainWait = 2 * time.Second

// Child is a started child process that speaks on its stdin and stdout,
// with stderr read line by line.
type Child struct {
	Proc  *proc.Process
	Stdin io.WriteCloser
	// Stdout is the read end of the child's stdout; the caller reads it
	// (one reader). Wait closes it.
	Stdout *os.File

	stderrDone chan struct{} // closed once stderr is drained to its end
}

// ChildOptions configure Start.
type ChildOptions struct {
	// OnStderr receives each line the child writes on stderr, without its
	// line ending; empty lines are skipped. A line longer than
	// MaxStderrLine is cut and ends with "… (a line of N bytes, cut)".
	// Called from one goroutine, in order; it must not block for long. Nil
	// discards. The pipe is always drained: a child blocked on a full
	// stderr would hang.
	OnStderr func(line string)
}

// Start starts cmd in its own process group via proc.Start, with stdin
// and stdout pipes and stderr forwarded to opts.OnStderr. cmd.Stdin,
// cmd.Stdout and cmd.Stderr must be unset. Stdout and stderr are os.Pipe
// pairs whose write ends the child keeps its own copies of: Start closes
// them in the parent, so the read ends see EOF once the child and anything
// it left holding them are gone. The caller must call Wait.
func Start(cmd *exec.Cmd, opts ChildOptions) (*Child, error) {
	if cmd.Stdout != nil || cmd.Stderr != nil {
		return nil, errors.New("supervise: Stdout or Stderr already set")
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	pr, err := proc.Start(cmd)
	outW.Close() // the child holds its own copies
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	c := &Child{Proc: pr, Stdin: stdin, Stdout: outR, stderrDone: make(chan struct{})}
	go func() {
		defer close(c.stderrDone)
		forwardStderr(errR, opts.OnStderr)
	}()
	return c, nil
}

// forwardStderr hands each line read from r to each, until r ends, then
// closes r.
func forwardStderr(r *os.File, each func(string)) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, size, err := lines.Read(br, MaxStderrLine, MaxStderrLine)
		if (len(line) > 0 || size > 0) && each != nil {
			text := string(line)
			if size > MaxStderrLine {
				text += fmt.Sprintf("… (a line of %d bytes, cut)", size)
			}
			each(text)
		}
		if err != nil {
			return
		}
	}
}

// Wait returns once the child has exited and its output is drained. It
// waits for the process; then for readerDone, which the caller's stdout
// reader closes when it ends (at EOF, once the process group is gone), up
// to 2 s, after which it closes Stdout to unblock the reader and waits for
// it; then it closes Stdout and Stdin; then it waits up to 2 s for stderr
// to be read to its end, since a child's last words may say why it died.
// readerDone may be nil: then Stdout is closed as soon as the child exits.
// OnStderr may still be called after Wait returns, when something outside
// the group holds stderr open.
func (c *Child) Wait(readerDone <-chan struct{}) {
	<-c.Proc.Done()
	if readerDone != nil {
		t := time.NewTimer(drainWait)
		select {
		case <-readerDone:
		case <-t.C:
			c.Stdout.Close()
			<-readerDone
		}
		t.Stop()
	}
	c.Stdout.Close()
	c.Stdin.Close()
	t := time.NewTimer(drainWait)
	defer t.Stop()
	select {
	case <-c.stderrDone:
	case <-t.C:
	}
}

// Stop ends the child gracefully: it calls goodbye, which asks the child
// to exit (writes a shutdown message, closes Stdin; its errors are the
// caller's to ignore: the child is going anyway), and waits up to grace
// for it to exit; then it sends SIGTERM to the group and SIGKILL after
// another grace (proc.Process.Stop). With a nil goodbye it goes straight
// to SIGTERM. It returns once the process has exited (Proc.Done); the
// caller's Wait may still be draining its output.
func (c *Child) Stop(grace time.Duration, goodbye func()) {
	if goodbye != nil {
		goodbye()
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-c.Proc.Done():
			return
		case <-t.C:
		}
	}
	c.Proc.Stop(grace)
}
