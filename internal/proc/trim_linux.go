package proc

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// TrimText lets go of this process's mapped pages of its own executable
// (its code and read-only data, never what it wrote): the pages package
// initialization and start-up touched, and those the kernel mapped
// around them (fault-around maps 64 KiB about each page touched), leave
// the resident set. The pages stay in the page cache; what the process
// runs next maps them again on a minor fault. Call it once start-up is
// done. It returns the bytes let go of.
func TrimText() (int64, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, err
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var total int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 00400000-01cc0000 r-xp 00000000 fe:00 10109307   /path/to/exe
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || (fields[1] != "r-xp" && fields[1] != "r--p") {
			continue
		}
		from, to, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(from, 16, 64)
		end, err2 := strconv.ParseUint(to, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED); errno != 0 {
			return total, errno
		}
		total += int64(end - start)
	}
	return total, sc.Err()
}
