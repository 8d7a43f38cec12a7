//go:build unix

package fs

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// linkTimes sets the modification (and access) time of the symbolic link
// rel itself, not of its target, so that copies and restores keep it.
// os.Root has no Lchtimes: the link's directory is opened through the root
// (so it cannot lead outside) and the time set relative to that handle.
func linkTimes(root *os.Root, rel string, mt time.Time) error {
	dir, err := root.Open(filepath.Dir(rel))
	if err != nil {
		return err
	}
	defer dir.Close()
	ts := unix.NsecToTimespec(mt.UnixNano())
	if err := unix.UtimesNanoAt(int(dir.Fd()), filepath.Base(rel), []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("set the time of link %s: %w", rel, err)
	}
	return nil
}
