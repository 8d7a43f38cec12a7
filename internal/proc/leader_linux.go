package proc

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// leaderWaitable: awaitLeader sees a child's exit before Wait reaps it.
const leaderWaitable = true

// pipeWaitDelay is unused here: the group is swept as the leader exits.
const pipeWaitDelay = 0

// awaitLeader blocks until the process pid has exited, without reaping it
// (WNOWAIT), so that its process group still exists to be swept before
// exec.Cmd.Wait reaps it. It reports whether it saw the exit.
func awaitLeader(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		return err == nil
	}
}
