package proc

import (
	"os/exec"
	"runtime"
)

// StartTied is Start for a child that must not outlive this process: on
// Linux it gets SIGKILL when this process dies (PR_SET_PDEATHSIG), so that
// a job's command does not run on to its end after its worker was killed,
// while the job is handed back to run again. The kernel ties that signal
// to the thread that started the child, not the process (golang/go#27505):
// that thread stays locked to a goroutine until the child has exited.
// Elsewhere it is Start.
func StartTied(cmd *exec.Cmd) (*Process, error) {
	type started struct {
		p   *Process
		err error
	}
	ch := make(chan started, 1)
	go func() {
		runtime.LockOSThread()
		tieToParent(cmd)
		p, err := Start(cmd)
		ch <- started{p, err}
		if err == nil {
			<-p.Done()
		}
		runtime.UnlockOSThread()
	}()
	s := <-ch
	return s.p, s.err
}
