package proc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper makes this process the reaper of its orphaned
// descendants (PR_SET_CHILD_SUBREAPER). PID 1 in these sandboxes does not
// reap, so without this a killed Igor's grandchildren would stay zombies.
func BecomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	return nil
}
