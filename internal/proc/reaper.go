package proc

import (
	"os"
	"strconv"
	"strings"
)

// ZombieChildren lists the zombie children of ppid, read from /proc.
func ZombieChildren(ppid int) []int {
	var out []int
	for _, c := range zombies(ppid) {
		out = append(out, c.PID)
	}
	return out
}

func zombies(ppid int) []Info {
	var out []Info
	for _, c := range Children(ppid) {
		if c.State == 'Z' {
			out = append(out, c)
		}
	}
	return out
}

// Info is one process as /proc/PID/stat shows it.
type Info struct {
	PID, PPID, PGID int
	State           byte
	Comm            string
	// Start is when the process started, in clock ticks after boot: with
	// PID, it names one process even when PIDs are reused.
	Start uint64
}

// Children lists the processes whose parent is ppid.
func Children(ppid int) []Info {
	var out []Info
	for _, p := range All() {
		if p.PPID == ppid {
			out = append(out, p)
		}
	}
	return out
}

// All lists every process visible in /proc. It reads /proc once and each
// /proc/PID/stat once (filepath.Glob would open every /proc/PID directory
// too: a tenth of a second on a busy machine, on the path to serve's first
// answer).
func All() []Info {
	f, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	out := make([]Info, 0, len(names))
	for _, n := range names {
		if n == "" || n[0] < '0' || n[0] > '9' {
			continue
		}
		if info, ok := readStat("/proc/" + n + "/stat"); ok {
			out = append(out, info)
		}
	}
	return out
}

// Descendants lists every live or zombie descendant of pid.
func Descendants(pid int) []Info {
	all := All()
	kids := map[int][]Info{}
	for _, p := range all {
		kids[p.PPID] = append(kids[p.PPID], p)
	}
	var out []Info
	queue := []int{pid}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		for _, c := range kids[next] {
			out = append(out, c)
			queue = append(queue, c.PID)
		}
	}
	return out
}

// Stat is what /proc/PID/stat says of pid (Linux); false when it is gone
// or there is no /proc.
func Stat(pid int) (Info, bool) { return readStat("/proc/" + strconv.Itoa(pid) + "/stat") }

func readStat(path string) (Info, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Info{}, false
	}
	s := string(b)
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || close < open || close+2 >= len(s) {
		return Info{}, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
	if err != nil {
		return Info{}, false
	}
	f := strings.Fields(s[close+2:])
	if len(f) < 3 {
		return Info{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	var start uint64
	if len(f) > 19 { // field 22 of stat; f starts at field 3
		start, _ = strconv.ParseUint(f[19], 10, 64)
	}
	return Info{PID: pid, PPID: ppid, PGID: pgid, State: f[0][0], Comm: s[open+1 : close], Start: start}, true
}

// RSS returns the resident set size of pid in bytes, from /proc/PID/statm.
func RSS(pid int) int64 { return statm(pid, 1) }

// VirtualSize returns the address space of pid in bytes, from
// /proc/PID/statm.
func VirtualSize(pid int) int64 { return statm(pid, 0) }

// statm reads field i of /proc/PID/statm, in bytes; 0 when unreadable.
func statm(pid, i int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) <= i {
		return 0
	}
	pages, _ := strconv.ParseInt(f[i], 10, 64)
	return pages * int64(os.Getpagesize())
}

// PSS returns the proportional set size of pid in bytes (its private pages
// plus its share of the pages it shares), from /proc/PID/smaps_rollup; 0
// when unreadable. Summed over processes that share pages (a browser and
// its renderers), it counts each page once, where RSS counts it in each.
func PSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
