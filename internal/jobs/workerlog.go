package jobs

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sync/atomic"

	"gopkg.in/natefinch/lumberjack.v2"
)

// Worker logs are rotated at WorkerLogMaxMB; WorkerLogFiles files are kept
// (the current one and WorkerLogFiles-1 rotated ones).
const (
	WorkerLogMaxMB = 10
	WorkerLogFiles = 5
)

// validWorkerID has no counted repetition (it would compile to a program
// two hundred times larger at every start); the length is checked apart.
var validWorkerID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// WorkerLogPath is the log file of worker id under dir, or an error when
// id is not a worker id (barrhawk worker status lists them).
func WorkerLogPath(dir, id string) (string, error) {
	if len(id) > 200 || !validWorkerID.MatchString(id) {
		return "", fmt.Errorf("%q is not a worker id: use the ids barrhawk worker status lists (letters, digits, '.', '_', '-')", id)
	}
	return filepath.Join(dir, id+".log"), nil
}

// NewWorkerLog opens the log of worker id under dir: appended to, rotated
// at 10 MB, 5 files kept. The worker process writes its own log lines and
// every command's output there.
func NewWorkerLog(dir, id string) (*lumberjack.Logger, error) {
	path, err := WorkerLogPath(dir, id)
	if err != nil {
		return nil, err
	}
	return &lumberjack.Logger{Filename: path, MaxSize: WorkerLogMaxMB, MaxBackups: WorkerLogFiles - 1}, nil
}

// processWorkerLog is the log of the worker this process is (barrhawk
// worker run), if any.
var processWorkerLog atomic.Pointer[io.Writer]

// SetWorkerLog makes w this process's worker log: every command of every
// job run here writes its output there as well as to the job's log (nil
// stops that). A RunEnv's own WorkerLog takes precedence.
func SetWorkerLog(w io.Writer) {
	if w == nil {
		processWorkerLog.Store(nil)
		return
	}
	processWorkerLog.Store(&w)
}
