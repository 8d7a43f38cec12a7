package doctor

import (
	"os/exec"

	"github.com/barrhawk/barrhawk/internal/supervise"
)

// The pool's spare (igors.spare): one Igor process exec'd ahead of need
// while the pool has Igors, waiting for its init. A new Igor, whether it
// replaces one that died or adds one more, takes it and costs only its
// init (about a millisecond) instead of an exec and a Go runtime start-up
// (tens of milliseconds on a busy machine). It is filled again once the
// Igor that took it is ready, so that the two starts do not compete for the
// CPU, and dropped when the pool has no Igor left (idle), so that a server
// at rest holds no extra process.

// spareID is the id a spare runs under until its init names it; its
// command line (ps) keeps "--id spare" after, its logs and worker_status
// use the name init gave.
const spareID = "spare"

func (p *Pool) newSpare() *supervise.Spare {
	return &supervise.Spare{
		New: func() *exec.Cmd { return p.igorCommand(spareID) },
		OnStderr: func(line string) {
			p.log.Warn("the spare Igor wrote on stderr", "line", line)
		},
		OnError: func(err error) { p.log.Warn("starting a spare Igor failed", "err", err) },
		Grace:   p.opts.Igors.ShutdownGrace,
	}
}

// igorCommand is the command of an Igor process.
func (p *Pool) igorCommand(id string) *exec.Cmd {
	cmd := exec.Command(p.opts.Command[0], append(p.opts.Command[1:], "--id", id)...)
	cmd.Env = p.opts.Env
	return cmd
}

// startIgor returns ig's process: the spare when one waits, else a new one.
func (p *Pool) startIgor(ig *igorConn) (*supervise.Child, error) {
	if p.spare != nil {
		if c := p.spare.Take(p.igorStderr(ig)); c != nil {
			return c, nil
		}
	}
	return supervise.Start(p.igorCommand(ig.id), supervise.ChildOptions{OnStderr: p.igorStderr(ig)})
}

// fillSpare starts a spare if the pool keeps one and none waits.
func (p *Pool) fillSpare() {
	if p.spare != nil && !p.isClosed() {
		p.spare.Fill()
	}
}

// dropSpareLocked stops the spare when one waits, no Igor is left and no
// call waits for one.
func (p *Pool) dropSpareLocked() {
	if p.spare == nil || p.waiting > 0 || p.spare.Waiting() == 0 || p.anyLiveLocked() {
		return
	}
	go p.spare.Drop()
}

// sparePID is the pid of the waiting spare, or 0.
func (p *Pool) sparePID() int {
	if p.spare == nil {
		return 0
	}
	return p.spare.Waiting()
}
