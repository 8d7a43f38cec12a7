//go:build !linux

package proc

import "time"

// leaderWaitable: awaitLeader cannot see a child's exit before Wait.
const leaderWaitable = false

// pipeWaitDelay bounds how long Wait waits for output pipes still held
// after the leader exited (exec.Cmd.WaitDelay).
const pipeWaitDelay = 2 * time.Second

// awaitLeader reports false where a child's exit cannot be seen without
// reaping it: the group is then swept after Wait returns (which also
// waits for the output pipes, bounded by the WaitDelay Start sets).
func awaitLeader(int) bool { return false }
