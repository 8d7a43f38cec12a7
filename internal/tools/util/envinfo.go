package util

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/version"
)

// started approximates the process start: package variables are initialised
// before main runs.
var started = time.Now()

type memInfo struct {
	RSSBytes       *uint64 `json:"rssBytes"`
	HeapAllocBytes uint64  `json:"heapAllocBytes"`
	HeapSysBytes   uint64  `json:"heapSysBytes"`
	SysBytes       uint64  `json:"sysBytes"`
	NumGC          uint32  `json:"numGC"`
}

type envReport struct {
	BarrhawkVersion string  `json:"barrhawkVersion"`
	GoVersion       string  `json:"goVersion"`
	OS              string  `json:"os"`
	Arch            string  `json:"arch"`
	NumCPU          int     `json:"numCPU"`
	GOMAXPROCS      int     `json:"gomaxprocs"`
	NumGoroutine    int     `json:"numGoroutine"`
	PID             int     `json:"pid"`
	Hostname        string  `json:"hostname"`
	UptimeMs        int64   `json:"uptimeMs"`
	Uptime          string  `json:"uptime"`
	Memory          memInfo `json:"memory"`
	EnvVarCount     int     `json:"envVarCount"`
}

func envInfo() tool.Tool {
	return tool.Tool{
		Def: tool.Def{
			Name: "env_info",
			Description: "Runtime facts about the process running the tool (an Igor worker). Returns {barrhawkVersion, goVersion, os, arch, " +
				"numCPU, gomaxprocs, numGoroutine, pid, hostname, uptimeMs, uptime (\"1h2m3.456s\"), " +
				"memory {rssBytes (resident set from /proc/self/statm; null where unavailable), heapAllocBytes, heapSysBytes, sysBytes, numGC}, " +
				"envVarCount}. Environment variable names and values are never returned, only their count.",
			Phrases:        []string{"what os", "go version", "runtime info", "cpu count", "memory of this process", "hostname", "system info", "uname", "what node version and platform is it running on"},
			Group:          Group,
			Category:       tool.CategoryUtility,
			Input:          schema.Object(),
			RequiresWorker: true,
		},
		Run: func(_ context.Context, _ *tool.Call) (any, error) {
			up := time.Since(started)
			host, _ := os.Hostname()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			return envReport{
				BarrhawkVersion: version.Version,
				GoVersion:       runtime.Version(),
				OS:              runtime.GOOS,
				Arch:            runtime.GOARCH,
				NumCPU:          runtime.NumCPU(),
				GOMAXPROCS:      runtime.GOMAXPROCS(0),
				NumGoroutine:    runtime.NumGoroutine(),
				PID:             os.Getpid(),
				Hostname:        host,
				UptimeMs:        up.Milliseconds(),
				Uptime:          up.Round(time.Millisecond).String(),
				Memory: memInfo{
					RSSBytes:       rss(),
					HeapAllocBytes: ms.HeapAlloc,
					HeapSysBytes:   ms.HeapSys,
					SysBytes:       ms.Sys,
					NumGC:          ms.NumGC,
				},
				EnvVarCount: len(os.Environ()),
			}, nil
		},
	}
}

// rss reads the resident set size from /proc/self/statm (Linux), or nil.
func rss() *uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return nil
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return nil
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return nil
	}
	n := pages * uint64(os.Getpagesize())
	return &n
}
